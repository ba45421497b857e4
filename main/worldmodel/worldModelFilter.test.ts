import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { beforeAll, describe, expect, it } from 'vitest';
import { namedWeights } from './rssmWeights.ts';
import { worldModelConfig } from './worldModelConfig.ts';
import { WorldModelFilter } from './worldModelFilter.ts';

const CONFIG = worldModelConfig('wm-xxs', { embeddingSize: 6, deterministicSize: 8, stochasticGroups: 2, classes: 4, hiddenSize: 8 });
const embedding = Float32Array.from({ length: 6 }, (_, i) => Math.sin(i));
const command = { linearMps: 0.2, angularRadps: -0.3 };

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** The weights of a filter as the learner would hand them over. */
function weightsOf(filter: WorldModelFilter) {
  return namedWeights((filter as unknown as { rssm: { weights: Parameters<typeof namedWeights>[0] } }).rssm.weights).map(([name, variable]) => ({
    name,
    shape: [...variable.shape],
    values: (variable.dataSync() as Float32Array).slice(),
  }));
}

describe('WorldModelFilter', () => {
  it('turns each tick into a belief: the latent state, surprise and the weights’ version, without leaking tensors', () => {
    const filter = new WorldModelFilter(CONFIG, 1);
    filter.step(command, embedding);
    const tensors = tf.memory().numTensors;
    const belief = filter.step(command, embedding);
    expect(belief.latent).toHaveLength(CONFIG.deterministicSize + CONFIG.stochasticGroups * CONFIG.classes);
    expect(belief.surpriseNats).toBeGreaterThanOrEqual(0);
    expect(Number.isFinite(belief.predictionError)).toBe(true);
    expect(belief.version).toBe('initial');
    expect(filter.imagine([command, command, command])).toHaveLength(3 * CONFIG.embeddingSize);
    expect(tf.memory().numTensors).toBe(tensors);
  });

  it('measures the change from the second tick on, and afresh after a reset', () => {
    const filter = new WorldModelFilter(CONFIG, 3);
    expect([...filter.step(command, embedding).changeErrors].every(Number.isNaN)).toBe(true);
    const second = filter.step(
      command,
      embedding.map((value) => value + 0.5),
    );
    expect(second.changeErrors).toHaveLength(CONFIG.embeddingSize);
    expect([...second.changeErrors].every((error) => Number.isFinite(error) && error >= 0)).toBe(true);
    filter.reset();
    expect([...filter.step(command, embedding).changeErrors].every(Number.isNaN)).toBe(true);
  });

  it('measures the change from the embedding as it was, even when the caller refills one array in place', () => {
    const next = embedding.map((value) => value + 0.5);
    const fresh = new WorldModelFilter(CONFIG, 3);
    fresh.step(command, Float32Array.from(embedding));
    const expected = fresh.step(command, Float32Array.from(next)).changeErrors;
    const reused = new WorldModelFilter(CONFIG, 3);
    const buffer = Float32Array.from(embedding);
    reused.step(command, buffer);
    buffer.set(next);
    expect([...reused.step(command, buffer).changeErrors]).toEqual([...expected]);
  });

  it('takes the learner’s weights, and after a reset filters as a fresh model with them would', () => {
    // Different seeds, so different initial weights: only the handed-over weights can make them agree.
    const trained = new WorldModelFilter(CONFIG, 5);
    const filter = new WorldModelFilter(CONFIG, 2);
    filter.step(command, embedding);
    filter.loadWeights(weightsOf(trained), 'wm-test-7');
    filter.reset();
    const [ours, theirs] = [filter.step(command, embedding), trained.step(command, embedding)];
    // The deterministic state after the first tick depends on the weights alone (the samples come after).
    expect(ours.version).toBe('wm-test-7');
    expect([...ours.latent.subarray(0, CONFIG.deterministicSize)]).toEqual([...theirs.latent.subarray(0, CONFIG.deterministicSize)]);
  });

  it('refuses weights for another model and an embedding of the wrong size, keeping its own', () => {
    const filter = new WorldModelFilter(CONFIG, 3);
    const other = new WorldModelFilter(worldModelConfig('wm-xxs', { ...CONFIG, hiddenSize: 12 }), 3);
    expect(() => filter.loadWeights(weightsOf(other), 'other')).toThrow(/weight 0 is imageIn.dense.weight of \d+ values, expected imageIn.dense.weight of \d+/);
    expect(() => filter.loadWeights(weightsOf(filter).slice(1), 'short')).toThrow(/weights offered, the model has/);
    expect(filter.version).toBe('initial');
    expect(() => filter.step(command, new Float32Array(5))).toThrow(/embedding of 5 values, expected 6/);
  });
});
