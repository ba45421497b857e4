import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
// The world model's own import; it also registers tfjs-core's gradients.
import '@tensorflow/tfjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nativeBlasForTests, seededFloats } from '../../../test/support/nativeBlasForTests.ts';
import { Rssm, type TrainingBatch } from '../rssm.ts';
import { disposeWeights, namedWeights, trainableWeights } from '../rssmWeights.ts';
import { worldModelConfig } from '../worldModelConfig.ts';
import { WorldModelTrainer } from '../worldModelTrainer.ts';
import { restoreCheckpoint, snapshotCheckpoint } from '../worldModelCheckpoint.ts';
import { FusedAdam } from './fusedAdam.ts';
import { NATIVE_BACKEND_NAME, registerNativeBackend } from './nativeBackend.ts';

const blas = nativeBlasForTests();
const SETTINGS = { learningRate: 1e-2, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };
const SHAPES = [[7, 5], [5], [3, 4]];
const STEPS = 5;

/** Step k's gradients; the second weight gets none on odd steps (a head the batch does not train). */
function gradientValues(step: number, magnitude: number): (Float32Array | undefined)[] {
  return SHAPES.map((shape, index) =>
    index === 1 && step % 2 === 1
      ? undefined
      : seededFloats(
          shape.reduce((a, b) => a * b, 1),
          100 * step + index,
        ).map((v) => magnitude * v),
  );
}

function initialVariables(): tf.Variable[] {
  return SHAPES.map((shape, index) =>
    tf.variable(
      tf.tensor(
        seededFloats(
          shape.reduce((a, b) => a * b, 1),
          index + 1,
        ),
        shape,
      ),
    ),
  );
}

/** The reference: the norm, the clip and tf.train.adam in TensorFlow.js ops on the cpu backend. */
async function referenceRun(clipNorm: number, magnitude: number): Promise<{ weights: number[][]; norms: number[] }> {
  await tf.setBackend('cpu');
  const variables = initialVariables();
  const adam = tf.train.adam(SETTINGS.learningRate, SETTINGS.beta1, SETTINGS.beta2, SETTINGS.epsilon);
  const norms: number[] = [];
  for (let step = 0; step < STEPS; step++) {
    tf.tidy(() => {
      const grads = gradientValues(step, magnitude).map((values, index) => (values ? tf.tensor(values, SHAPES[index]) : tf.zerosLike(variables[index]!)));
      const norm = tf.sqrt(tf.addN(grads.map((grad) => tf.sum(tf.square(grad))))).dataSync()[0]!;
      norms.push(norm);
      const scale = norm > clipNorm ? clipNorm / norm : 1;
      adam.applyGradients(variables.map((variable, index) => ({ name: variable.name, tensor: tf.mul(grads[index]!, scale) })));
    });
  }
  const weights = variables.map((variable) => [...variable.dataSync()]);
  adam.dispose();
  tf.dispose(variables);
  return { weights, norms };
}

async function fusedRun(clipNorm: number, magnitude: number): Promise<{ weights: number[][]; norms: number[] }> {
  await tf.setBackend(NATIVE_BACKEND_NAME);
  const variables = initialVariables();
  const adam = FusedAdam.forCurrentBackend(SETTINGS)!;
  const norms: number[] = [];
  for (let step = 0; step < STEPS; step++) {
    const grads = gradientValues(step, magnitude).map((values, index) => values && tf.tensor(values, SHAPES[index]));
    norms.push(adam.step(variables, grads, clipNorm));
    tf.dispose(grads.filter((grad) => grad !== undefined));
  }
  const weights = variables.map((variable) => [...variable.dataSync()]);
  adam.dispose();
  tf.dispose(variables);
  return { weights, norms };
}

function expectWeightsClose(actual: number[][], reference: number[][], tolerance: number): void {
  actual.forEach((values, index) => values.forEach((value, i) => expect(Math.abs(value - reference[index]![i]!)).toBeLessThan(tolerance)));
}

