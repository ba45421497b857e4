// One optimiser step of the world model, as the reference takes it: loss, backward, gradients
// clipped to a global norm, Adam. Returns the loss terms as numbers for the UI and the log.
import * as tf from '@tensorflow/tfjs-core';
import type { Rssm, TrainingBatch } from './rssm.ts';
import { trainableWeights } from './rssmWeights.ts';
import { FusedAdam, type NamedTensor } from './backend/fusedAdam.ts';

export interface TrainStepFigures {
  total: number;
  decoder: number;
  reward: number;
  continuation: number;
  klNats: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
}

/** Adam as PyTorch defaults it (β 0.9 / 0.999, ε 1e-8). */
const ADAM_BETA1 = 0.9;
const ADAM_BETA2 = 0.999;
const ADAM_EPSILON = 1e-8;

/**
 * The optimiser step: gradients clipped to a global norm, then Adam. Its state reads and writes in
 * tf.AdamOptimizer's getWeights/setWeights layout (the step count, then first and second moments),
 * which is what checkpoints keep.
 */
export interface ClippedAdam {
  /** Returns the global gradient norm before clipping; when it is not finite nothing is applied. A missing gradient counts as zero. */
  step(variables: tf.Variable[], gradients: (tf.Tensor | undefined)[], clipNorm: number): number;
  getWeights(): Promise<NamedTensor[]>;
  setWeights(weights: NamedTensor[]): Promise<void>;
  dispose(): void;
}

export class WorldModelTrainer {
  /** The 'native' backend's fused step (backend/fusedAdam.ts); tf.train.adam on any other. */
  readonly optimizer: ClippedAdam;
  private readonly variables: tf.Variable[];
  steps = 0;

  constructor(readonly rssm: Rssm) {
    const settings = { learningRate: rssm.config.learningRate, beta1: ADAM_BETA1, beta2: ADAM_BETA2, epsilon: ADAM_EPSILON };
    this.optimizer =
      FusedAdam.forCurrentBackend(settings) ?? new TfClippedAdam(tf.train.adam(settings.learningRate, settings.beta1, settings.beta2, settings.epsilon));
    this.variables = trainableWeights(rssm.weights).map(([, variable]) => variable);
  }

  step(batch: TrainingBatch): TrainStepFigures {
    checkBatch(this.rssm, batch);
    const terms: tf.Scalar[] = [];
    const { value, grads } = tf.variableGrads(() => {
      const loss = this.rssm.loss(batch);
      terms.push(...[loss.decoder, loss.reward, loss.continuation, loss.klNats].map((term) => tf.keep(term)));
      return loss.total;
    }, this.variables);
    // Adam keys its moments by position: every weight gets its gradient in the same order every step,
    // undefined (zero) for a head this batch does not train, e.g. the reward head before any reward exists.
    const gradNorm = this.optimizer.step(
      this.variables,
      this.variables.map((variable) => grads[variable.name]),
      this.rssm.config.clipGradNorm,
    );
    const [decoder, reward, continuation, klNats] = terms.map((term) => term.dataSync()[0]!) as [number, number, number, number];
    const total = value.dataSync()[0]!;
    tf.dispose([value, ...terms, ...Object.values(grads)]);
    if (!Number.isFinite(gradNorm)) {
      // One bad batch must not poison the weights: the update was skipped, and the caller is told.
      throw new RangeError(`world-model training step ${this.steps + 1}: the gradient is not finite (norm ${gradNorm}); the update was skipped`);
    }
    this.steps++;
    return { total, decoder, reward, continuation, klNats, gradNorm };
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}

/** The clipped step with TensorFlow.js ops and tf.train.adam, for every backend without a fused one. */
class TfClippedAdam implements ClippedAdam {
  constructor(private readonly adam: tf.AdamOptimizer) {}

  step(variables: tf.Variable[], gradients: (tf.Tensor | undefined)[], clipNorm: number): number {
    return tf.tidy(() => {
      const complete = gradients.map((gradient, index) => gradient ?? tf.zerosLike(variables[index]!));
      const norm = tf.sqrt(tf.addN(complete.map((gradient) => tf.sum(tf.square(gradient))))).dataSync()[0]!;
      if (!Number.isFinite(norm)) return norm;
      const scale = norm > clipNorm ? clipNorm / norm : 1;
      const applied = scale === 1 ? complete : complete.map((gradient) => tf.mul(gradient, scale));
      this.adam.applyGradients(variables.map((variable, index) => ({ name: variable.name, tensor: applied[index]! })));
      return norm;
    });
  }

  getWeights(): Promise<NamedTensor[]> {
    return this.adam.getWeights();
  }

  setWeights(weights: NamedTensor[]): Promise<void> {
    return this.adam.setWeights(weights);
  }

  dispose(): void {
    this.adam.dispose();
  }
}

function checkBatch(rssm: Rssm, batch: TrainingBatch): void {
  const rows = batch.batch * batch.length;
  if (!(Number.isInteger(batch.batch) && batch.batch >= 1 && Number.isInteger(batch.length) && batch.length >= 1)) {
    throw new RangeError(`a training batch needs whole batch and length ≥ 1, got ${batch.batch} × ${batch.length}`);
  }
  const expect = (name: keyof TrainingBatch, perRow: number) => {
    const values = batch[name] as Float32Array;
    if (values.length !== rows * perRow)
      throw new RangeError(`training batch ${name}: expected ${rows * perRow} values (${batch.batch} × ${batch.length} × ${perRow}), got ${values.length}`);
  };
  expect('embeddings', rssm.config.embeddingSize);
  expect('previousActions', rssm.config.actionSize);
  expect('rewards', 1);
  expect('rewardKnown', 1);
  expect('continues', 1);
}
