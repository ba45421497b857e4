import { describe, expect, it } from 'vitest';
import { fitLinearProbes, predict, rSquared } from './linearProbe.ts';

function rows(count: number, size: number, seed: number): Float32Array[] {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
  return Array.from({ length: count }, () => Float32Array.from({ length: size }, next));
}

describe('linear probes', () => {
  it('recover a linear relation on data they were not fitted on', () => {
    const weights = [2, -1, 0.5, 0, 3];
    const target = (row: Float32Array) => 1.5 + weights.reduce((sum, w, i) => sum + w * row[i]!, 0);
    const fit = rows(400, 5, 1);
    const score = rows(200, 5, 2);
    const [probe] = fitLinearProbes(fit, [fit.map(target)], 1e-6);
    expect(rSquared(probe!, score, score.map(target))).toBeGreaterThan(0.9999);
    expect(predict(probe!, score[0]!)).toBeCloseTo(target(score[0]!), 3);
  });

  it('score near zero on a target the features know nothing about', () => {
    const fit = rows(400, 5, 3);
    const score = rows(400, 5, 4);
    const noise = rows(800, 1, 5).map((r) => r[0]!);
    const [probe] = fitLinearProbes(fit, [noise.slice(0, 400)]);
    expect(rSquared(probe!, score, noise.slice(400))).toBeLessThan(0.05);
  });

  it('cope with a constant feature, and refuse mismatched targets', () => {
    const fit = rows(100, 3, 6).map((r) => Float32Array.of(r[0]!, 7, r[2]!));
    const [probe] = fitLinearProbes(fit, [fit.map((r) => r[0]! * 2)]);
    expect(
      rSquared(
        probe!,
        fit,
        fit.map((r) => r[0]! * 2),
      ),
    ).toBeGreaterThan(0.999);
    expect(() => fitLinearProbes(fit, [[1, 2]])).toThrow(/one value per sample/);
    expect(() => fitLinearProbes([], [[]])).toThrow(/no samples/);
  });
});