const CONFIG = worldModelConfig('wm-xxs', { embeddingSize: 6, deterministicSize: 8, stochasticGroups: 2, classes: 4, hiddenSize: 8 });

function batchOf(length: number, seed: number): TrainingBatch {
  const rows = 2 * length;
  return {
    batch: 2,
    length,
    embeddings: seededFloats(rows * CONFIG.embeddingSize, seed),
    previousActions: seededFloats(rows * CONFIG.actionSize, seed + 1),
    rewards: seededFloats(rows, seed + 2),
    rewardKnown: new Float32Array(rows).fill(1),
    continues: new Float32Array(rows).fill(1),
  };
}

const weightsOf = (rssm: Rssm) => namedWeights(rssm.weights).map(([, variable]) => [...variable.dataSync()]);

/** One optimiser step on fixed gradients (a training step would draw the restored model's own noise). */
function stepOnFixedGradients({ rssm, trainer }: { rssm: Rssm; trainer: WorldModelTrainer }): void {
  const variables = trainableWeights(rssm.weights).map(([, variable]) => variable);
  const grads = variables.map((variable, index) => tf.tensor(seededFloats(variable.size, 500 + index), variable.shape));
  trainer.optimizer.step(variables, grads, CONFIG.clipGradNorm);
  tf.dispose(grads);
}

