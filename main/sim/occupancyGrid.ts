// The arena as a map: an occupancy grid such as a mapping run leaves (nav_msgs/OccupancyGrid's cells:
// 100 occupied, 0 free), rasterised from the solids' footprints. A cell that a solid covers any part
// of is occupied, so a planner reading the map never finds a way through where a solid stands.
import type { Footprints } from './arena.ts';
import { distanceToAabbM, type Aabb, type Circle } from './geometry.ts';
import type { SimRobot } from './simRobot.ts';

export const MAP_RESOLUTION_M = 0.05;
export const OCCUPIED = 100;
export const FREE = 0;

/** An overlap thinner than this fraction of a cell does not occupy it (float rounding at shared edges). */
const EDGE_TOLERANCE_CELLS = 1e-6;

export interface OccupancyGrid {
  resolutionM: number;
  /** Cells along x (columns) and along y (rows). */
  width: number;
  height: number;
  /** Where cell (0, 0)'s outer corner lies in the map frame; columns run along +x, rows along +y. */
  originXM: number;
  originYM: number;
  /** Row by row from the origin, as OccupancyGrid orders them: cell (column, row) at row × width + column. */
  cells: Int8Array;
}

/** The solids' footprints on a grid covering `bounds`: occupied where any solid covers part of a cell, free elsewhere. */
export function rasteriseFootprints(footprints: Footprints, bounds: Aabb, resolutionM = MAP_RESOLUTION_M): OccupancyGrid {
  if (!(resolutionM > 0)) throw new RangeError(`map resolution must be > 0 m, got ${resolutionM}`);
  const width = Math.ceil((bounds.maxXM - bounds.minXM) / resolutionM - EDGE_TOLERANCE_CELLS);
  const height = Math.ceil((bounds.maxYM - bounds.minYM) / resolutionM - EDGE_TOLERANCE_CELLS);
  if (!(width > 0 && height > 0)) throw new RangeError('map bounds must have an area');
  const grid: OccupancyGrid = { resolutionM, width, height, originXM: bounds.minXM, originYM: bounds.minYM, cells: new Int8Array(width * height).fill(FREE) };
  for (const box of footprints.boxes) fillCells(grid, box, () => true);
  for (const pillar of footprints.pillars)
    fillCells(grid, circleBounds(pillar), (cell) => distanceToAabbM(pillar.xM, pillar.yM, cell) < pillar.radiusM - EDGE_TOLERANCE_CELLS * resolutionM);
  return grid;
}

/** The map of the robot's present episode: the arena to the outside of its walls, every solid the episode began with on it. */
export function episodeMap(robot: Pick<SimRobot, 'arena' | 'mapFootprints'>): OccupancyGrid {
  return rasteriseFootprints(robot.mapFootprints(), boundsOf(robot.arena.walls));
}

/** The box enclosing all of them: the arena's outer walls enclose its map. */
export function boundsOf(boxes: readonly Aabb[]): Aabb {
  if (boxes.length === 0) throw new RangeError('no boxes to bound');
  return {
    minXM: Math.min(...boxes.map((box) => box.minXM)),
    minYM: Math.min(...boxes.map((box) => box.minYM)),
    maxXM: Math.max(...boxes.map((box) => box.maxXM)),
    maxYM: Math.max(...boxes.map((box) => box.maxYM)),
  };
}

/** The index in `cells` of the cell holding a point; undefined off the grid. */
export function cellIndexAt(grid: OccupancyGrid, xM: number, yM: number): number | undefined {
  const column = Math.floor((xM - grid.originXM) / grid.resolutionM);
  const row = Math.floor((yM - grid.originYM) / grid.resolutionM);
  if (column < 0 || row < 0 || column >= grid.width || row >= grid.height) return undefined;
  return row * grid.width + column;
}

/** Marks occupied each cell overlapping `area` (by more than the tolerance) for which `covers` holds. */
function fillCells(grid: OccupancyGrid, area: Aabb, covers: (cell: Aabb) => boolean): void {
  const { resolutionM, originXM, originYM, width, height } = grid;
  const firstColumn = Math.max(0, Math.floor((area.minXM - originXM) / resolutionM + EDGE_TOLERANCE_CELLS));
  const lastColumn = Math.min(width - 1, Math.ceil((area.maxXM - originXM) / resolutionM - EDGE_TOLERANCE_CELLS) - 1);
  const firstRow = Math.max(0, Math.floor((area.minYM - originYM) / resolutionM + EDGE_TOLERANCE_CELLS));
  const lastRow = Math.min(height - 1, Math.ceil((area.maxYM - originYM) / resolutionM - EDGE_TOLERANCE_CELLS) - 1);
  for (let row = firstRow; row <= lastRow; row++) {
    for (let column = firstColumn; column <= lastColumn; column++) {
      const cell = {
        minXM: originXM + column * resolutionM,
        minYM: originYM + row * resolutionM,
        maxXM: originXM + (column + 1) * resolutionM,
        maxYM: originYM + (row + 1) * resolutionM,
      };
      if (covers(cell)) grid.cells[row * width + column] = OCCUPIED;
    }
  }
}

function circleBounds(circle: Circle): Aabb {
  return { minXM: circle.xM - circle.radiusM, minYM: circle.yM - circle.radiusM, maxXM: circle.xM + circle.radiusM, maxYM: circle.yM + circle.radiusM };
}
