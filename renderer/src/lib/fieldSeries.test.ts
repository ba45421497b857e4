import { describe, expect, it } from 'vitest';
import { FIELD_PLOT_MAX_SAMPLES, LiveFieldSeries, arraySource, binnedColumns, seriesCsv } from './fieldSeries.ts';

function frame(generation: number, index: number, timesMs: number[], values: number[]) {
  return { kind: 'plot' as const, generation, series: [{ index, timesMs: new Float64Array(timesMs), values: new Float64Array(values) }] };
}

describe('live field series', () => {
  it('keeps the samples of the request the core answered last, and drops older frames', () => {
    const live = new LiveFieldSeries(10_000);
    live.reset(2, ['/a', '/b']);
    live.add(frame(1, 0, [1000], [5]), 1000);
    live.add(frame(2, 1, [1000, 1010], [0.1, 0.2]), 1010);
    expect(live.series[0]!.length).toBe(0);
    expect([live.series[1]!.value(0), live.series[1]!.value(1)]).toEqual([0.1, 0.2]);
  });

  it('keeps the samples of a path still plotted when the list changes, found by its path', () => {
    const live = new LiveFieldSeries(10_000);
    live.reset(1, ['/a', '/b']);
    live.add(frame(1, 0, [1000, 1010], [1, 2]), 1010);
    live.add(frame(1, 1, [1000], [7]), 1010);
    live.reset(2, ['/b', '/c']);
    expect(live.seriesFor('/a')).toBeUndefined();
    expect(live.seriesFor('/b')!.length).toBe(1);
    expect(live.seriesFor('/c')!.length).toBe(0);
    // The new request's frames index its own order; the sample sent again after the change is stored once.
    live.add(frame(2, 0, [1000, 1020], [7, 8]), 1020);
    expect([live.seriesFor('/b')!.value(0), live.seriesFor('/b')!.value(1), live.seriesFor('/b')!.length]).toEqual([7, 8, 2]);
    expect(live.series.map((series) => series.length)).toEqual([2, 0]);
    // A frame of the old request is dropped.
    live.add(frame(1, 1, [1030], [9]), 1030);
    expect(live.seriesFor('/c')!.length).toBe(0);
  });

  it('forgets samples older than its window and never holds more than its cap', () => {
    const live = new LiveFieldSeries(1000);
    live.reset(1, ['/a']);
    live.add(frame(1, 0, [0, 500, 1500], [1, 2, 3]), 1400);
    expect(live.series[0]!.length).toBe(2);
    expect(live.series[0]!.timeMs(0)).toBe(500);
    const many = Array.from({ length: FIELD_PLOT_MAX_SAMPLES + 50 }, (_, i) => 2000 + i * 0.01);
    live.add(frame(1, 0, many, many), 2000);
    expect(live.series[0]!.length).toBe(FIELD_PLOT_MAX_SAMPLES);
    expect(live.series[0]!.timeMs(FIELD_PLOT_MAX_SAMPLES - 1)).toBe(many.at(-1));
  });
});

describe('binned columns', () => {
  it('puts each series’ last sample of a bin in that bin, and null where a bin has none', () => {
    const series = arraySource([0, 100, 150, 900], [1, 2, 3, 4]);
    expect(binnedColumns([series], 0, 1000, 4, 1000)).toEqual([
      [-0.875, -0.625, -0.375, -0.125],
      [3, null, null, 4],
    ]);
  });
});

describe('binned live series', () => {
  it('bins a ring the same as the same samples given as arrays', () => {
    const live = new LiveFieldSeries(10_000);
    live.reset(1, ['/a']);
    const times = Array.from({ length: 500 }, (_, i) => 1000 + i * 10);
    const values = times.map((time) => Math.sin(time / 300));
    live.add(frame(1, 0, times, values), 6000);
    expect(binnedColumns(live.series, 2000, 6000, 37, 6000)).toEqual(binnedColumns([arraySource(times, values)], 2000, 6000, 37, 6000));
  });
});

describe('CSV export', () => {
  it('writes time then one column per series, a row per distinct time', () => {
    const a = arraySource([1000, 2000], [0.5, 1]);
    const b = arraySource([1000, 1500], [7, null]);
    expect(seriesCsv(['/odom.twist.twist.linear.x', '/joint_states.velocity[1]'], [a, b])).toBe(
      'time,/odom.twist.twist.linear.x,/joint_states.velocity[1]\n1.000,0.5,7\n1.500,,\n2.000,1,\n',
    );
  });
});
