import { describe, expect, it } from 'vitest';
import { SURPRISE_ALARM_RATIO, UNTRAINED_VERSION } from '../core/belief.ts';
import { DIMENSION_RMS_SCALE, SurpriseRatioScorer, surpriseStatus } from './surpriseScorer.ts';

const SLOTS = [
  { name: 'camera', offset: 0, size: 6 },
  { name: 'proprio', offset: 6, size: 2 },
];

/** Errors with every camera dimension at `camera` and every proprioception dimension at `proprio`. */
const errors = (camera: number, proprio: number) => Float32Array.from([...Array(6).fill(camera), ...Array(2).fill(proprio)]);

describe('SurpriseRatioScorer', () => {
  it('measures each modality against its own usual error, so a spike in a small quiet one stands out', () => {
    const scorer = new SurpriseRatioScorer(SLOTS, { adaptTicks: 50, holdMs: 0 });
    // The camera usually misses by far more than proprioception does.
    for (let tick = 0; tick < 100; tick++) expect(scorer.score(errors(0.5, 0.01), tick * 100).tick).toBeCloseTo(1, 5);
    const shove = scorer.score(errors(0.5, 1), 10_000);
    expect(shove.slot).toBe('proprio');
    expect(shove.tick).toBeCloseTo(100, 0);
    // The same absolute error in the camera is nothing out of the ordinary.
    expect(scorer.score(errors(1, 0.01), 10_100).tick).toBeCloseTo(2, 1);
  });

  it('holds the peak for the hold time, and a rare spike barely moves the usual level', () => {
    const scorer = new SurpriseRatioScorer(SLOTS, { adaptTicks: 300, holdMs: 1000 });
    for (let tick = 0; tick < 50; tick++) scorer.score(errors(0.2, 0.02), tick * 100);
    expect(scorer.score(errors(20, 0.02), 5000).shown).toBeCloseTo(100, 0);
    expect(scorer.score(errors(0.2, 0.02), 5500).shown).toBeCloseTo(100, 0);
    const after = scorer.score(errors(0.2, 0.02), 6100);
    expect(after.shown).toBeLessThan(1.1);
    expect(() => scorer.score(new Float32Array(4), 6200)).toThrow(/beyond the 4 errors/);
  });

  it('never stops on an error that is not a number: the other slots name the surprise, and with none the tick reads NaN and the meter holds what it had', () => {
    const scorer = new SurpriseRatioScorer(SLOTS, { adaptTicks: 50, holdMs: 1000 });
    for (let tick = 0; tick < 20; tick++) scorer.score(errors(0.5, 0.01), tick * 100);
    const cameraBroken = scorer.score(errors(Number.NaN, 0.05), 2000);
    expect(cameraBroken).toMatchObject({ slot: 'proprio' });
    expect(cameraBroken.tick).toBeCloseTo(5, 5);
    const allBroken = scorer.score(errors(Number.NaN, Number.NaN), 2100);
    expect(allBroken.tick).toBeNaN();
    expect(allBroken.shown).toBeCloseTo(5, 5);
    // The usual levels were not poisoned: calm errors read as usual again.
    expect(scorer.score(errors(0.5, 0.01), 3500).tick).toBeCloseTo(1, 5);
  });
});

describe('a belief scored for the cockpit', () => {
  it('carries the shown ratio and its modality beside the belief’s own KL, error and version', () => {
    const scorer = new SurpriseRatioScorer(SLOTS, { adaptTicks: 50, holdMs: 0 });
    const belief = (errors: number[]) => ({
      latent: new Float32Array(2),
      surpriseNats: 0.8,
      predictionError: 0.3,
      dimensionErrors: Float32Array.from(errors),
      changeErrors: Float32Array.from(errors),
      version: 'wm-7',
    });
    const calm = Array.from({ length: 8 }, () => 1);
    for (let t = 0; t < 20; t++) scorer.scoreBelief(belief(calm), t * 100);
    const shoved = calm.map((value, index) => (index >= SLOTS[1]!.offset && index < SLOTS[1]!.offset + SLOTS[1]!.size ? 50 : value));
    const shown = scorer.scoreBelief(belief(shoved), 2000);
    expect(shown).toMatchObject({ modality: SLOTS[1]!.name, surpriseNats: 0.8, predictionError: 0.3, worldModelVersion: 'wm-7' });
    expect(shown.surpriseRatio).toBeGreaterThan(10);
  });
});

