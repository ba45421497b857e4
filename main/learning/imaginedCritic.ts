// (b) of DESIGN §3: an actor-critic on rollouts imagined in the world model and scored by the reward
// model. From a real tick (its belief filtered over the few ticks before it), the world model rolls
// `horizon` ticks forward under the actor's own sampled actions; the reward ensemble scores each
// imagined embedding (its spread counted against it, so unknown ground earns nothing); a critic
// learns the λ-returns, and the actor is pushed toward the sampled actions that did better than the
// critic expected (the policy gradient with the critic as baseline, returns scaled as DreamerV3 does).
// The rollout itself carries no gradient: the world model is another worker's, read-only here.
import * as tf from '@tensorflow/tfjs-core';
import type { Rssm } from '../worldmodel/rssm.ts';
import { actorOutput, ACTION_SIZE } from './actor.ts';
import { applyMlp, ClippedAdamStep, initialMlpWeights } from './networks.ts';
import { memberStatistics } from './rewardEnsemble.ts';

export interface ImaginationOptions {
  /** Rollouts per imagined update; 0 turns the actor-critic off. */
  rollouts: number;
  /** Real ticks filtered into the belief a rollout starts from (the start tick the last of them). */
  warmupTicks: number;
  horizon: number;
  discount: number;
  lambda: number;
  /** One imagined update every this many actor steps. */
  everyActorSteps: number;
  /** Weight of the imagined policy gradient against the behaviour cloning of the same step. */
  actorWeight: number;
  entropyWeight: number;
  criticHidden: number;
  criticLayers: number;
  criticLearningRate: number;
  /** How much one unit of the ensemble's spread counts against an imagined tick's reward. */
  uncertaintyPenalty: number;
}

export const DEFAULT_IMAGINATION_OPTIONS: Readonly<ImaginationOptions> = Object.freeze({
  rollouts: 0,
  warmupTicks: 8,
  horizon: 15,
  discount: 0.97,
  lambda: 0.95,
  everyActorSteps: 4,
  actorWeight: 1,
  entropyWeight: 3e-4,
  criticHidden: 128,
  criticLayers: 2,
  criticLearningRate: 1e-3,
  uncertaintyPenalty: 1,
});

/** Where rollouts start: `count` runs of `warmupTicks` real ticks, row-major [count, warmup, ·]. */
export interface RolloutStarts {
  count: number;
  /** Raw embeddings (the encoder's units). */
  embeddings: Float32Array;
  /** The action before each tick, in the world model's action units (zero where none). */
  previousActions: Float32Array;
}

/** What the rollout needs from the policy learner, all as tensors in and out. */
export interface RolloutContext {
  actor: readonly tf.Tensor[];
  /** Raw embeddings [n, E] → the actor's, critic's and reward model's features [n, F]. */
  features: (embeddings: tf.Tensor2D) => tf.Tensor2D;
  /** Each member's reward for features [n, F]. */
  memberRewards: (features: tf.Tensor2D) => Float32Array[];
  /** The actor's squashed action [n, 2] in [−1, 1] → the world model's action [n, A]. */
  toWorldAction: (action: tf.Tensor2D) => tf.Tensor2D;
  /** Seed of this rollout's exploration noise. */
  seed: number;
}

/** One update's imagined ticks, flattened [horizon·count, ·], ready for the actor's loss. */
export interface ImaginedBatch {
  features: tf.Tensor2D;
  /** The sampled actions before the tanh. */
  unsquashed: tf.Tensor2D;
  /** λ-return minus the critic's value, scaled; no gradient. */
  advantages: tf.Tensor1D;
  /** Figures for the report. */
  meanReward: number;
  criticLoss: number;
}

export class ImaginedCritic {
  readonly options: ImaginationOptions;
  private readonly critic: tf.Variable[];
  private readonly criticStep: ClippedAdamStep;
  /** Running 5–95 % range of the λ-returns (DreamerV3 divides advantages by it, at least 1). */
  private returnRange: number | undefined;

