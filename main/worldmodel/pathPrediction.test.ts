import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../core/util/seededRandom.ts';
import { integratePath, VelocityReadout } from './pathPrediction.ts';

const E = 12;
const SLOT = { offset: 4, size: 5 };

/** An embedding whose proprioception slot mixes the velocity linearly, with a little noise; the rest is noise. */
function embeddingOf(linearMps: number, angularRadps: number, random: () => number): Float32Array {
  const e = new Float32Array(E).map(() => random() - 0.5);
  const mix = [
    [0.8, 0.1],
    [-0.3, 0.9],
    [0.5, 0.5],
    [0.0, -0.7],
    [1.2, 0.2],
  ];
  mix.forEach(([a, b], i) => {
    e[SLOT.offset + i] = a! * linearMps + b! * angularRadps + 0.3 + 0.001 * (random() - 0.5);
  });
  return e;
}

describe('VelocityReadout', () => {
  it('learns to read speed and turn rate from the proprioception slot, scored on held-out ticks', () => {
    const seeded = new SeededRandom(7);
    const random = () => seeded.next();
    const readout = new VelocityReadout({ ...SLOT, minSamples: 100, refitEvery: 50 });
    expect(readout.read(new Float32Array(E))).toBeUndefined();
    for (let i = 0; i < 400; i++) {
      const v = random() - 0.2;
      const w = 2 * random() - 1;
      readout.observe(embeddingOf(v, w, random), { linearMps: v, angularRadps: w });
    }
    expect(readout.fitQuality()!.linear).toBeGreaterThan(0.99);
    expect(readout.fitQuality()!.angular).toBeGreaterThan(0.99);
    const read = readout.read(embeddingOf(0.4, -0.3, random))!;
    expect(read.linearMps).toBeCloseTo(0.4, 2);
    expect(read.angularRadps).toBeCloseTo(-0.3, 2);
  });

  it('ignores ticks with non-finite values and reports a poor fit when the slot says nothing of speed', () => {
    const seeded = new SeededRandom(3);
    const random = () => seeded.next();
    const readout = new VelocityReadout({ ...SLOT, minSamples: 100, refitEvery: 50 });
    readout.observe(new Float32Array(E).fill(Number.NaN), { linearMps: 1, angularRadps: 0 });
    readout.observe(new Float32Array(E), { linearMps: Number.POSITIVE_INFINITY, angularRadps: 0 });
    for (let i = 0; i < 300; i++)
      readout.observe(
        new Float32Array(E).map(() => random()),
        { linearMps: random(), angularRadps: random() },
      );
    expect(readout.fitQuality()!.linear).toBeLessThan(0.2);
  });
});

describe('integratePath', () => {
  const constant = (linearMps: number, angularRadps: number) => ({ read: () => ({ linearMps, angularRadps }) });

  it('drives straight ahead along x at the read speed', () => {
    const path = integratePath(new Float32Array(20 * E), E, constant(0.5, 0), 0.1)!;
    expect(path.horizonSecs).toBeCloseTo(2);
    expect(path.pointsM).toHaveLength(21);
    expect(path.pointsM.at(-1)![0]).toBeCloseTo(1.0, 6);
    expect(path.pointsM.at(-1)![1]).toBeCloseTo(0, 6);
  });

  it('turns left on a circle of radius v / ω for a positive turn rate', () => {
    const path = integratePath(new Float32Array(40 * E), E, constant(0.5, 1), 0.1)!;
    // Every point lies on the circle centred at (0, 0.5) through the robot.
    for (const [x, y] of path.pointsM) expect(Math.hypot(x, y - 0.5)).toBeCloseTo(0.5, 2);
    expect(path.pointsM[5]![1]).toBeGreaterThan(0);
  });

  it('gives no path when the readout gives nothing or nonsense', () => {
    expect(integratePath(new Float32Array(3 * E), E, { read: () => undefined }, 0.1)).toBeUndefined();
    expect(integratePath(new Float32Array(3 * E), E, constant(Number.NaN, 0), 0.1)).toBeUndefined();
  });
});
