import { describe, expect, it } from 'vitest';
import { ClockOffsetEstimator } from './clockOffset.ts';

describe('ClockOffsetEstimator', () => {
  it('takes the offset from the fastest round trip in the window, give or take half of it', () => {
    const estimator = new ClockOffsetEstimator({ windowMs: 60_000, maxRoundTrips: 8 });
    // Robot 5 s ahead. A slow exchange whose answer sat in a queue, then a fast one.
    estimator.addRoundTrip({ sentMs: 1000, robotMs: 6050 + 400, receivedMs: 1500 });
    estimator.addRoundTrip({ sentMs: 2000, robotMs: 7002, receivedMs: 2004 });
    expect(estimator.estimate(3000)).toEqual({ offsetMs: 5000, uncertaintyMs: 2, source: 'round-trip', sampleCount: 2 });
    expect(estimator.toCockpitMs(7100, 3000)).toBe(2100);
  });

  it('forgets round trips older than the window and falls back to the stamp envelope', () => {
    const estimator = new ClockOffsetEstimator({ windowMs: 10_000, maxRoundTrips: 8 });
    estimator.addRoundTrip({ sentMs: 0, robotMs: 5000, receivedMs: 2 });
    // Messages stamped 3 s ahead of arrival at best (the fastest took ~0 ms): offset ≈ 3000.
    estimator.addStamp(103_000 - 40, 100_000);
    estimator.addStamp(104_000, 101_000);
    expect(estimator.estimate(101_000)).toEqual({ offsetMs: 3000, uncertaintyMs: undefined, source: 'stamp-envelope', sampleCount: 2 });
    expect(new ClockOffsetEstimator().estimate(0)).toBeUndefined();
  });

  it('lets old envelope extremes age out, so a clock step is followed', () => {
    const estimator = new ClockOffsetEstimator({ windowMs: 12_000, maxRoundTrips: 8 });
    estimator.addStamp(9000, 0);
    for (let t = 1000; t <= 30_000; t += 1000) estimator.addStamp(t + 2000, t);
    expect(estimator.estimate(30_000)?.offsetMs).toBe(2000);
  });

  it('raises a round-trip offset that stamps prove too low, within its uncertainty', () => {
    const estimator = new ClockOffsetEstimator({ windowMs: 60_000, maxRoundTrips: 8 });
    // The robot answered late in a 40 ms round trip: midpoint says −24 ms, give or take 20.
    estimator.addRoundTrip({ sentMs: 1000, robotMs: 996, receivedMs: 1040 });
    estimator.addStamp(1091, 1100);
    expect(estimator.estimate(1100)).toMatchObject({ offsetMs: -9, uncertaintyMs: 20, source: 'round-trip' });
    // A stamp far outside the round trip's bounds (a clock step, a stamp from the future) is not trusted.
    estimator.addStamp(1150, 1100);
    expect(estimator.estimate(1100)?.offsetMs).toBe(-24);
  });

  it('ignores impossible samples', () => {
    const estimator = new ClockOffsetEstimator();
    estimator.addRoundTrip({ sentMs: 10, robotMs: 5, receivedMs: 9 });
    estimator.addRoundTrip({ sentMs: 10, robotMs: Number.NaN, receivedMs: 12 });
    estimator.addStamp(Number.NaN, 10);
    expect(estimator.estimate(20)).toBeUndefined();
  });
});
