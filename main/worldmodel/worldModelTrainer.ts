// One optimiser step of the world model, as the reference takes it: loss, backward, gradients
// clipped to a global norm, Adam. Returns the loss terms as numbers for the UI and the log.
import * as tf from '@tensorflow/tfjs-core';
import type { Rssm, TrainingBatch } from './rssm.ts';
import { namedWeights } from './rssmWeights.ts';

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

export class WorldModelTrainer {
  readonly optimizer: tf.AdamOptimizer;
  private readonly variables: tf.Variable[];
  steps = 0;

  constructor(readonly rssm: Rssm) {
    this.optimizer = tf.train.adam(rssm.config.learningRate, ADAM_BETA1, ADAM_BETA2, ADAM_EPSILON);
    this.variables = namedWeights(rssm.weights).map(([, variable]) => variable);
  }

  step(batch: TrainingBatch): TrainStepFigures {
    checkBatch(this.rssm, batch);
    const terms: tf.Scalar[] = [];
    const { value, grads } = tf.variableGrads(() => {
      const loss = this.rssm.loss(batch);
      terms.push(...[loss.decoder, loss.reward, loss.continuation, loss.klNats].map((term) => tf.keep(term)));
      return loss.total;
    }, this.variables);
    // Adam keys its moments by position: every weight gets a gradient, in the same order, every step
    // (zero for a head this batch does not train, e.g. the reward head before any reward exists).
    for (const variable of this.variables) grads[variable.name] ??= tf.zerosLike(variable);
    const ordered: tf.NamedTensorMap = Object.fromEntries(this.variables.map((variable) => [variable.name, grads[variable.name]!]));
    const gradNorm = tf.tidy(() => tf.sqrt(tf.addN(Object.values(ordered).map((grad) => tf.sum(tf.square(grad))))).dataSync()[0]!);
    if (!Number.isFinite(gradNorm)) {
      tf.dispose([value, ...terms, ...Object.values(ordered)]);
      // One bad batch must not poison the weights: the update is skipped and the caller told.
      throw new RangeError(`world-model training step ${this.steps + 1}: the gradient is not finite (norm ${gradNorm}); the update was skipped`);
    }
    const scale = gradNorm > this.rssm.config.clipGradNorm ? this.rssm.config.clipGradNorm / gradNorm : 1;
    const applied = scale === 1 ? ordered : tf.tidy(() => Object.fromEntries(Object.entries(ordered).map(([name, grad]) => [name, tf.mul(grad, scale)])));
    this.optimizer.applyGradients(applied as tf.NamedTensorMap as Parameters<tf.AdamOptimizer["applyGradients"]>[0]);
    const [decoder, reward, continuation, klNats] = terms.map((term) => term.dataSync()[0]!) as [number, number, number, number];
    const total = value.dataSync()[0]!;
    tf.dispose([value, ...terms, ...Object.values(ordered), ...(applied === ordered ? [] : Object.values(applied))]);
    this.steps++;
    return { total, decoder, reward, continuation, klNats, gradNorm };
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}

function checkBatch(rssm: Rssm, batch: TrainingBatch): void {
  const rows = batch.batch * batch.length;
  if (!(Number.isInteger(batch.batch) && batch.batch >= 1 && Number.isInteger(batch.length) && batch.length >= 1)) {
    throw new RangeError(`a training batch needs whole batch and length ≥ 1, got ${batch.batch} × ${batch.length}`);
  }
  const expect = (name: keyof TrainingBatch, perRow: number) => {
    const values = batch[name] as Float32Array;
    if (values.length !== rows * perRow) throw new RangeError(`training batch ${name}: expected ${rows * perRow} values (${batch.batch} × ${batch.length} × ${perRow}), got ${values.length}`);
  };
  expect('embeddings', rssm.config.embeddingSize);
  expect('previousActions', rssm.config.actionSize);
  expect('rewards', 1);
  expect('rewardKnown', 1);
  expect('continues', 1);
}
