import { describe, expect, it } from 'vitest';
import { MotionSeries, motionSample } from './plotSeries.ts';

const state = (measured: number | undefined, commanded: number) => ({
  measuredSpeed: measured === undefined ? undefined : { linearMps: measured, angularRadps: measured / 2 },
  lastCommand: { linearMps: commanded, angularRadps: commanded / 2 },
});

describe('MotionSeries', () => {
  it('keeps at most maxSamples, dropping the oldest', () => {
    const series = new MotionSeries(60_000, 4);
    for (let i = 0; i < 10; i++) series.record(motionSample(state(i, i), i * 100));
    expect(series.length).toBe(4);
    expect(series.linearColumns(900)[2]).toEqual([6, 7, 8, 9]);
  });

  it('drops samples older than the window and puts x in seconds before now', () => {
    const series = new MotionSeries(30_000, 600);
    series.record(motionSample(state(0.1, 0.2), 0));
    series.record(motionSample(state(0.3, 0.4), 20_000));
    series.record(motionSample(state(0.5, 0.6), 29_000));
    const [secondsAgo, measured, commanded] = series.linearColumns(35_000);
    expect(secondsAgo).toEqual([-15, -6]);
    expect(measured).toEqual([0.3, 0.5]);
    expect(commanded).toEqual([0.4, 0.6]);
  });

  it('leaves a gap where odometry was missing, and plots turn rates apart from speeds', () => {
    const series = new MotionSeries();
    series.record(motionSample(state(undefined, 0.4), 0));
    series.record(motionSample(state(1, 0.4), 100));
    expect(series.linearColumns(100)[1]).toEqual([null, 1]);
    expect(series.angularColumns(100)[1]).toEqual([null, 0.5]);
    expect(series.angularColumns(100)[2]).toEqual([0.2, 0.2]);
  });
});
