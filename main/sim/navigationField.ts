// Planning with the map in hand: an occupancy grid of the arena, inflated by the robot's radius, and
// the cost to reach the goal from every free cell (Dijkstra from the goal outwards, 8-connected).
// One field answers both "how far is the goal along the best path" (the task's progress) and "which
// way now" (the scripted operator follows the field downhill).
import { clearanceM, type Footprints } from './arena.ts';
import type { Circle } from './geometry.ts';

export interface PointM {
  xM: number;
  yM: number;
}

export interface NavigationFieldOptions {
  cellM: number;
  /** Cells whose centre is nearer than this to a solid are impassable: the robot's radius and a margin. */
  blockedWithinM: number;
  /** Cells whose centre is within this of the goal's centre are the destination (cost 0). */
  goalWithinM: number;
  /** Passing nearer than this to a solid costs extra, so paths keep to the middle of gaps. */
  preferredClearanceM: number;
  /** How much extra: a step at zero clearance costs (1 + this) times its length. 0 gives pure distance. */
  clearancePenalty: number;
}

/** How far around a blocked point to look for a free cell to start from. */
const ESCAPE_SEARCH_M = 0.4;

export class NavigationField {
  private readonly cellsPerSide: number;
  private readonly originM: number;
  private readonly blocked: Uint8Array;
  private readonly costToGo: Float64Array;
  private readonly moveTargets = new Int32Array(8);
  private readonly moveLengthsCells = new Float64Array(8);

  constructor(
    arenaSizeM: number,
    footprints: Footprints,
    private readonly goal: Circle,
    private readonly options: NavigationFieldOptions,
  ) {
    this.cellsPerSide = Math.ceil(arenaSizeM / options.cellM);
    this.originM = -(this.cellsPerSide * options.cellM) / 2;
    const cellCount = this.cellsPerSide * this.cellsPerSide;
    const stepCostFactor = new Float64Array(cellCount);
    this.blocked = new Uint8Array(cellCount);
    for (let index = 0; index < cellCount; index++) {
      const { xM, yM } = this.centreOf(index);
      const clearance = clearanceM(footprints, xM, yM);
      if (clearance < options.blockedWithinM) {
        this.blocked[index] = 1;
        stepCostFactor[index] = Infinity;
      } else {
        const shortfall = Math.max(0, options.preferredClearanceM - clearance) / Math.max(options.preferredClearanceM, 1e-9);
        stepCostFactor[index] = 1 + options.clearancePenalty * shortfall * shortfall;
      }
    }
    this.costToGo = this.solve(stepCostFactor);
  }

  /** The cost (metres, plus clearance penalties) of the best path from a point to the goal; Infinity if none. */
  costToGoM(xM: number, yM: number): number {
    return this.entryCell(xM, yM)?.costM ?? Infinity;
  }

  /** The best path from a point: cell centres downhill, ending at the goal's centre; at most maxLengthM long. */
  pathFrom(xM: number, yM: number, maxLengthM: number): PointM[] {
    const entry = this.entryCell(xM, yM);
    if (entry === undefined) return [];
    const path: PointM[] = [];
    let index = entry.index;
    let lengthM = 0;
    let previous: PointM = { xM, yM };
    while (lengthM <= maxLengthM) {
      const centre = this.centreOf(index);
      lengthM += Math.hypot(centre.xM - previous.xM, centre.yM - previous.yM);
      path.push(centre);
      previous = centre;
      if (this.costToGo[index] === 0) {
        path.push({ xM: this.goal.xM, yM: this.goal.yM });
        break;
      }
      const next = this.lowestNeighbour(index);
      if (next === undefined) break;
      index = next;
    }
    return path;
  }

  /** The free cell a point leaves through, and the cost to go from the point through it. */
  private entryCell(xM: number, yM: number): { index: number; costM: number } | undefined {
    const { cellM } = this.options;
    // The four cells whose centres surround the point first; further out only for a point in a blocked area.
    for (const reachCells of [0, Math.ceil(ESCAPE_SEARCH_M / cellM)]) {
      const column = Math.floor((xM - this.originM) / cellM - 0.5);
      const row = Math.floor((yM - this.originM) / cellM - 0.5);
      let best: { index: number; costM: number } | undefined;
      for (let r = row - reachCells; r <= row + 1 + reachCells; r++) {
        for (let c = column - reachCells; c <= column + 1 + reachCells; c++) {
          if (r < 0 || c < 0 || r >= this.cellsPerSide || c >= this.cellsPerSide) continue;
          const index = r * this.cellsPerSide + c;
          const cost = this.costToGo[index] ?? Infinity;
          if (cost === Infinity) continue;
          const centre = this.centreOf(index);
          const costM = cost + Math.hypot(centre.xM - xM, centre.yM - yM);
          if (best === undefined || costM < best.costM) best = { index, costM };
        }
      }
      if (best !== undefined) return best;
    }
    return undefined;
  }

