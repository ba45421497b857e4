// The arena's map: 5 cm cells over the arena to the outside of its walls, occupied wherever a solid
// stands, free where the robot can be.
import { describe, expect, it } from 'vitest';
import { clearanceM, createArena } from './arena.ts';
import { boundsOf, cellIndexAt, episodeMap, FREE, MAP_RESOLUTION_M, OCCUPIED, rasteriseFootprints, type OccupancyGrid } from './occupancyGrid.ts';
import { SeededRandom } from './random.ts';
import { SimRobot } from './simRobot.ts';

function cellAt(grid: OccupancyGrid, xM: number, yM: number): number | undefined {
  const index = cellIndexAt(grid, xM, yM);
  return index === undefined ? undefined : grid.cells[index];
}

describe('the occupancy grid of the arena', () => {
  it('covers the arena with its walls, the origin at its corner, walls and pillars occupied and nothing else', () => {
    const arena = createArena(4, { sizeM: 6, obstacleCount: 0 });
    const grid = rasteriseFootprints({ boxes: arena.walls, pillars: [{ xM: 1, yM: 1, radiusM: 0.15 }] }, boundsOf(arena.walls));
    // 6 m inside and 0.2 m walls: 6.4 m, 128 cells a side.
    expect([grid.width, grid.height, grid.resolutionM, grid.originXM, grid.originYM]).toEqual([128, 128, MAP_RESOLUTION_M, -3.2, -3.2]);
    expect(grid.cells).toHaveLength(128 * 128);
    expect(cellAt(grid, -3.1, 0), 'in the west wall').toBe(OCCUPIED);
    expect(cellAt(grid, -3.01, 0), 'the wall cell at its inner face').toBe(OCCUPIED);
    expect(cellAt(grid, -2.99, 0), 'the first cell inside').toBe(FREE);
    expect(cellAt(grid, 3.19, 3.19), 'the north-east corner').toBe(OCCUPIED);
    expect(cellAt(grid, 1, 1), 'the pillar').toBe(OCCUPIED);
    expect(cellAt(grid, 1.12, 1), 'a cell the pillar covers part of').toBe(OCCUPIED);
    expect(cellAt(grid, 1.22, 1), 'a cell beside the pillar').toBe(FREE);
    expect(cellAt(grid, 0, 0)).toBe(FREE);
    expect(cellAt(grid, 3.3, 0), 'outside the grid').toBeUndefined();
  });

  it('marks every point of every solid occupied, and every cell clear of all solids free', () => {
    const robot = new SimRobot({ arenaSeed: 11, episodeSeed: 3, task: 'corridor' });
    const footprints = robot.mapFootprints();
    const grid = episodeMap(robot);
    expect(footprints.boxes.length).toBeGreaterThan(4 + robot.arena.obstacles.length);
    const random = new SeededRandom(5);
    for (const box of footprints.boxes) {
      for (let sample = 0; sample < 20; sample++) {
        const xM = box.minXM + random.next() * (box.maxXM - box.minXM);
        const yM = box.minYM + random.next() * (box.maxYM - box.minYM);
        expect(cellAt(grid, xM, yM), `(${xM}, ${yM}) inside a box`).toBe(OCCUPIED);
      }
    }
    const halfDiagonalM = (MAP_RESOLUTION_M * Math.SQRT2) / 2;
    let free = 0;
    for (let row = 0; row < grid.height; row++) {
      for (let column = 0; column < grid.width; column++) {
        const centreXM = grid.originXM + (column + 0.5) * grid.resolutionM;
        const centreYM = grid.originYM + (row + 0.5) * grid.resolutionM;
        if (clearanceM(footprints, centreXM, centreYM) <= halfDiagonalM) continue;
        expect(grid.cells[row * grid.width + column], `cell (${column}, ${row})`).toBe(FREE);
        free++;
      }
    }
    expect(free).toBeGreaterThan(grid.width * grid.height * 0.5);
    const { xM, yM } = robot.groundTruth().pose;
    expect(cellAt(grid, xM, yM), 'where the robot stands').toBe(FREE);
  });
});
