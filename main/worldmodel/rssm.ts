// The recurrent state-space model (DreamerV3 family): a GRU carries the deterministic state h, a
// categorical stochastic state z is inferred from h and the embedding (posterior) or guessed from h
// alone (prior), and heads read [h, z]. State is explicit — passed in and returned by `observe`,
// `imagine` and `loss` — so online filtering, resets and replay are deterministic.
import * as tf from '@tensorflow/tfjs-core';
// The gradients of every op: tfjs-core's Node bundle leaves them to the umbrella package.
import '@tensorflow/tfjs';
import { fitFeatureNorm } from '../core/util/featureNorm.ts';
import { observeSequence } from './observeSequence.ts';
import {
  categoricalKl,
  categoricalProbs,
  dense,
  drawNoise,
  gruCell,
  layerNorm,
  mlp,
  modeCategorical,
  sampleCategorical,
  silu,
  balancedKl,
  symexp,
  symlog,
} from './rssmLayers.ts';
import { initialWeights, type RssmWeights } from './rssmWeights.ts';
import { decoderWeights, stochasticSize, type WorldModelConfig } from './worldModelConfig.ts';

/** The carry: [batch, D] and [batch, S·C]. The caller owns (and disposes) the tensors. */
export interface RssmState {
  deterministic: tf.Tensor2D;
  stochastic: tf.Tensor2D;
}

/** Replayed sequences, batch-major and flattened: [batch, length, ·]. */
export interface TrainingBatch {
  batch: number;
  length: number;
  embeddings: Float32Array;
  /** Entry t is the action taken just before embedding t was observed (zero at an episode's start). */
  previousActions: Float32Array;
  /** The reward signal memory holds for each tick, where it holds one (see `rewardKnown`). */
  rewards: Float32Array;
  /** 1 where `rewards` holds a value to learn; a batch with none skips the reward head. */
  rewardKnown: Float32Array;
  /** 1 while the episode goes on after this tick, 0 at its last tick. */
  continues: Float32Array;
}

export interface LossTerms {
  total: tf.Scalar;
  decoder: tf.Scalar;
  reward: tf.Scalar;
  continuation: tf.Scalar;
  /** Mean KL(posterior ‖ prior) in nats per tick, before free bits. */
  klNats: tf.Scalar;
}

/** One filtering step's outputs beside the new state: how surprising the tick was. */
export interface ObserveStep {
  state: RssmState;
  /** KL(posterior ‖ prior) in nats, per batch row. */
  surpriseNats: tf.Tensor1D;
  /** Squared error of the prior's predicted embedding, in the model's standardised symlog units, mean per dimension, per row. */
  predictionError: tf.Tensor1D;
  /** The same error dimension by dimension: [batch, E]. */
  dimensionErrors: tf.Tensor2D;
  /**
   * The error of the change, dimension by dimension [batch, E]: the change the model foresaw from its
   * reading of the previous tick (the previous posterior, decoded) to its prediction of this one, against
   * the change observed. A decoder's blur that is the same on consecutive ticks cancels out of it, where
   * it dominates `dimensionErrors` (docs/worldmodel.md: the LiDAR's). NaN without a previous embedding.
   */
  changeErrors: tf.Tensor2D;
}

export class Rssm {
  readonly weights: RssmWeights;
  private sampleSeed: number;
  /** Per-dimension weights of the decoder's loss; undefined: every dimension alike (the default, as the reference). */
  private readonly decoderWeights: Float32Array | undefined;

  constructor(
    readonly config: WorldModelConfig,
    seed: number,
    weights?: RssmWeights,
  ) {
    this.weights = weights ?? initialWeights(config, seed);
    this.sampleSeed = seed * 7919;
    this.decoderWeights = decoderWeights(config);
  }

  /**
   * Fits the embedding's per-dimension statistics to `count` embeddings (row after row). A dimension
   * that hardly varies (a modality's present flag) gets a tenth of the median spread, so that it
   * cannot blow up; its rare changes still stand out.
   */
  fitEmbeddingNorm(embeddings: Float32Array, count: number): void {
    const size = this.config.embeddingSize;
    if (!(count >= 2 && embeddings.length >= count * size))
      throw new RangeError(`fitting the embedding's statistics needs at least 2 embeddings of ${size}, got ${count}`);
    const { mean, scale } = fitFeatureNorm(embeddings, count, size);
    this.weights.embeddingNorm.mean.assign(tf.tensor1d(mean));
    this.weights.embeddingNorm.scale.assign(tf.tensor1d(scale));
  }

  /** Whether the statistics are still the identity they start as (never fitted). */
  embeddingNormFitted(): boolean {
    const scale = this.weights.embeddingNorm.scale.dataSync();
    const mean = this.weights.embeddingNorm.mean.dataSync();
    return !(scale.every((value) => value === 1) && mean.every((value) => value === 0));
  }

