import { describe, it, expect } from 'vitest';
import type { LaserScan } from '../core/messages.ts';
import { GOAL_COLOUR } from './arena.ts';
import type { Pose2D } from './geometry.ts';
import { SimRobot } from './simRobot.ts';

/** Scans taken over `durationSecs` by a robot standing at `pose` in an empty square arena. */
function scansFrom(pose: Pose2D, sizeM: number, durationSecs: number): LaserScan[] {
  const robot = new SimRobot({ arenaSeed: 2, episodeSeed: 2, arena: { sizeM, obstacleCount: 0 } });
  robot.startEpisode({ startPose: pose, goal: { xM: 0, yM: 2, radiusM: 0.15, heightM: 1, colour: GOAL_COLOUR } });
  const scans: LaserScan[] = [];
  robot.step(durationSecs, {
    wants: (stream) => stream === 'scan',
    receive: (output) => {
      if (output.stream === 'scan') scans.push(output.msg);
    },
  });
  return scans;
}

/** Median of one beam over several scans, so one dropout does not decide a geometry check. */
function medianRangeM(scans: readonly LaserScan[], beam: number): number {
  const ranges = scans.map((scan) => scan.rangesM[beam] ?? Number.NaN).filter((range) => !Number.isNaN(range));
  ranges.sort((a, b) => a - b);
  return ranges[Math.floor(ranges.length / 2)] ?? Number.NaN;
}

describe('LiDAR', () => {
  it('measures the distances to the walls and the goal pillar around it', () => {
    const scans = scansFrom({ xM: 1, yM: -1, yawRad: 0 }, 10, 0.5);
    const [first] = scans;
    expect(first?.rangesM).toHaveLength(360);
    expect(first?.angleMinRad).toBe(-Math.PI);
    expect(first?.angleIncrementRad).toBeCloseTo((2 * Math.PI) / 360, 12);
    // Beam i points at angleMin + i·increment in the robot frame: 180 ahead, 270 to the left.
    expect(medianRangeM(scans, 180), 'east wall ahead').toBeCloseTo(4, 1);
    expect(medianRangeM(scans, 270), 'north wall to the left').toBeCloseTo(6, 1);
    expect(medianRangeM(scans, 0), 'west wall behind').toBeCloseTo(6, 1);
    expect(medianRangeM(scans, 90), 'south wall to the right').toBeCloseTo(4, 1);
    expect(medianRangeM(scans, 225), 'the east wall, 45° to the left').toBeCloseTo(4 * Math.SQRT2, 1);
    // The goal at (0, 2) is √10 m away at a bearing of 108.4°; its near face is 0.15 m closer.
    expect(Math.abs(medianRangeM(scans, 288) - (Math.sqrt(10) - 0.15))).toBeLessThan(0.03);
  });

  it('turns with the robot', () => {
    const scans = scansFrom({ xM: 1, yM: -1, yawRad: Math.PI / 2 }, 10, 0.5);
    expect(medianRangeM(scans, 180), 'north wall now ahead').toBeCloseTo(6, 1);
    expect(medianRangeM(scans, 90), 'east wall now to the right').toBeCloseTo(4, 1);
  });

  it('reports Infinity beyond its range, and noisy ranges with rare dropouts', () => {
    const farScans = scansFrom({ xM: 0, yM: -2, yawRad: 0 }, 20, 0.1);
    expect(farScans[0]?.rangesM[180], 'wall 10 m away, range 8 m').toBe(Infinity);

    const scans = scansFrom({ xM: 1, yM: -1, yawRad: 0 }, 10, 2);
    expect(scans).toHaveLength(20);
    const ahead = scans.map((scan) => scan.rangesM[180] ?? Number.NaN).filter((range) => !Number.isNaN(range));
    const meanM = ahead.reduce((sum, range) => sum + range, 0) / ahead.length;
    const sigmaM = Math.sqrt(ahead.reduce((sum, range) => sum + (range - meanM) ** 2, 0) / ahead.length);
    expect(sigmaM).toBeGreaterThan(0.004);
    expect(sigmaM).toBeLessThan(0.02);
    const dropouts = scans.reduce((count, scan) => count + scan.rangesM.filter(Number.isNaN).length, 0);
    expect(dropouts).toBeGreaterThan(0);
    expect(dropouts).toBeLessThan(0.01 * 20 * 360);
  });
});