describe('a slot scored float by float', () => {
  // One float that usually misses by 10, three that usually miss by 0.1.
  const usual = [10, 0.1, 0.1, 0.1];
  const slot = { name: 'proprio', offset: 0, size: 4 };

  it('sees a float that usually predicts well miss by twenty times, which the slot’s mean error hides', () => {
    const byMean = new SurpriseRatioScorer([slot], { adaptTicks: 300, holdMs: 0 });
    const byFloat = new SurpriseRatioScorer([{ ...slot, byDimension: true }], { adaptTicks: 300, holdMs: 0 });
    for (let t = 0; t < 50; t++) {
      byMean.score(Float32Array.from(usual), t * 100);
      byFloat.score(Float32Array.from(usual), t * 100);
    }
    const missed = Float32Array.from([10, 2, 0.1, 0.1]);
    // The mean error moves from 2.575 to 3.05: 1.18 times usual.
    expect(byMean.score(missed, 5000).tick).toBeCloseTo(3.05 / 2.575, 3);
    // Float by float: the ratios 1, 20, 1, 1, their root mean square over the scale.
    expect(byFloat.score(missed, 5000).tick).toBeCloseTo(Math.sqrt((1 + 400 + 1 + 1) / 4) / DIMENSION_RMS_SCALE, 3);
  });

  it('reads 1 over the scale on an ordinary tick, and names no surprise on a float that is not a number', () => {
    const scorer = new SurpriseRatioScorer(
      [
        { ...slot, byDimension: true },
        { name: 'lidar', offset: 4, size: 1 },
      ],
      { adaptTicks: 300, holdMs: 0 },
    );
    const alone = new SurpriseRatioScorer([{ ...slot, byDimension: true }], { adaptTicks: 300, holdMs: 0 });
    for (let t = 0; t < 50; t++) {
      scorer.score(Float32Array.from([...usual, 1]), t * 100);
      alone.score(Float32Array.from(usual), t * 100);
    }
    expect(alone.score(Float32Array.from(usual), 5000).tick).toBeCloseTo(1 / DIMENSION_RMS_SCALE, 3);
    const broken = scorer.score(Float32Array.from([Number.NaN, 0.1, 0.1, 0.1, 1.5]), 5100);
    expect(broken).toMatchObject({ slot: 'lidar' });
    expect(broken.tick).toBeCloseTo(1.5, 3);
  });
});

describe('a slot scored on the change', () => {
  const slots = [
    { name: 'lidar', offset: 0, size: 2, change: true },
    { name: 'proprio', offset: 2, size: 2 },
  ];
  // The prediction misses the LiDAR by 1 (a steady blur) and the change by 0.01; proprioception by 0.1.
  const prediction = (lidar: number) => Float32Array.from([lidar, lidar, 0.1, 0.1]);
  const change = (lidar: number) => Float32Array.from([lidar, lidar, 7, 7]);

  it('reads the change errors, not the prediction errors: a change the blur would hide stands out', () => {
    const scorer = new SurpriseRatioScorer(slots, { adaptTicks: 300, holdMs: 0 });
    for (let t = 0; t < 50; t++) scorer.score(prediction(1), t * 100, change(0.01));
    // The prediction misses by 1.3, barely above its blur; the change misses by 0.3, thirty times usual.
    const dropped = scorer.score(prediction(1.3), 5000, change(0.3));
    expect(dropped.slot).toBe('lidar');
    expect(dropped.tick).toBeCloseTo(30, 3);
  });

  it('sits a tick out without change errors (a belief’s first tick), and its usual level starts at its first numbers', () => {
    const scorer = new SurpriseRatioScorer(slots, { adaptTicks: 300, holdMs: 0 });
    // The first tick: no change yet; proprioception reads 1, as every slot's first tick does.
    expect(scorer.score(prediction(1), 0)).toMatchObject({ tick: 1, slot: 'proprio' });
    expect(scorer.score(prediction(1), 100, Float32Array.from([Number.NaN, Number.NaN, 7, 7]))).toMatchObject({ tick: 1, slot: 'proprio' });
    // The change's first numbers set the LiDAR's usual level (a ratio of 1), not a level of zero that
    // would make every later change infinitely surprising.
    expect(scorer.score(prediction(1), 200, change(0.01)).tick).toBeCloseTo(1, 5);
    for (let t = 3; t < 20; t++) scorer.score(prediction(1), t * 100, change(0.01));
    expect(scorer.score(prediction(1), 2000, change(0.05))).toMatchObject({ slot: 'lidar' });
    expect(scorer.score(prediction(1), 2100, change(0.05)).tick).toBeLessThan(6);
  });
});

