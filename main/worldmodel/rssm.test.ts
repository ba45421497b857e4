import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rssm, type TrainingBatch } from './rssm.ts';
import { disposeWeights, namedWeights, parameterCount } from './rssmWeights.ts';
import { decoderWeights, worldModelConfig, type WorldModelConfig } from './worldModelConfig.ts';
import { WorldModelTrainer } from './worldModelTrainer.ts';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** A small model, so a few steps run in well under a second. */
const TINY: WorldModelConfig = worldModelConfig('wm-xxs', {
  embeddingSize: 8,
  deterministicSize: 16,
  stochasticGroups: 4,
  classes: 4,
  hiddenSize: 16,
  learningRate: 3e-3,
});

/** Sequences whose embedding rotates by the action: predictable from the past and the actions. */
function rotatingBatch(config: WorldModelConfig, batch: number, length: number): TrainingBatch {
  const embeddings = new Float32Array(batch * length * config.embeddingSize);
  const previousActions = new Float32Array(batch * length * config.actionSize);
  for (let row = 0; row < batch; row++) {
    let angle = row;
    for (let step = 0; step < length; step++) {
      const action = Math.sin(row * 3 + step * 0.7);
      if (step > 0) angle += action * 0.5;
      previousActions[(row * length + step) * config.actionSize] = step > 0 ? action : 0;
      for (let k = 0; k < config.embeddingSize; k++) embeddings[(row * length + step) * config.embeddingSize + k] = Math.cos(angle + k);
    }
  }
  const ones = new Float32Array(batch * length).fill(1);
  return {
    batch,
    length,
    embeddings,
    previousActions,
    rewards: new Float32Array(batch * length),
    rewardKnown: new Float32Array(batch * length),
    continues: ones,
  };
}

