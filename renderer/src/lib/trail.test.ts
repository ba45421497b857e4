import { describe, expect, it } from 'vitest';
import { PoseTrail, trailInRobotFrame } from './trail.ts';

describe('PoseTrail', () => {
  it('keeps at most maxPoints, dropping the oldest', () => {
    const trail = new PoseTrail(60_000, 5);
    for (let i = 0; i < 12; i++) trail.record({ xM: i, yM: 0 }, i * 100);
    expect(trail.length).toBe(5);
    expect(trail.points(1100).map((point) => point.xM)).toEqual([7, 8, 9, 10, 11]);
  });

  it('drops points older than the window', () => {
    const trail = new PoseTrail(20_000, 400);
    trail.record({ xM: 0, yM: 0 }, 0);
    trail.record({ xM: 1, yM: 0 }, 10_000);
    trail.record({ xM: 2, yM: 0 }, 15_000);
    expect(trail.points(25_000).map((point) => point.xM)).toEqual([1, 2]);
    expect(trail.points(40_000)).toEqual([]);
  });

  it('skips poses where the robot has barely moved, so a parked robot keeps its trail', () => {
    const trail = new PoseTrail();
    trail.record({ xM: 0, yM: 0 }, 0);
    trail.record({ xM: 0.001, yM: 0 }, 100);
    trail.record({ xM: 0.5, yM: 0 }, 200);
    expect(trail.length).toBe(2);
  });
});

describe('trailInRobotFrame', () => {
  it('puts a point the robot has passed behind it', () => {
    // The robot drove from the origin along odom +x and now stands at (2, 0) facing +x.
    const points = trailInRobotFrame([{ xM: 0, yM: 0 }], { xM: 2, yM: 0, yawRad: 0 });
    expect(points[0]).toBeCloseTo(-2);
    expect(points[1]).toBeCloseTo(0);
  });

  it('rotates by the robot heading', () => {
    // Facing odom +y (yaw 90°): a point at odom +x of the robot lies on its right (negative y).
    const points = trailInRobotFrame(
      [
        { xM: 2, yM: 1 },
        { xM: 1, yM: 2 },
      ],
      { xM: 1, yM: 1, yawRad: Math.PI / 2 },
    );
    expect(points[0]).toBeCloseTo(0);
    expect(points[1]).toBeCloseTo(-1);
    expect(points[2]).toBeCloseTo(1);
    expect(points[3]).toBeCloseTo(0);
  });
});
