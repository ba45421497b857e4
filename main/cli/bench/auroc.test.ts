import { describe, expect, it } from 'vitest';
import { auroc } from './auroc.ts';

/** The definition itself: every positive against every negative, ties half. */
function pairwiseAuroc(positives: number[], negatives: number[]): number {
  let wins = 0;
  for (const p of positives) for (const n of negatives) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (positives.length * negatives.length);
}

describe('auroc', () => {
  it('is 1 when every positive outscores every negative, 0 when inverted', () => {
    expect(auroc([3, 4, 5], [0, 1, 2])).toBe(1);
    expect(auroc([0, 1, 2], [3, 4, 5])).toBe(0);
  });

  it('matches a hand-counted case', () => {
    // Pairs won by the positives: 2 beats {1}; 4 beats {1, 3}; 6 beats {1, 3, 5}: 6 of 9.
    expect(auroc([2, 4, 6], [1, 3, 5])).toBeCloseTo(6 / 9, 12);
  });

  it('counts ties as half', () => {
    expect(auroc([1, 1], [1, 1, 1])).toBe(0.5);
    expect(auroc([2, 1], [1, 0])).toBeCloseTo(pairwiseAuroc([2, 1], [1, 0]), 12);
    expect(auroc([2, 1], [1, 0])).toBeCloseTo(0.875, 12);
  });

  it('agrees with the pairwise definition on scores with many ties', () => {
    const positives = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5];
    const negatives = [2, 7, 1, 8, 2, 8, 1, 8, 2, 8];
    expect(auroc(positives, negatives)).toBeCloseTo(pairwiseAuroc(positives, negatives), 12);
  });

  it('takes typed arrays', () => {
    expect(auroc(new Float32Array([0.9, 0.8]), new Float64Array([0.1, 0.85]))).toBeCloseTo(0.75, 12);
  });

  it('refuses empty inputs and non-finite scores', () => {
    expect(() => auroc([], [1])).toThrow(RangeError);
    expect(() => auroc([1], [])).toThrow(RangeError);
    expect(() => auroc([1, Number.NaN], [0])).toThrow(/positive score 1 is NaN/);
    expect(() => auroc([1], [Number.POSITIVE_INFINITY])).toThrow(RangeError);
  });
});