describe.skipIf(!blas)("the fused Adam step on the 'native' backend", () => {
  beforeAll(async () => {
    registerNativeBackend(blas!);
    await tf.setBackend(NATIVE_BACKEND_NAME);
  });
  afterEach(async () => tf.setBackend(NATIVE_BACKEND_NAME));

  it('is the trainer’s optimiser on native only', async () => {
    expect(FusedAdam.forCurrentBackend(SETTINGS)).toBeInstanceOf(FusedAdam);
    await tf.setBackend('cpu');
    expect(FusedAdam.forCurrentBackend(SETTINGS)).toBeUndefined();
  });

  it.each([
    ['inactive', 1e6],
    ['active', 0.5],
  ])('moves the weights as clipping and tf.train.adam do, clipping %s', async (_, clipNorm) => {
    const reference = await referenceRun(clipNorm, 2);
    const fused = await fusedRun(clipNorm, 2);
    fused.norms.forEach((norm, step) => expect(norm).toBeCloseTo(reference.norms[step]!, 4));
    // Five steps of about ±lr each: float32 rounding differences stay far below one step.
    expectWeightsClose(fused.weights, reference.weights, 1e-5);
  });

  it('changes nothing when the gradient is not finite', async () => {
    await tf.setBackend(NATIVE_BACKEND_NAME);
    const variables = initialVariables();
    const before = variables.map((variable) => [...variable.dataSync()]);
    const adam = FusedAdam.forCurrentBackend(SETTINGS)!;
    const grads = SHAPES.map((shape) => tf.fill(shape, Number.NaN));
    expect(adam.step(variables, grads, 1)).toBeNaN();
    expect(variables.map((variable) => [...variable.dataSync()])).toEqual(before);
    expect((await adam.getWeights()).length).toBe(1);
    tf.dispose([...grads, ...variables]);
    adam.dispose();
  });

  it('gives a weight new storage each step, so what was read from it before keeps its values', async () => {
    await tf.setBackend(NATIVE_BACKEND_NAME);
    const initial = tf.tensor([1, 2, 3, 4]);
    const variable = tf.variable(initial);
    const alias = tf.reshape(variable, [2, 2]);
    const read = variable.dataSync();
    const adam = FusedAdam.forCurrentBackend(SETTINGS)!;
    const grad = tf.tensor([1, -1, 1, -1]);
    adam.step([variable], [grad], 1e6);
    // Adam's first step moves each weight by lr against its gradient's sign.
    const moved = [...variable.dataSync()];
    [0.99, 2.01, 2.99, 4.01].forEach((expected, i) => expect(moved[i]).toBeCloseTo(expected, 5));
    expect([...tf.tidy(() => tf.add(variable, 0)).dataSync()]).toEqual(moved);
    for (const before of [initial.dataSync(), alias.dataSync(), read]) expect([...before]).toEqual([1, 2, 3, 4]);
    adam.step([variable], [grad], 1e6);
    expect(variable.dataSync()[0]).toBeCloseTo(0.98, 4);
    tf.dispose([initial, variable, alias, grad]);
    adam.dispose();
  });

  it('trains the world model as the cpu backend’s tf.train.adam does, over several steps', async () => {
    const train = async (backend: string) => {
      await tf.setBackend(backend);
      const rssm = new Rssm(CONFIG, 4);
      const trainer = new WorldModelTrainer(rssm);
      const norms = [0, 1, 2].map((step) => trainer.step(batchOf(5, 10 * step)).gradNorm);
      const weights = weightsOf(rssm);
      trainer.dispose();
      disposeWeights(rssm.weights);
      return { norms, weights };
    };
    const fused = await train(NATIVE_BACKEND_NAME);
    const reference = await train('cpu');
    fused.norms.forEach((norm, step) => expect(norm).toBeCloseTo(reference.norms[step]!, 3));
    expectWeightsClose(fused.weights, reference.weights, 2e-3);
  });

  it('saves and restores its state through a checkpoint, so the next step is the one it would have taken', async () => {
    await tf.setBackend(NATIVE_BACKEND_NAME);
    const rssm = new Rssm(CONFIG, 2);
    const trainer = new WorldModelTrainer(rssm);
    for (let step = 0; step < 3; step++) trainer.step(batchOf(5, step));
    const identity = { version: 'wm-test-3', encoderVersion: 'encoders-a', createdAtMs: 1 };
    const restored = await restoreCheckpoint(await snapshotCheckpoint({ rssm, trainer }, identity), { config: CONFIG, encoderVersion: 'encoders-a' }, 9);
    const state = async (model: WorldModelTrainer) =>
      (await model.optimizer.getWeights()).map(({ name, tensor }) => [name === 'iter' ? 'iter' : name.slice(-2), ...tensor.dataSync()]);
    expect(await state(restored.trainer)).toEqual(await state(trainer));
    stepOnFixedGradients({ rssm, trainer });
    stepOnFixedGradients(restored);
    // Equal but for βᵗ, which a restore computes as a power and training accumulates (tf.train.adam alike).
    expectWeightsClose(weightsOf(restored.rssm), weightsOf(rssm), 1e-6);
    for (const model of [{ rssm, trainer }, restored]) {
      model.trainer.dispose();
      disposeWeights(model.rssm.weights);
    }
  });

  it('restores the state tf.train.adam saved on another backend', async () => {
    await tf.setBackend('cpu');
    const rssm = new Rssm(CONFIG, 2);
    const trainer = new WorldModelTrainer(rssm);
    for (let step = 0; step < 2; step++) trainer.step(batchOf(5, step));
    const checkpoint = await snapshotCheckpoint({ rssm, trainer }, { version: 'wm-test-2', encoderVersion: 'encoders-a', createdAtMs: 1 });
    stepOnFixedGradients({ rssm, trainer });
    await tf.setBackend(NATIVE_BACKEND_NAME);
    const restored = await restoreCheckpoint(checkpoint, { config: CONFIG, encoderVersion: 'encoders-a' }, 9);
    stepOnFixedGradients(restored);
    expectWeightsClose(weightsOf(restored.rssm), weightsOf(rssm), 1e-4);
    for (const model of [{ rssm, trainer }, restored]) {
      model.trainer.dispose();
      disposeWeights(model.rssm.weights);
    }
  });

  it('rejects arrays too short for the weight, instead of writing past them', () => {
    const weight = new Float32Array(8);
    expect(() => blas!.adamUpdate(weight, new Float32Array(8), new Float32Array(8), new Float32Array(3), 1, 1e-3, 0.9, 0.999, 1e-8, 0.1, 0.001)).toThrow(
      /adamUpdate: secondMoment has 3 elements/,
    );
  });
});
