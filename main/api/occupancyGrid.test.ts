import { describe, expect, it } from 'vitest';
import { thinOccupancyGrid } from './occupancyGrid.ts';

describe('thinning a map', () => {
  it('max-pools blocks, the partial ones at the far edges included', () => {
    // 5 × 4 cells, at most 2 a side: blocks of 3 × 3, so 2 × 2 thinned cells (the right and top ones partial).
    // prettier-ignore
    const cells = Int8Array.from([
      -1, -1, -1,   -1, -1,
      -1,  0, -1,   -1, -1,
      -1, -1, -1,   -1, 30,
      100, -1, -1,  -1, -1,
    ]);
    const thinned = thinOccupancyGrid(cells, 5, 4, 2);
    expect(thinned).toMatchObject({ width: 2, height: 2, factor: 3 });
    expect([...thinned.cells]).toEqual([0, 30, 100, -1]);
  });

  it('leaves a grid that fits as it is', () => {
    const cells = Int8Array.from([0, 100, -1, 50]);
    expect(thinOccupancyGrid(cells, 2, 2, 2)).toEqual({ width: 2, height: 2, factor: 1, cells });
  });
});
