// The bench's world model trains only on whole runs of one episode, and says when it has none.
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTickBuffer, type TickBuffer } from '../../session/learningParts.ts';
import { BenchWorldModel } from './benchWorldModel.ts';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function fill(buffer: TickBuffer, episodeId: string, count: number): void {
  for (let step = 0; step < count; step++) {
    buffer.add({
      episodeId,
      step,
      embedding: Float32Array.from({ length: 8 }, (_, k) => Math.sin(step * 0.1 * (k + 1))),
      action: { linearMps: 0.2, angularRadps: Math.cos(step * 0.1) },
      driver: 'operator',
    });
  }
}

describe('BenchWorldModel', () => {
  it('trains on runs of one episode, and takes no step while no run is long enough', () => {
    const model = new BenchWorldModel(8, { preset: 'wm-xxs', batch: 4, length: 8, seed: 1 });
    try {
      const buffer = createTickBuffer(100, 8);
      // Episodes of 5 ticks: no run of 8.
      for (let episode = 0; episode < 6; episode++) fill(buffer, `short-${episode}`, 5);
      expect(model.train(buffer, 3)).toBe(0);
      expect(model.rssm.embeddingNormFitted()).toBe(false);
      fill(buffer, 'long', 40);
      expect(model.train(buffer, 3)).toBe(3);
      expect(model.steps).toBe(3);
      expect(model.rssm.embeddingNormFitted()).toBe(true);
    } finally {
      model.dispose();
    }
  });
});