  /** Embeddings (row after row) in the model's standardised units. */
  private standardise(values: Float32Array): Float32Array {
    const mean = this.weights.embeddingNorm.mean.dataSync();
    const scale = this.weights.embeddingNorm.scale.dataSync();
    const size = mean.length;
    const out = new Float32Array(values.length);
    for (let i = 0; i < values.length; i++) out[i] = (values[i]! - mean[i % size]!) / scale[i % size]!;
    return out;
  }

  /** The state before any observation: all zeros, as the reference starts each sequence. */
  initial(batch: number): RssmState {
    return { deterministic: tf.zeros([batch, this.config.deterministicSize]), stochastic: tf.zeros([batch, stochasticSize(this.config)]) };
  }

  /**
   * Filters one tick: the action taken since the last state, then the embedding seen now. With the
   * embedding seen at the previous tick (the one `state` was filtered from), the step also measures
   * the error of the change (`changeErrors`).
   */
  observe(state: RssmState, previousAction: tf.Tensor2D, rawEmbedding: tf.Tensor2D, previousRawEmbedding?: tf.Tensor2D): ObserveStep {
    return tf.tidy(() => {
      const { mean, scale } = this.weights.embeddingNorm;
      const standardise = (raw: tf.Tensor2D) => tf.div(tf.sub(raw, mean), scale) as tf.Tensor2D;
      const embedding = standardise(rawEmbedding);
      const deterministic = this.transition(state, previousAction);
      const priorProbs = this.priorProbs(deterministic);
      const posteriorProbs = this.posteriorProbs(deterministic, embedding);
      const priorMode = modeCategorical(priorProbs, this.config.classes);
      const observed = symlog(embedding);
      let predicted: tf.Tensor2D;
      let changeErrors: tf.Tensor2D;
      if (previousRawEmbedding === undefined) {
        predicted = this.decode(deterministic, priorMode);
        changeErrors = tf.fill(predicted.shape, Number.NaN) as tf.Tensor2D;
      } else {
        // One decoder pass for both: this tick's prediction and the previous posterior's reading.
        const batch = deterministic.shape[0];
        const decoded = this.decode(tf.concat([deterministic, state.deterministic], 0), tf.concat([priorMode, state.stochastic], 0));
        predicted = tf.slice(decoded, [0, 0], [batch, -1]);
        const previousReading = tf.slice(decoded, [batch, 0], [batch, -1]);
        const observedChange = tf.sub(observed, symlog(standardise(previousRawEmbedding)));
        changeErrors = tf.squaredDifference(tf.sub(predicted, previousReading), observedChange) as tf.Tensor2D;
      }
      const dimensionErrors = tf.squaredDifference(predicted, observed) as tf.Tensor2D;
      const predictionError = tf.mean(dimensionErrors, 1) as tf.Tensor1D;
      const noise = drawNoise(state.deterministic.shape[0] * this.config.stochasticGroups, this.config.classes, this.nextSeed());
      const stochastic = sampleCategorical(posteriorProbs, this.config.classes, noise);
      return { state: { deterministic, stochastic }, surpriseNats: categoricalKl(posteriorProbs, priorProbs), predictionError, dimensionErrors, changeErrors };
    });
  }

  /**
   * Rolls forward from a state under actions [batch, horizon, A] with no observations, the
   * stochastic state at each step the prior's most likely one: predicted embeddings [batch, horizon, E].
   */
  imagine(state: RssmState, actions: tf.Tensor3D): tf.Tensor3D {
    return tf.tidy(() => {
      const [batch, horizon] = actions.shape;
      let current = state;
      const predictions: tf.Tensor2D[] = [];
      for (let step = 0; step < horizon; step++) {
        const action = tf.reshape(tf.slice(actions, [0, step, 0], [batch, 1, -1]), [batch, -1]) as tf.Tensor2D;
        const next = this.imagineStep(current, action);
        predictions.push(next.embedding);
        current = next.state;
      }
      return tf.stack(predictions, 1) as tf.Tensor3D;
    });
  }

  /**
   * One imagined tick under `action` [batch, A] (the world model's action units): the prior's most
   * likely next state, and the embedding it predicts [batch, E] in the encoder's units.
   */
  imagineStep(state: RssmState, action: tf.Tensor2D): { state: RssmState; embedding: tf.Tensor2D } {
    return tf.tidy(() => {
      const deterministic = this.transition(state, action);
      const stochastic = modeCategorical(this.priorProbs(deterministic), this.config.classes);
      const embedding = tf.add(
        tf.mul(symexp(this.decode(deterministic, stochastic)), this.weights.embeddingNorm.scale),
        this.weights.embeddingNorm.mean,
      ) as tf.Tensor2D;
      return { state: { deterministic, stochastic }, embedding };
    });
  }

