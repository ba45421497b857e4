import { describe, expect, it } from 'vitest';
import { latencyRow, newFramesShownPerSec } from './uiSamples.ts';

describe('newFramesShownPerSec', () => {
  it('counts only animation frames that show a new camera stamp', () => {
    // 60 Hz paints of a 30 Hz camera over one second: every other paint shows a new frame.
    const samples = Array.from({ length: 61 }, (_, i) => ({ atMs: (i * 1000) / 60, stampMs: 5000 + Math.floor((i + 1) / 2) * 33 }));
    expect(newFramesShownPerSec(samples)).toBeCloseTo(30, 5);
  });

  it('does not count paints before the first frame, repeats, or frames without a stamp', () => {
    const samples = [
      { atMs: 0, stampMs: undefined },
      { atMs: 500, stampMs: undefined },
      { atMs: 1000, stampMs: 7 },
      { atMs: 1500, stampMs: 7 },
      { atMs: 2000, stampMs: Number.NaN },
    ];
    expect(newFramesShownPerSec(samples)).toBe(0.5);
    expect(newFramesShownPerSec(samples.slice(0, 1))).toBe(0);
  });
});

describe('latencyRow', () => {
  it('reports nearest-rank percentiles with the p95 as the value', () => {
    const samplesMs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(latencyRow('key-to-command', samplesMs)).toEqual({ name: 'key-to-command', unit: 'ms', p50: 50, p95: 95, p99: 99, value: 95 });
  });

  it('refuses to report a row with no samples', () => {
    expect(() => latencyRow('frame-time', [])).toThrow(/no samples/);
  });
});