  constructor(
    readonly featureSize: number,
    options: Partial<ImaginationOptions>,
    seed: number,
  ) {
    this.options = { ...DEFAULT_IMAGINATION_OPTIONS, ...options };
    const { rollouts, warmupTicks, horizon, discount, lambda, everyActorSteps } = this.options;
    if (!(Number.isInteger(rollouts) && rollouts >= 0)) throw new RangeError(`imagination: rollouts must be a whole number ≥ 0, got ${rollouts}`);
    if (!(Number.isInteger(warmupTicks) && warmupTicks >= 1)) throw new RangeError(`imagination: warmupTicks must be a whole number ≥ 1, got ${warmupTicks}`);
    if (!(Number.isInteger(horizon) && horizon >= 1)) throw new RangeError(`imagination: horizon must be a whole number ≥ 1, got ${horizon}`);
    if (!(Number.isInteger(everyActorSteps) && everyActorSteps >= 1))
      throw new RangeError(`imagination: everyActorSteps must be a whole number ≥ 1, got ${everyActorSteps}`);
    for (const [name, value] of [
      ['discount', discount],
      ['lambda', lambda],
    ] as const) {
      if (!(value >= 0 && value <= 1)) throw new RangeError(`imagination: ${name} must be within [0, 1], got ${value}`);
    }
    this.critic = initialMlpWeights(
      { inputs: featureSize, hidden: this.options.criticHidden, layers: this.options.criticLayers, outputs: 1 },
      seed * 31 + 5,
      0.1,
    );
    this.criticStep = new ClippedAdamStep(this.critic, this.options.criticLearningRate, 100);
  }

  get enabled(): boolean {
    return this.options.rollouts > 0;
  }

  /**
   * Filters each start's real ticks, imagines `horizon` ticks under the actor's sampled actions, trains
   * the critic once on their λ-returns, and answers the batch for the actor's loss (the caller disposes
   * its tensors with `release`).
   */
  rollout(rssm: Rssm, starts: RolloutStarts, context: RolloutContext): ImaginedBatch {
    const { horizon, discount, lambda, uncertaintyPenalty } = this.options;
    const count = starts.count;
    const warmup = starts.embeddings.length / (count * rssm.config.embeddingSize);
    if (!(count >= 1 && Number.isInteger(warmup) && warmup >= 1))
      throw new RangeError(`imagination: ${starts.embeddings.length} embedding values do not make ${count} starts of whole ticks`);
    if (starts.previousActions.length !== count * warmup * rssm.config.actionSize)
      throw new RangeError(`imagination: ${starts.previousActions.length} action values for ${count} × ${warmup} ticks of ${rssm.config.actionSize}`);

    const rolled = tf.tidy(() => {
      const embeddingSize = rssm.config.embeddingSize;
      const tick = (values: Float32Array, width: number, t: number) => {
        const rows = new Float32Array(count * width);
        for (let row = 0; row < count; row++) rows.set(values.subarray((row * warmup + t) * width, (row * warmup + t + 1) * width), row * width);
        return tf.tensor2d(rows, [count, width]);
      };
      let state = rssm.initial(count);
      for (let t = 0; t < warmup; t++)
        state = rssm.observe(state, tick(starts.previousActions, rssm.config.actionSize, t), tick(starts.embeddings, embeddingSize, t)).state;
      let embedding = tick(starts.embeddings, embeddingSize, warmup - 1);
      const features: tf.Tensor2D[] = [];
      const unsquashed: tf.Tensor2D[] = [];
      for (let t = 0; t < horizon; t++) {
        const x = context.features(embedding);
        const { mean, logStd } = actorOutput(context.actor, x);
        const u = tf.add(mean, tf.mul(tf.exp(logStd), tf.randomNormal([count, ACTION_SIZE], 0, 1, 'float32', context.seed * 1009 + t))) as tf.Tensor2D;
        const next = rssm.imagineStep(state, context.toWorldAction(tf.tanh(u) as tf.Tensor2D));
        features.push(x);
        unsquashed.push(u);
        state = next.state;
        embedding = next.embedding;
      }
      features.push(context.features(embedding));
      return { features: tf.concat(features, 0) as tf.Tensor2D, unsquashed: tf.concat(unsquashed, 0) as tf.Tensor2D };
    });

    // Rewards of the ticks each action led to (rows count…end), and the critic's values of every tick.
    const allFeatures = rolled.features;
    const reached = tf.slice(allFeatures, [count, 0], [horizon * count, -1]) as tf.Tensor2D;
    const members = context.memberRewards(reached);
    reached.dispose();
    const { mean, spread } = memberStatistics(members);
    const rewards = mean.map((value, i) => value - uncertaintyPenalty * spread[i]!);
    const values = this.values(allFeatures);
    const returns = lambdaReturns(rewards, values, count, horizon, discount, lambda);

    const visited = tf.slice(allFeatures, [0, 0], [horizon * count, -1]) as tf.Tensor2D;
    allFeatures.dispose();
    const targets = tf.tensor2d(returns, [horizon * count, 1]);
    const criticLoss = this.criticStep.minimise(() => tf.tidy(() => tf.mean(tf.square(tf.sub(applyMlp(this.critic, visited), targets))) as tf.Scalar));
    targets.dispose();

    const range = percentile(returns, 0.95) - percentile(returns, 0.05);
    this.returnRange = this.returnRange === undefined ? range : this.returnRange + 0.01 * (range - this.returnRange);
    const scale = Math.max(1, this.returnRange);
    const advantages = new Float32Array(horizon * count);
    for (let i = 0; i < advantages.length; i++) advantages[i] = (returns[i]! - values[i]!) / scale;
    const meanReward = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    return { features: visited, unsquashed: rolled.unsquashed, advantages: tf.tensor1d(advantages), meanReward, criticLoss };
  }

