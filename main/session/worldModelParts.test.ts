import { describe, expect, it } from 'vitest';
import { DIMENSION_RMS_SCALE } from '../worldmodel/surpriseScorer.ts';
import { createSurpriseScorer, scoredSurpriseSlots } from './worldModelParts.ts';

/** Camera, LiDAR, proprioception, each modality's liveness (change, age), the presence flags. */
const WITH_LIVENESS = [
  { name: 'camera', offset: 0, size: 4 },
  { name: 'lidar', offset: 4, size: 2 },
  { name: 'proprio', offset: 6, size: 2 },
  { name: 'liveness-camera', offset: 8, size: 2 },
  { name: 'liveness-lidar', offset: 10, size: 2 },
  { name: 'liveness-proprio', offset: 12, size: 2 },
  { name: 'mask', offset: 14, size: 3 },
];

describe('createSurpriseScorer', () => {
  // The fused embedding's layout: the three sensors, then their presence flags.
  const slots = [
    { name: 'camera', offset: 0, size: 2 },
    { name: 'lidar', offset: 2, size: 2 },
    { name: 'proprio', offset: 4, size: 2 },
    { name: 'mask', offset: 6, size: 3 },
  ];
  const errors = (camera: number, mask: number) => Float32Array.from([camera, camera, 1, 1, 1, 1, mask, mask, mask]);

  it('scores the sensor modalities only: the presence flags, predicted almost exactly, never name a surprise', () => {
    const scorer = createSurpriseScorer(slots);
    for (let tick = 0; tick < 50; tick++) scorer.score(errors(1, 1e-6), tick * 100);
    // The flags' error a thousand times their usual level, the camera's four times its own.
    const ratio = scorer.score(errors(4, 1e-3), 5000);
    expect(ratio.slot).toBe('camera');
    expect(ratio.tick).toBeCloseTo(4);
  });
});

describe('createSurpriseScorer with liveness', () => {
  const slots = WITH_LIVENESS;
  const errors = (cameraLiveness: number) => Float32Array.from([1, 1, 1, 1, 1, 1, 1, 1, cameraLiveness, cameraLiveness, 1, 1, 1, 1, 1, 1, 1]);

  it("scores a modality's liveness on its own usual error and names the modality: a picture that stops changing is the camera's surprise", () => {
    const scorer = createSurpriseScorer(slots);
    for (let tick = 0; tick < 50; tick++) scorer.score(errors(1), tick * 100);
    // Averaged with the camera's four features the liveness error would read (4 + 2 × 9) / 6 ≈ 3.7; scored on its own it reads 9.
    const ratio = scorer.score(errors(9), 5000);
    expect(ratio.slot).toBe('camera');
    expect(ratio.tick).toBeCloseTo(9);
  });
});

describe('scoredSurpriseSlots', () => {
  const withLiveness = WITH_LIVENESS;

  it("leaves out the flags, the camera's features where its liveness is there, and proprioception's liveness; scores the LiDAR on the change", () => {
    expect(scoredSurpriseSlots(withLiveness)).toEqual([
      { name: 'lidar', offset: 4, size: 2, byDimension: true, change: true },
      { name: 'proprio', offset: 6, size: 2, byDimension: true },
      { name: 'camera', offset: 8, size: 2 },
      { name: 'lidar', offset: 10, size: 2 },
    ]);
  });

  it("keeps the camera's features for encoders without a camera liveness slot: the camera is never unscored", () => {
    const older = withLiveness.filter((slot) => !slot.name.startsWith('liveness-'));
    expect(scoredSurpriseSlots(older).map((slot) => slot.name)).toEqual(['camera', 'lidar', 'proprio']);
  });

  it("names no surprise after the camera's features when its liveness is scored instead", () => {
    const scorer = createSurpriseScorer(withLiveness);
    const errors = (cameraFeatures: number, proprio: number) =>
      Float32Array.from([cameraFeatures, cameraFeatures, cameraFeatures, cameraFeatures, 1, 1, proprio, proprio, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    for (let tick = 0; tick < 50; tick++) scorer.score(errors(1, 1), tick * 100);
    // The camera's features miss by forty times usual, proprioception by three: the shown surprise is proprioception's.
    const ratio = scorer.score(errors(40, 3), 5000);
    expect(ratio.slot).toBe('proprio');
    expect(ratio.tick).toBeCloseTo(3 / DIMENSION_RMS_SCALE);
  });
});