  /** The training loss over a replayed batch, as the reference computes it; call inside a gradient. */
  loss(batch: TrainingBatch): LossTerms {
    const { config } = this;
    const rows = batch.batch;
    const steps = rows * batch.length;
    const embeddings = this.standardise(timeMajor(batch.embeddings, batch, config.embeddingSize));
    const sequence = observeSequence(this.weights, config, {
      batch: rows,
      length: batch.length,
      embeddings: tf.tensor2d(embeddings, [steps, config.embeddingSize]),
      previousActions: tf.tensor2d(timeMajor(batch.previousActions, batch, config.actionSize), [steps, config.actionSize]),
      noise: drawNoise(steps * config.stochasticGroups, config.classes, this.nextSeed()),
    });
    const posterior = sequence.posterior;
    const prior = this.priorProbs(sequence.deterministic);
    const feature = tf.concat([sequence.deterministic, sequence.stochastic], 1);
    // The prior and the heads see all steps' rows at once ([length·batch, ·]): one large product each.
    const column = (values: Float32Array) => tf.tensor2d(timeMajor(values, batch, 1), [steps, 1]);
    // DreamerV3's balance: the prior learns towards the posterior (dynamics), the posterior a little towards the prior (representation).
    const kl = balancedKl(posterior, prior, config);
    const decoded = mlp(this.weights.decoder, feature, config.layerNormEpsilon);
    const target = symlog(tf.tensor2d(embeddings, [steps, config.embeddingSize]));
    const squared = tf.squaredDifference(decoded, target);
    const weights = this.decoderWeights;
    const decoder = tf.mean(tf.sum(weights === undefined ? squared : tf.mul(squared, tf.tensor1d(weights)), 1));
    const reward = this.rewardLoss(feature, column(batch.rewards), column(batch.rewardKnown), batch);
    const continuation = tf.losses.sigmoidCrossEntropy(column(batch.continues), mlp(this.weights.continuation, feature, config.layerNormEpsilon));
    const total = tf.addN([decoder, reward, continuation, kl.loss]) as tf.Scalar;
    return { total, decoder: decoder as tf.Scalar, reward, continuation: continuation as tf.Scalar, klNats: kl.meanKl };
  }

  private rewardLoss(feature: tf.Tensor2D, rewards: tf.Tensor2D, known: tf.Tensor2D, batch: TrainingBatch): tf.Scalar {
    const knownCount = batch.rewardKnown.reduce((sum, value) => sum + value, 0);
    if (knownCount === 0) return tf.scalar(0);
    const predicted = mlp(this.weights.reward, feature, this.config.layerNormEpsilon);
    return tf.div(tf.sum(tf.mul(tf.squaredDifference(predicted, symlog(rewards)), known)), knownCount) as tf.Scalar;
  }

  private transition(state: RssmState, action: tf.Tensor2D): tf.Tensor2D {
    const { imageIn, gru } = this.weights;
    const input = silu(layerNorm(imageIn.norm, dense(imageIn.dense, tf.concat([state.stochastic, action], 1)), this.config.layerNormEpsilon));
    return gruCell(gru, input, state.deterministic);
  }

  private priorProbs(deterministic: tf.Tensor2D): tf.Tensor2D {
    return categoricalProbs(mlp(this.weights.prior, deterministic, this.config.layerNormEpsilon), this.config.classes, this.config.uniformMix);
  }

  private posteriorProbs(deterministic: tf.Tensor2D, embedding: tf.Tensor2D): tf.Tensor2D {
    const logits = mlp(this.weights.posterior, tf.concat([deterministic, embedding], 1), this.config.layerNormEpsilon);
    return categoricalProbs(logits, this.config.classes, this.config.uniformMix);
  }

  /** The embedding the features predict, in symlog space. */
  private decode(deterministic: tf.Tensor2D, stochastic: tf.Tensor2D): tf.Tensor2D {
    return mlp(this.weights.decoder, tf.concat([deterministic, stochastic], 1), this.config.layerNormEpsilon);
  }

  private nextSeed(): number {
    this.sampleSeed = (this.sampleSeed + 1) % 2 ** 31;
    return this.sampleSeed;
  }
}

/** [batch, length, size] → [length, batch, size]. */
function timeMajor(values: Float32Array, batch: TrainingBatch, size: number): Float32Array {
  const out = new Float32Array(values.length);
  for (let row = 0; row < batch.batch; row++) {
    for (let step = 0; step < batch.length; step++) {
      out.set(values.subarray((row * batch.length + step) * size, (row * batch.length + step + 1) * size), (step * batch.batch + row) * size);
    }
  }
  return out;
}