  /** The actor's loss on an imagined batch: −advantage · log-likelihood of each sampled action, less an entropy bonus. */
  actorLoss(actor: readonly tf.Tensor[], batch: ImaginedBatch): tf.Scalar {
    const { mean, logStd } = actorOutput(actor, batch.features);
    const z = tf.div(tf.sub(batch.unsquashed, mean), tf.exp(logStd));
    // log N(u; mean, std) per row, less its constant; the tanh's Jacobian does not depend on the weights.
    const logLikelihood = tf.neg(tf.sum(tf.add(tf.mul(0.5, tf.square(z)), logStd), 1));
    const gradient = tf.neg(tf.mean(tf.mul(batch.advantages, logLikelihood)));
    const entropy = tf.mean(tf.sum(logStd, 1));
    return tf.mul(this.options.actorWeight, tf.sub(gradient, tf.mul(this.options.entropyWeight, entropy))) as tf.Scalar;
  }

  /** The critic's value of each row of features [n, F]. */
  values(features: tf.Tensor2D): Float32Array {
    return tf.tidy(() => applyMlp(this.critic, features).dataSync() as Float32Array);
  }

  release(batch: ImaginedBatch): void {
    tf.dispose([batch.features, batch.unsquashed, batch.advantages]);
  }

  dispose(): void {
    this.criticStep.dispose();
    tf.dispose(this.critic);
  }
}

/**
 * λ-returns over `horizon` steps of `count` rollouts, time-major (row t·count + i): rewards[t] is what
 * the action at t led to; values hold horizon + 1 rows, the last the bootstrap.
 */
export function lambdaReturns(rewards: Float32Array, values: Float32Array, count: number, horizon: number, discount: number, lambda: number): Float32Array {
  if (rewards.length !== count * horizon || values.length !== count * (horizon + 1))
    throw new RangeError(`λ-returns: ${rewards.length} rewards and ${values.length} values for ${count} rollouts of ${horizon}`);
  const returns = new Float32Array(count * horizon);
  for (let i = 0; i < count; i++) {
    let next = values[horizon * count + i]!;
    for (let t = horizon - 1; t >= 0; t--) {
      const bootstrap = values[(t + 1) * count + i]!;
      next = rewards[t * count + i]! + discount * ((1 - lambda) * bootstrap + lambda * next);
      returns[t * count + i] = next;
    }
  }
  return returns;
}

/** The value at quantile `q` (0–1) of `values`, by nearest rank. */
export function percentile(values: Float32Array, q: number): number {
  const sorted = Float32Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))]!;
}
