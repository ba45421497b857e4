import { describe, expect, it } from 'vitest';
import { OpenLoopErrorTally } from './openLoopError.ts';

/** Embeddings of size 2 moving in a straight line: tick t is (t, 2t). */
function line(ticks: number): Float32Array {
  return Float32Array.from({ length: ticks * 2 }, (_, i) => (i % 2 === 0 ? 1 : 2) * Math.floor(i / 2));
}

/** What the world truly does from lastSeenTick on, h ticks ahead. */
function truth(actual: Float32Array, lastSeenTick: number, horizons: number): Float32Array {
  return actual.slice((lastSeenTick + 1) * 2, (lastSeenTick + 1 + horizons) * 2);
}

describe('OpenLoopErrorTally', () => {
  it('gives a perfect model a ratio of 0 and holding the last embedding a ratio of 1', () => {
    const actual = line(20);
    const perfect = new OpenLoopErrorTally(2, 3);
    const lazy = new OpenLoopErrorTally(2, 3);
    for (const start of [0, 5, 16]) {
      perfect.add(actual, start, truth(actual, start, 3));
      lazy.add(
        actual,
        start,
        Float32Array.from({ length: 6 }, (_, i) => actual[start * 2 + (i % 2)]!),
      );
    }
    expect(perfect.summary().ratio).toBe(0);
    expect(lazy.summary().ratio).toBe(1);
  });

  it('measures the hold-last baseline per horizon: h ticks behind on the line is (h² + 4h²) / 2', () => {
    const actual = line(12);
    const tally = new OpenLoopErrorTally(2, 3);
    tally.add(actual, 2, truth(actual, 2, 3));
    const { perHorizon } = tally.summary();
    expect(perHorizon.map((h) => h.holdLastMse)).toEqual([2.5, 10, 22.5]);
    expect(perHorizon.map((h) => h.modelMse)).toEqual([0, 0, 0]);
  });

  it('sums errors over horizons before dividing, and averages each horizon over its windows', () => {
    const actual = line(12);
    const tally = new OpenLoopErrorTally(2, 2);
    // Off by 1 in every element at every horizon: model MSE 1 at both horizons.
    const offByOne = (start: number) => truth(actual, start, 2).map((v) => v + 1);
    tally.add(actual, 0, offByOne(0));
    tally.add(actual, 4, offByOne(4));
    const summary = tally.summary();
    expect(summary.perHorizon.map((h) => [h.modelMse, h.holdLastMse, h.windows])).toEqual([
      [1, 2.5, 2],
      [1, 10, 2],
    ]);
    expect(summary.perHorizon[0]!.ratio).toBeCloseTo(0.4, 12);
    expect(summary.ratio).toBeCloseTo(2 / 12.5, 12);
  });

  it('counts shorter windows only at the horizons they reach', () => {
    const actual = line(12);
    const tally = new OpenLoopErrorTally(2, 2);
    tally.add(actual, 0, truth(actual, 0, 2));
    tally.add(actual, 10, truth(actual, 10, 1));
    expect(tally.summary().perHorizon.map((h) => h.windows)).toEqual([2, 1]);
  });

  it('refuses windows that do not fit, and a summary with an empty horizon', () => {
    const actual = line(5);
    const tally = new OpenLoopErrorTally(2, 2);
    expect(() => tally.add(actual, 3, new Float32Array(4))).toThrow(/does not fit in 5 ticks/);
    expect(() => tally.add(actual, 0, new Float32Array(6))).toThrow(/past the horizon/);
    expect(() => tally.add(actual, 0, new Float32Array(3))).toThrow(/whole number/);
    tally.add(actual, 0, truth(actual, 0, 1));
    expect(() => tally.summary()).toThrow(/no window reached 2 ticks ahead/);
  });
});
