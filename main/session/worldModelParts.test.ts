import { describe, expect, it } from 'vitest';
import { createSurpriseScorer } from './worldModelParts.ts';

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
