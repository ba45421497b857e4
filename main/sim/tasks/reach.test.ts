import { describe, it, expect } from 'vitest';
import { GOAL_COLOUR, WALL_COLOUR, type Solids } from '../arena.ts';
import type { Pose2D } from '../geometry.ts';
import { DEFAULT_REACH_OPTIONS, ReachTask } from './reach.ts';

const GOAL = { xM: 2, yM: 0, radiusM: 0.15, heightM: 1, colour: GOAL_COLOUR };
const START: Pose2D = { xM: -2, yM: 0, yawRad: 0 };
/** Robot rim 0.25 m from the goal's surface: centre 0.15 + 0.175 + 0.25 from the goal's centre. */
const SUCCESS_CENTRE_DISTANCE_M = 0.575;

/** A 6 m arena with nothing in it but the goal, or with a 2 m wall across the straight line to it. */
function task(withWall: boolean): ReachTask {
  const wall = { minXM: -0.1, minYM: -1, maxXM: 0.1, maxYM: 1, heightM: 0.5, colour: WALL_COLOUR };
  const solids: Solids = { boxes: withWall ? [wall] : [], pillars: [GOAL] };
  return new ReachTask(6, solids, GOAL, START, DEFAULT_REACH_OPTIONS);
}

const at = (xM: number, yM: number): Pose2D => ({ xM, yM, yawRad: 0 });

describe('reach', () => {
  it('succeeds once the robot’s rim is within 0.25 m of the goal’s surface, and not before', () => {
    const reach = task(false);
    expect(reach.judge({ elapsedSecs: 5, pose: at(2 - SUCCESS_CENTRE_DISTANCE_M - 0.01, 0), contact: false }).status).toBe('running');
    expect(reach.judge({ elapsedSecs: 5, pose: at(2 - SUCCESS_CENTRE_DISTANCE_M + 0.01, 0), contact: false })).toEqual({
      status: 'succeeded',
      reason: 'reached-goal',
      progress: 1,
    });
  });

  it('fails on a collision and on timeout', () => {
    const reach = task(false);
    expect(reach.judge({ elapsedSecs: 2, pose: at(-1, 0), contact: true })).toMatchObject({ status: 'failed', reason: 'collision' });
    expect(reach.judge({ elapsedSecs: 29.9, pose: at(-1, 0), contact: false }).status).toBe('running');
    expect(reach.judge({ elapsedSecs: 30, pose: at(-1, 0), contact: false })).toMatchObject({ status: 'failed', reason: 'timeout' });
  });

  it('measures progress along the planned path, from 0 at the start toward 1 at the goal', () => {
    const open = task(false);
    const progressAt = (reach: ReachTask, xM: number, yM: number): number => reach.judge({ elapsedSecs: 1, pose: at(xM, yM), contact: false }).progress;
    expect(progressAt(open, -2, 0)).toBe(0);
    const halfway = progressAt(open, (-2 + 2 - SUCCESS_CENTRE_DISTANCE_M) / 2, 0);
    expect(halfway).toBeGreaterThan(0.45);
    expect(halfway).toBeLessThan(0.55);
    expect(progressAt(open, -2.5, 0), 'backing away is no progress').toBe(0);

    // With a wall across the straight line, walking up to the wall is little progress, and going round it is more.
    const walled = task(true);
    expect(progressAt(walled, -0.4, 0)).toBeLessThan(halfway - 0.1);
    expect(progressAt(walled, 0, 1.4)).toBeGreaterThan(progressAt(walled, -0.4, 0) + 0.1);
    for (let xM = -2; xM <= 1; xM += 0.25) {
      expect(progressAt(walled, xM, 1.4)).toBeGreaterThanOrEqual(progressAt(walled, xM - 0.25, 1.4));
    }
  });

  it('rejects a time limit that is not positive', () => {
    expect(() => new ReachTask(6, { boxes: [], pillars: [GOAL] }, GOAL, START, { ...DEFAULT_REACH_OPTIONS, timeLimitSecs: 0 })).toThrow(RangeError);
  });
});
