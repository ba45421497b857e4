import { describe, it, expect } from 'vitest';
import { WALL_COLOUR, type Solids } from '../arena.ts';
import type { Pose2D } from '../geometry.ts';
import { DEFAULT_DOCK_OPTIONS, DOCK_APPROACH_RADIUS_M, DockTask } from './dock.ts';
import type { TaskStep, TaskVerdict } from './task.ts';

/** A 6 m arena with one wall inside it, its face at x = 2.5; the dock pose faces it from 0.27 m out. */
const WALL = { minXM: 2.5, minYM: -1, maxXM: 2.7, maxYM: 1, heightM: 0.5, colour: WALL_COLOUR };
const SOLIDS: Solids = { boxes: [WALL], pillars: [] };
const DOCK: Pose2D = { xM: 2.23, yM: 0, yawRad: 0 };
const START: Pose2D = { xM: -2, yM: 0, yawRad: Math.PI };
const DEGREE = Math.PI / 180;

const dockTask = (): DockTask => new DockTask(6, SOLIDS, DOCK, START, DEFAULT_DOCK_OPTIONS);

/** Judges the same pose and speed every 10 ms from `fromSecs` for `forSecs`; returns the last verdict and when the episode ended. */
function hold(task: DockTask, pose: Pose2D, speedMps: number, fromSecs: number, forSecs: number, contact = false): { last: TaskVerdict; endedSecs?: number } {
  let last: TaskVerdict = { status: 'running', reason: undefined, progress: 0 };
  for (let step = 0; step * 0.01 <= forSecs + 1e-9; step++) {
    const elapsedSecs = fromSecs + step * 0.01;
    last = task.judge({ elapsedSecs, pose, contact, speedMps });
    if (last.status !== 'running') return { last, endedSecs: elapsedSecs };
  }
  return { last };
}

const near = (dxM: number, dyM: number, headingDeg: number): Pose2D => ({ xM: DOCK.xM + dxM, yM: DOCK.yM + dyM, yawRad: headingDeg * DEGREE });

describe('dock', () => {
  it('succeeds once the robot has rested for 0.5 s within 5 cm and 10° of the marked pose', () => {
    const task = dockTask();
    const { last, endedSecs } = hold(task, near(-0.03, 0.03, 8), 0.01, 10, 2);
    expect(last).toEqual({ status: 'succeeded', reason: 'docked', progress: 1 });
    expect(endedSecs).toBeCloseTo(10.5, 6);
  });

  it.each([
    ['too far from the pose', near(-0.06, 0, 0), 0],
    ['too far to the side', near(0, 0.051, 0), 0],
    ['at the wrong angle', near(0, 0, 11), 0],
    ['still moving', near(0, 0, 0), 0.025],
    ['without a speed to judge', near(0, 0, 0), undefined],
  ])('does not dock %s', (_case, pose, speedMps) => {
    const task = dockTask();
    for (let step = 0; step < 300; step++) {
      const judged: TaskStep = { elapsedSecs: 10 + step * 0.01, pose, contact: false, ...(speedMps === undefined ? {} : { speedMps }) };
      expect(task.judge(judged).status).toBe('running');
    }
  });

  it('starts the half second again whenever the robot moves', () => {
    const task = dockTask();
    const pose = near(0, 0, 0);
    expect(hold(task, pose, 0, 10, 0.4).last.status).toBe('running');
    expect(task.judge({ elapsedSecs: 10.41, pose, contact: false, speedMps: 0.05 }).status).toBe('running');
    const { endedSecs } = hold(task, pose, 0, 10.42, 1);
    expect(endedSecs).toBeCloseTo(10.92, 6);
  });

  it('fails on touching anything, even at the marked pose, and on timeout at 60 s', () => {
    expect(hold(dockTask(), near(0, 0, 0), 0, 10, 0.2, true).last).toMatchObject({ status: 'failed', reason: 'collision' });
    const task = dockTask();
    expect(task.judge({ elapsedSecs: 59.9, pose: START, contact: false, speedMps: 0 }).status).toBe('running');
    expect(task.judge({ elapsedSecs: 60, pose: START, contact: false, speedMps: 0 })).toMatchObject({ status: 'failed', reason: 'timeout' });
  });

  it('measures progress along the path to the dock, then by how close the pose is to the marked one', () => {
    const task = dockTask();
    const progressAt = (pose: Pose2D): number => task.judge({ elapsedSecs: 1, pose, contact: false, speedMps: 0.3 }).progress;
    expect(progressAt(START)).toBe(0);
    const halfway = progressAt({ xM: (START.xM + DOCK.xM - DOCK_APPROACH_RADIUS_M) / 2, yM: 0, yawRad: 0 });
    expect(halfway).toBeGreaterThan(0.35);
    expect(halfway).toBeLessThan(0.45);
    const entering = progressAt(near(-DOCK_APPROACH_RADIUS_M - 0.01, 0, 0));
    expect(entering).toBeGreaterThan(0.78);
    expect(entering).toBeLessThanOrEqual(0.8);
    expect(progressAt(near(-0.1, 0, 0))).toBeGreaterThan(progressAt(near(-0.2, 0, 0)));
    expect(progressAt(near(-0.1, 0, 0)), 'facing the marker counts').toBeGreaterThan(progressAt(near(-0.1, 0, 90)));
    expect(progressAt(near(0, 0, 0)), 'only coming to rest makes it 1').toBeLessThan(1);
  });

  it('rejects a tolerance that is not positive', () => {
    expect(() => new DockTask(6, SOLIDS, DOCK, START, { ...DEFAULT_DOCK_OPTIONS, positionToleranceM: 0 })).toThrow(RangeError);
  });
});