  private lowestNeighbour(index: number): number | undefined {
    let best: number | undefined;
    let bestCost = this.costToGo[index] ?? Infinity;
    const count = this.collectMoves(index);
    for (let move = 0; move < count; move++) {
      const neighbour = this.moveTargets[move] ?? index;
      const cost = this.costToGo[neighbour] ?? Infinity;
      if (cost < bestCost) {
        bestCost = cost;
        best = neighbour;
      }
    }
    return best;
  }

  private solve(stepCostFactor: Float64Array): Float64Array {
    const { cellM, goalWithinM } = this.options;
    const costToGo = new Float64Array(stepCostFactor.length).fill(Infinity);
    const frontier = new CellHeap();
    for (let index = 0; index < costToGo.length; index++) {
      const { xM, yM } = this.centreOf(index);
      if (!this.isFree(index) || Math.hypot(xM - this.goal.xM, yM - this.goal.yM) > goalWithinM) continue;
      costToGo[index] = 0;
      frontier.push(index, 0);
    }
    for (let popped = frontier.pop(); popped !== undefined; popped = frontier.pop()) {
      const { index, cost } = popped;
      if (cost > (costToGo[index] ?? Infinity)) continue;
      const count = this.collectMoves(index);
      for (let move = 0; move < count; move++) {
        const neighbour = this.moveTargets[move] ?? index;
        // A move costs its length times the mean of the two cells' factors.
        const factor = ((stepCostFactor[index] ?? 1) + (stepCostFactor[neighbour] ?? 1)) / 2;
        const candidate = cost + (this.moveLengthsCells[move] ?? 1) * cellM * factor;
        if (candidate < (costToGo[neighbour] ?? Infinity)) {
          costToGo[neighbour] = candidate;
          frontier.push(neighbour, candidate);
        }
      }
    }
    return costToGo;
  }

  /**
   * Puts the neighbours reachable from a cell in one move into moveTargets (and the moves' lengths
   * into moveLengthsCells) and returns how many there are. Diagonals may not cut a blocked corner.
   * Scratch arrays rather than a callback: Dijkstra calls this for every cell of the grid.
   */
  private collectMoves(index: number): number {
    const row = Math.floor(index / this.cellsPerSide);
    const column = index - row * this.cellsPerSide;
    let count = 0;
    for (let dr = -1; dr <= 1; dr++) {
      for (let dc = -1; dc <= 1; dc++) {
        if ((dr === 0 && dc === 0) || !this.isFreeAt(row + dr, column + dc)) continue;
        const diagonal = dr !== 0 && dc !== 0;
        if (diagonal && !(this.isFreeAt(row + dr, column) && this.isFreeAt(row, column + dc))) continue;
        this.moveTargets[count] = (row + dr) * this.cellsPerSide + column + dc;
        this.moveLengthsCells[count] = diagonal ? Math.SQRT2 : 1;
        count++;
      }
    }
    return count;
  }

  private isFreeAt(row: number, column: number): boolean {
    return row >= 0 && column >= 0 && row < this.cellsPerSide && column < this.cellsPerSide && this.isFree(row * this.cellsPerSide + column);
  }

  private isFree(index: number): boolean {
    return this.blocked[index] === 0;
  }

  private centreOf(index: number): PointM {
    const row = Math.floor(index / this.cellsPerSide);
    const column = index - row * this.cellsPerSide;
    return {
      xM: this.originM + (column + 0.5) * this.options.cellM,
      yM: this.originM + (row + 0.5) * this.options.cellM,
    };
  }
}

/** A binary min-heap of cells by cost; stale entries are skipped by the caller (lazy deletion). */
class CellHeap {
  private readonly indices: number[] = [];
  private readonly costs: number[] = [];

  push(index: number, cost: number): void {
    let child = this.indices.length;
    this.indices.push(index);
    this.costs.push(cost);
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if ((this.costs[parent] ?? 0) <= cost) break;
      this.move(parent, child);
      child = parent;
    }
    this.indices[child] = index;
    this.costs[child] = cost;
  }

  pop(): { index: number; cost: number } | undefined {
    const top = this.indices[0];
    const topCost = this.costs[0];
    if (top === undefined || topCost === undefined) return undefined;
    const lastIndex = this.indices.pop() ?? 0;
    const lastCost = this.costs.pop() ?? 0;
    const size = this.indices.length;
    if (size > 0) {
      let parent = 0;
      for (;;) {
        let child = 2 * parent + 1;
        if (child >= size) break;
        if (child + 1 < size && (this.costs[child + 1] ?? 0) < (this.costs[child] ?? 0)) child++;
        if ((this.costs[child] ?? 0) >= lastCost) break;
        this.move(child, parent);
        parent = child;
      }
      this.indices[parent] = lastIndex;
      this.costs[parent] = lastCost;
    }
    return { index: top, cost: topCost };
  }

  private move(from: number, to: number): void {
    this.indices[to] = this.indices[from] ?? 0;
    this.costs[to] = this.costs[from] ?? 0;
  }
}