describe('Rssm', () => {
  it('wm-s has the reference PyTorch model’s 4,734,210 parameters, layer for layer', () => {
    const rssm = new Rssm(worldModelConfig('wm-s'), 1);
    expect(parameterCount(rssm.weights)).toBe(4_734_210);
    const shapes = Object.fromEntries(namedWeights(rssm.weights).map(([name, variable]) => [name, variable.shape]));
    // nn.Linear(S·C + A, H): 32·16 + 2 → 512; GRUCell(512, 512) per gate; post reads [h, embedding].
    expect(shapes['imageIn.dense.weight']).toEqual([514, 512]);
    expect(shapes['gru.reset.hiddenWeight']).toEqual([512, 512]);
    expect(shapes['posterior.hidden.weight']).toEqual([768, 512]);
    expect(shapes['decoder.hidden.weight']).toEqual([1024, 512]);
    expect(shapes['decoder.out.weight']).toEqual([512, 256]);
    expect(shapes['continuation.out.weight']).toEqual([512, 1]);
    tf.dispose(namedWeights(rssm.weights).map(([, variable]) => variable));
  });

  it('learns: the loss on predictable sequences falls over a few training steps, and no tensor leaks', () => {
    const rssm = new Rssm(TINY, 3);
    const trainer = new WorldModelTrainer(rssm);
    const batch = rotatingBatch(TINY, 4, 12);
    const first = trainer.step(batch);
    const tensorsAfterFirst = tf.memory().numTensors;
    let last = first;
    for (let i = 0; i < 40; i++) last = trainer.step(batch);
    expect(last.decoder).toBeLessThan(first.decoder * 0.7);
    expect(Number.isFinite(last.klNats) && last.klNats >= 0).toBe(true);
    expect(tf.memory().numTensors).toBe(tensorsAfterFirst);
    expect(trainer.steps).toBe(41);
  });

  it('is deterministic: the same seed and batches give the same losses', () => {
    const run = () => {
      const trainer = new WorldModelTrainer(new Rssm(TINY, 5));
      const batch = rotatingBatch(TINY, 2, 6);
      return [trainer.step(batch).total, trainer.step(batch).total];
    };
    expect(run()).toEqual(run());
  });

  it('observes a tick into a new state with finite surprise, and imagines embeddings ahead', () => {
    const rssm = new Rssm(TINY, 7);
    const start = rssm.initial(2);
    const step = rssm.observe(start, tf.zeros([2, TINY.actionSize]), tf.ones([2, TINY.embeddingSize]));
    expect(step.state.deterministic.shape).toEqual([2, TINY.deterministicSize]);
    expect(step.state.stochastic.shape).toEqual([2, TINY.stochasticGroups * TINY.classes]);
    // The stochastic state is one-hot per group.
    expect(tf.sum(step.state.stochastic).dataSync()[0]).toBe(2 * TINY.stochasticGroups);
    const surpriseNats = step.surpriseNats.dataSync();
    expect([...surpriseNats].every((nats) => Number.isFinite(nats) && nats >= 0)).toBe(true);
    expect([...step.predictionError.dataSync()].every(Number.isFinite)).toBe(true);
    const imagined = rssm.imagine(step.state, tf.zeros([2, 5, TINY.actionSize]));
    expect(imagined.shape).toEqual([2, 5, TINY.embeddingSize]);
  });

  it('measures the change only with the previous embedding, and reads an embedding that stayed the same alike whatever it is', () => {
    const rssm = new Rssm(TINY, 7);
    const start = rssm.initial(2);
    const action = tf.zeros([2, TINY.actionSize]) as tf.Tensor2D;
    const [first, second] = [tf.ones([2, TINY.embeddingSize]) as tf.Tensor2D, tf.fill([2, TINY.embeddingSize], -2) as tf.Tensor2D];
    const state = rssm.observe(start, action, first).state;
    expect([...rssm.observe(state, action, first).changeErrors.dataSync()].every(Number.isNaN)).toBe(true);
    // Nothing changed since the previous tick: what is left is the change the model foresaw, whatever the embedding.
    const [sameFirst, sameSecond] = [rssm.observe(state, action, first, first), rssm.observe(state, action, second, second)];
    expect([...sameFirst.changeErrors.dataSync()]).toEqual([...sameSecond.changeErrors.dataSync()]);
    expect([...sameFirst.dimensionErrors.dataSync()]).not.toEqual([...sameSecond.dimensionErrors.dataSync()]);
    // A change the model did not foresee is an error of the change; the prediction's own error is the same with or without the previous embedding.
    const changed = rssm.observe(state, action, second, first);
    expect([...changed.dimensionErrors.dataSync()]).toEqual([...sameSecond.dimensionErrors.dataSync()]);
    expect(tf.sum(changed.changeErrors).dataSync()[0]).toBeGreaterThan(tf.sum(sameFirst.changeErrors).dataSync()[0]!);
  });

  it('skips an update whose gradient is not finite, leaving the weights as they were', () => {
    const rssm = new Rssm(TINY, 4);
    const trainer = new WorldModelTrainer(rssm);
    const before = namedWeights(rssm.weights).map(([, variable]) => [...variable.dataSync()]);
    const poisoned = rotatingBatch(TINY, 2, 4);
    poisoned.embeddings[3] = Number.NaN;
    expect(() => trainer.step(poisoned)).toThrow(/gradient is not finite.*update was skipped/);
    expect(namedWeights(rssm.weights).map(([, variable]) => [...variable.dataSync()])).toEqual(before);
    expect(trainer.steps).toBe(0);
  });

  it('fits the embedding’s statistics once, flooring a dimension that never varies, and predicts in the embedding’s own units', () => {
    const rssm = new Rssm(TINY, 8);
    expect(rssm.embeddingNormFitted()).toBe(false);
    const count = 200;
    const embeddings = new Float32Array(count * TINY.embeddingSize);
    for (let row = 0; row < count; row++) {
      for (let k = 0; k < TINY.embeddingSize; k++) embeddings[row * TINY.embeddingSize + k] = k === 0 ? 1 : 5 + k * 0.01 * Math.sin(row * (k + 1));
    }
    rssm.fitEmbeddingNorm(embeddings, count);
    expect(rssm.embeddingNormFitted()).toBe(true);
    const mean = rssm.weights.embeddingNorm.mean.dataSync();
    const scale = rssm.weights.embeddingNorm.scale.dataSync();
    expect(mean[0]).toBeCloseTo(1, 5);
    expect(mean[3]).toBeCloseTo(5, 2);
    // Dimension 0 is constant: its scale is a tenth of the median spread, not zero.
    expect(scale[0]).toBeGreaterThan(0);
    expect(scale[0]).toBeLessThan(scale[3]!);
    // Imagined embeddings come back around the data's mean, not around zero.
    const imagined = rssm.imagine(rssm.initial(1), tf.zeros([1, 2, TINY.actionSize])).dataSync();
    expect(Math.abs(imagined[3]! - 5)).toBeLessThan(1);
    expect(() => rssm.fitEmbeddingNorm(embeddings, 1)).toThrow(/at least 2 embeddings/);
  });

  it('refuses a batch whose arrays do not match its shape', () => {
    const trainer = new WorldModelTrainer(new Rssm(TINY, 1));
    const batch = { ...rotatingBatch(TINY, 2, 4), embeddings: new Float32Array(5) };
    expect(() => trainer.step(batch)).toThrow(/embeddings: expected 64 values/);
  });
});

describe('decoder groups (issue 30, off by default)', () => {
  it('weigh every group alike: one group is the plain loss, a small group counts for as much as a large one', () => {
    const batch = rotatingBatch(TINY, 2, 6);
    const decoderLoss = (config: WorldModelConfig) => {
      const rssm = new Rssm(config, 5);
      const loss = tf.tidy(() => rssm.loss(batch).decoder.dataSync()[0]!);
      disposeWeights(rssm.weights);
      return loss;
    };
    const plain = decoderLoss(TINY);
    expect(decoderLoss(worldModelConfig('wm-xxs', { ...TINY, decoderGroupSizes: [8] }))).toBeCloseTo(plain, 5);
    expect(decoderLoss(worldModelConfig('wm-xxs', { ...TINY, decoderGroupSizes: [2, 6] }))).not.toBeCloseTo(plain, 3);
    expect(decoderWeights(worldModelConfig('wm-xxs', { ...TINY, decoderGroupSizes: [2, 6] }))).toEqual(Float32Array.from([2, 2, ...Array(6).fill(8 / 12)]));
    expect(() => worldModelConfig('wm-xxs', { ...TINY, decoderGroupSizes: [2, 5] })).toThrow(/decoder groups of 7 floats in all for an embedding of 8/);
  });
});