describe('a belief with a slot scored on the change', () => {
  it('reads the belief’s change errors for that slot: a change spike names it while the prediction errors stay calm', () => {
    const scorer = new SurpriseRatioScorer(
      [
        { name: 'lidar', offset: 0, size: 2, change: true },
        { name: 'proprio', offset: 2, size: 2 },
      ],
      { adaptTicks: 300, holdMs: 0 },
    );
    const belief = (change: number) => ({
      latent: new Float32Array(2),
      surpriseNats: 0,
      predictionError: 1,
      dimensionErrors: Float32Array.of(1, 1, 1, 1),
      changeErrors: Float32Array.of(change, change, 1, 1),
      version: 'wm-3',
    });
    for (let t = 0; t < 50; t++) scorer.scoreBelief(belief(0.01), t * 100);
    const dropped = scorer.scoreBelief(belief(0.5), 5000);
    expect(dropped.modality).toBe('lidar');
    expect(dropped.surpriseRatio).toBeCloseTo(50, 0);
  });
});

describe('the first trained weights', () => {
  const belief = (error: number, version: string) => ({
    latent: new Float32Array(2),
    surpriseNats: 0,
    predictionError: error,
    dimensionErrors: Float32Array.from({ length: 8 }, () => error),
    changeErrors: Float32Array.from({ length: 8 }, () => error),
    version,
  });

  it("start the usual levels afresh: a random model's large errors do not hide what the trained model is surprised by", () => {
    const scorer = new SurpriseRatioScorer(SLOTS, { adaptTicks: 300, holdMs: 0 });
    for (let t = 0; t < 50; t++) scorer.scoreBelief(belief(100, UNTRAINED_VERSION), t * 100);
    // The trained model misses by 1 as a rule; against the random model's usual 100 a tick of 8 would read 0.08.
    for (let t = 50; t < 70; t++) scorer.scoreBelief(belief(1, 'world-model-enc-2000'), t * 100);
    expect(scorer.scoreBelief(belief(8, 'world-model-enc-2000'), 7000).surpriseRatio).toBeCloseTo(8);
  });

  it("are not restarted by the learner's later versions, which continue the same training", () => {
    const scorer = new SurpriseRatioScorer(SLOTS, { adaptTicks: 300, holdMs: 0 });
    for (let t = 0; t < 50; t++) scorer.scoreBelief(belief(1, 'world-model-enc-2000'), t * 100);
    // A new version whose first tick misses by 8: judged against the usual level learned so far.
    expect(scorer.scoreBelief(belief(8, 'world-model-enc-2050'), 5000).surpriseRatio).toBeCloseTo(8);
  });
});

describe('surpriseStatus', () => {
  const shown = { surpriseRatio: 2.5, modality: 'proprio', surpriseNats: 0.4, predictionError: 0.9, worldModelVersion: 'v1' };

  it('carries the ratio with its modality, and raises the alarm at the threshold and above', () => {
    expect(surpriseStatus(shown, 3)).toEqual({
      surpriseRatio: 2.5,
      surpriseModality: 'proprio',
      surpriseAlarm: false,
      surpriseNats: 0.4,
      predictionError: 0.9,
    });
    expect(surpriseStatus({ ...shown, surpriseRatio: 3 }, 3).surpriseAlarm).toBe(true);
    expect(surpriseStatus({ ...shown, surpriseRatio: 7 }, 3).surpriseAlarm).toBe(true);
  });

  it('uses the product threshold by default', () => {
    expect(surpriseStatus({ ...shown, surpriseRatio: SURPRISE_ALARM_RATIO }).surpriseAlarm).toBe(true);
    expect(surpriseStatus({ ...shown, surpriseRatio: SURPRISE_ALARM_RATIO - 0.01 }).surpriseAlarm).toBe(false);
  });
});
