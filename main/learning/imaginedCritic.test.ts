// The imagined actor-critic's parts where the right answer is known: λ-returns by hand, a critic that
// learns the value of a constant reward through real rollouts in a (tiny, untrained) world model, and
// an actor pushed toward the actions that did better than expected.
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorOutput, initialActorWeights, actorShape } from './actor.ts';
import { ImaginedCritic, lambdaReturns, type RolloutStarts } from './imaginedCritic.ts';
import { ClippedAdamStep } from './networks.ts';
import { Rssm } from '../worldmodel/rssm.ts';
import { disposeWeights } from '../worldmodel/rssmWeights.ts';
import { worldModelConfig } from '../worldmodel/worldModelConfig.ts';

const SIZE = 8;

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function starts(count: number, warmup: number, seed: number): RolloutStarts {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return {
    count,
    embeddings: Float32Array.from({ length: count * warmup * SIZE }, () => next() * 2 - 1),
    previousActions: Float32Array.from({ length: count * warmup * 2 }, () => next() * 2 - 1),
  };
}

describe('lambdaReturns', () => {
  it('mixes rewards and bootstrapped values backwards through the horizon', () => {
    // One rollout of 2 steps, γ = λ = 0.5: R1 = 2 + 0.5·3 = 3.5; R0 = 1 + 0.5·(0.5·0.5 + 0.5·3.5) = 2.
    expect([...lambdaReturns(Float32Array.of(1, 2), Float32Array.of(0, 0.5, 3), 1, 2, 0.5, 0.5)]).toEqual([2, 3.5]);
    // λ = 1 is the discounted sum with the last value as bootstrap: 1 + 0.5·(2 + 0.5·3) = 2.75.
    expect(lambdaReturns(Float32Array.of(1, 2), Float32Array.of(0, 0.5, 3), 1, 2, 0.5, 1)[0]).toBeCloseTo(2.75, 6);
    // Rows are time-major: two rollouts side by side keep apart.
    const two = lambdaReturns(Float32Array.of(1, 0, 1, 0), Float32Array.of(0, 0, 0, 0, 0, 0), 2, 2, 1, 1);
    expect([...two]).toEqual([2, 0, 1, 0]);
  });

  it('refuses rewards and values that do not fit the rollouts', () => {
    expect(() => lambdaReturns(new Float32Array(3), new Float32Array(3), 1, 2, 0.9, 0.9)).toThrow(/λ-returns/);
  });
});

describe('ImaginedCritic', () => {
  const config = worldModelConfig('wm-xxs', { embeddingSize: SIZE });
  const rssm = new Rssm(config, 3);
  afterAll(() => disposeWeights(rssm.weights));

  it('refuses options it cannot run', () => {
    expect(() => new ImaginedCritic(SIZE, { rollouts: -1 }, 1)).toThrow(/rollouts/);
    expect(() => new ImaginedCritic(SIZE, { rollouts: 4, horizon: 0 }, 1)).toThrow(/horizon/);
    expect(() => new ImaginedCritic(SIZE, { rollouts: 4, discount: 1.5 }, 1)).toThrow(/discount/);
    expect(new ImaginedCritic(SIZE, {}, 1).enabled).toBe(false);
  });

  it('learns the value of a constant reward from rollouts in the world model', () => {
    // Reward 1 on every imagined tick, γ = 0.5: every state is worth 1 / (1 − γ) = 2.
    const critic = new ImaginedCritic(SIZE, { rollouts: 8, horizon: 4, discount: 0.5, lambda: 0.9, criticLearningRate: 1e-2, criticHidden: 32 }, 2);
    const actor = initialActorWeights(actorShape(SIZE, 16, 1), 5);
    try {
      let last: { advantages: Float32Array; meanReward: number; rows: number } | undefined;
      for (let update = 0; update < 60; update++) {
        const batch = critic.rollout(rssm, starts(8, 3, update + 1), {
          actor,
          features: (embeddings) => tf.clone(embeddings),
          memberRewards: (features) => [new Float32Array(features.shape[0]).fill(1), new Float32Array(features.shape[0]).fill(1)],
          toWorldAction: (action) => tf.clone(action),
          seed: update,
        });
        last = { advantages: batch.advantages.dataSync() as Float32Array, meanReward: batch.meanReward, rows: batch.features.shape[0] };
        critic.release(batch);
      }
      expect(last!.rows).toBe(4 * 8);
      expect(last!.meanReward).toBe(1);
      const probe = tf.tensor2d(starts(16, 1, 99).embeddings, [16, SIZE]);
      const values = critic.values(probe);
      probe.dispose();
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      expect(mean).toBeGreaterThan(1.7);
      expect(mean).toBeLessThan(2.3);
      // What the critic expects is what the rollouts earn: little advantage is left either way.
      expect(Math.max(...last!.advantages.map(Math.abs))).toBeLessThan(0.5);
    } finally {
      critic.dispose();
      tf.dispose(actor);
    }
  });

  it('pushes the actor toward the actions that did better than the critic expected', () => {
    const critic = new ImaginedCritic(SIZE, { rollouts: 8, entropyWeight: 0 }, 3);
    const actor = initialActorWeights(actorShape(SIZE, 16, 1), 6);
    const adam = new ClippedAdamStep(actor, 1e-2);
    // Turning left (+) did better than expected, turning right (−) worse, whatever the features.
    const rows = 64;
    const features = tf.randomNormal([rows, SIZE], 0, 1, 'float32', 7) as tf.Tensor2D;
    const unsquashed = tf.tensor2d(Array.from({ length: rows }, (_, row) => (row % 2 === 0 ? [0, 1] : [0, -1])).flat(), [rows, 2]);
    const advantages = tf.tensor1d(Array.from({ length: rows }, (_, row) => (row % 2 === 0 ? 1 : -1)));
    const batch = { features, unsquashed, advantages, meanReward: 0, criticLoss: 0 };
    const turn = () => tf.tidy(() => tf.mean(tf.slice(actorOutput(actor, features).mean, [0, 1], [-1, 1])).dataSync()[0]!);
    try {
      const before = turn();
      for (let step = 0; step < 40; step++) adam.minimise(() => tf.tidy(() => critic.actorLoss(actor, batch)));
      expect(turn()).toBeGreaterThan(before + 0.3);
    } finally {
      critic.release(batch);
      critic.dispose();
      adam.dispose();
      tf.dispose(actor);
    }
  });

  it('refuses starts that are not whole ticks', () => {
    const critic = new ImaginedCritic(SIZE, { rollouts: 2 }, 4);
    const actor = initialActorWeights(actorShape(SIZE, 16, 1), 6);
    try {
      const bad = { count: 2, embeddings: new Float32Array(2 * SIZE + 3), previousActions: new Float32Array(4) };
      expect(() => critic.rollout(rssm, bad, { actor, features: (e) => e, memberRewards: () => [], toWorldAction: (a) => a, seed: 1 })).toThrow(/whole ticks/);
    } finally {
      critic.dispose();
      tf.dispose(actor);
    }
  });
});
