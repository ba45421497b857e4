import { describe, it, expect } from 'vitest';
import { clearanceM, type Footprints } from './arena.ts';
import { NavigationField, type NavigationFieldOptions } from './navigationField.ts';

const GOAL = { xM: 2, yM: 0, radiusM: 0.15 };
const OPTIONS: NavigationFieldOptions = { cellM: 0.05, blockedWithinM: 0.2, goalWithinM: 0.5, preferredClearanceM: 0, clearancePenalty: 0 };
/** A wall across the straight line from the west half to the goal, open above and below. */
const WALL = { minXM: -0.1, minYM: -1.5, maxXM: 0.1, maxYM: 1.5 };

describe('NavigationField', () => {
  it('gives about the straight-line distance to the goal region in the open', () => {
    const field = new NavigationField(6, { boxes: [], pillars: [GOAL] }, GOAL, OPTIONS);
    for (const [xM, yM] of [
      [-2, 0],
      [0, 2],
      [-2, -2],
      [1.4, 0],
    ] as const) {
      const straightM = Math.max(0, Math.hypot(xM - GOAL.xM, yM - GOAL.yM) - OPTIONS.goalWithinM);
      // 8-connected moves overestimate off-axis distances by up to ~8%.
      expect(field.costToGoM(xM, yM)).toBeGreaterThanOrEqual(straightM - 0.05);
      expect(field.costToGoM(xM, yM)).toBeLessThanOrEqual(straightM * 1.09 + 0.05);
    }
  });

  it('plans around a wall, keeping the robot’s radius clear of it', () => {
    const footprints: Footprints = { boxes: [WALL], pillars: [GOAL] };
    const field = new NavigationField(6, footprints, GOAL, OPTIONS);
    expect(field.costToGoM(-2, 0)).toBeGreaterThan(4 + 0.5);
    const path = field.pathFrom(-2, 0, 20);
    expect(path.at(-1)).toEqual({ xM: GOAL.xM, yM: GOAL.yM });
    for (const point of path.slice(0, -1)) expect(clearanceM(footprints, point.xM, point.yM)).toBeGreaterThanOrEqual(OPTIONS.blockedWithinM);
    expect(Math.max(...path.map((point) => Math.abs(point.yM)))).toBeGreaterThan(1.5);
  });

  it('keeps to the middle of gaps when clearance is penalised', () => {
    const footprints: Footprints = { boxes: [WALL], pillars: [GOAL] };
    const careful = new NavigationField(6, footprints, GOAL, { ...OPTIONS, preferredClearanceM: 0.6, clearancePenalty: 4 });
    const closest = (field: NavigationField): number =>
      Math.min(
        ...field
          .pathFrom(-2, 0, 20)
          .slice(0, -1)
          .map((point) => clearanceM(footprints, point.xM, point.yM)),
      );
    expect(closest(careful)).toBeGreaterThan(closest(new NavigationField(6, footprints, GOAL, OPTIONS)) + 0.1);
  });

  it('says Infinity, and offers no path, where the goal cannot be reached', () => {
    const moat = { boxes: [{ minXM: 0.5, minYM: -3, maxXM: 0.7, maxYM: 3 }], pillars: [GOAL] };
    const field = new NavigationField(6, moat, GOAL, OPTIONS);
    expect(field.costToGoM(-2, 0)).toBe(Infinity);
    expect(field.pathFrom(-2, 0, 10)).toEqual([]);
  });

  it('starts from the nearest free cell when the point itself is too close to a solid', () => {
    const field = new NavigationField(6, { boxes: [WALL], pillars: [GOAL] }, GOAL, OPTIONS);
    expect(field.costToGoM(-0.25, 1.4)).toBeLessThan(Infinity);
    expect(field.pathFrom(-0.25, 1.4, 10).length).toBeGreaterThan(0);
  });
});
