import { describe, expect, it } from 'vitest';
import { canvasFromRobot, ringRadiiM, ringStepM, scanHitsInRobotFrame } from './lidarGeometry.ts';

describe('scanHitsInRobotFrame', () => {
  it('places beams in the robot frame and skips beams without a hit', () => {
    const points = scanHitsInRobotFrame({
      angleMinRad: 0,
      angleIncrementRad: Math.PI / 2,
      rangeMaxM: 10,
      rangesM: new Float32Array([2, Number.NaN, 10, 1]),
    });
    // Beam 0 points forward, beam 3 to the right (-90° wrapped as 270°); NaN and max-range are dropped.
    expect(points.length).toBe(4);
    expect(points[0]).toBeCloseTo(2);
    expect(points[1]).toBeCloseTo(0);
    expect(points[2]).toBeCloseTo(0);
    expect(points[3]).toBeCloseTo(-1);
  });
});

describe('canvasFromRobot', () => {
  it('draws forward as up and the robot left as canvas left', () => {
    const centre = { x: 100, y: 100 };
    expect(canvasFromRobot(1, 0, centre, 10)).toEqual({ x: 100, y: 90 });
    expect(canvasFromRobot(0, 1, centre, 10)).toEqual({ x: 90, y: 100 });
  });
});

describe('range rings', () => {
  it('picks a round spacing with at most five rings', () => {
    expect(ringStepM(3.5)).toBe(1);
    expect(ringStepM(12)).toBe(5);
    expect(ringStepM(30)).toBe(10);
    expect(ringRadiiM(4)).toEqual([1, 2, 3, 4]);
    expect(ringRadiiM(1.2)).toEqual([0.25, 0.5, 0.75, 1]);
  });
});
