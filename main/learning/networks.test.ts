// The learners' optimiser step: on the 'native' backend it is the world model's fused Adam, which must
// take the steps tf.train.adam takes on cpu (clipped or not), and skip a step whose loss is not finite.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeBlasForTests, seededFloats } from '../../test/support/nativeBlasForTests.ts';
import { NATIVE_BACKEND_NAME, registerNativeBackend } from '../worldmodel/backend/nativeBackend.ts';
import { applyMlp, applyMlpToRow, ClippedAdamStep, initialMlpWeights, readWeights, type MlpShape } from './networks.ts';

const blas = nativeBlasForTests();
const SHAPE: MlpShape = { inputs: 6, hidden: 8, layers: 2, outputs: 2 };
const ROWS = 12;

/** Weights after `steps` clipped Adam steps of a squared error on `backend`, and each step's loss. */
async function train(backend: string, clipNorm: number, steps: number): Promise<{ weights: Float32Array[]; losses: number[]; path: string }> {
  await tf.setBackend(backend);
  const weights = initialMlpWeights(SHAPE, 3);
  const optimiser = new ClippedAdamStep(weights, 1e-2, clipNorm);
  const path = optimiser.path;
  const inputs = tf.tensor2d(seededFloats(ROWS * SHAPE.inputs, 5), [ROWS, SHAPE.inputs]);
  const targets = tf.tensor2d(
    seededFloats(ROWS * SHAPE.outputs, 6).map((v) => 3 * v),
    [ROWS, SHAPE.outputs],
  );
  const losses: number[] = [];
  for (let step = 0; step < steps; step++) losses.push(optimiser.minimise(() => tf.mean(tf.square(tf.sub(applyMlp(weights, inputs), targets)))));
  const result = { weights: readWeights(weights), losses, path };
  optimiser.dispose();
  tf.dispose([...weights, inputs, targets]);
  return result;
}

describe.skipIf(blas === undefined)('ClippedAdamStep on the native backend', () => {
  beforeAll(() => registerNativeBackend(blas!));
  afterAll(async () => {
    await tf.setBackend('cpu');
  });

  it.each([
    ['unclipped', 1000],
    ['clipped', 0.05],
  ])('takes the steps tf.train.adam takes on cpu (%s)', async (_case, clipNorm) => {
    const reference = await train('cpu', clipNorm, 6);
    const fused = await train(NATIVE_BACKEND_NAME, clipNorm, 6);
    expect([reference.path, fused.path]).toEqual(['tf.train.adam', 'fused']);
    fused.losses.forEach((loss, step) => expect(Math.abs(loss - reference.losses[step]!)).toBeLessThan(1e-5 * Math.max(1, Math.abs(loss))));
    fused.weights.forEach((values, index) => {
      const want = reference.weights[index]!;
      values.forEach((value, i) => expect(Math.abs(value - want[i]!)).toBeLessThan(1e-5));
    });
    expect(fused.losses.at(-1)!).toBeLessThan(fused.losses[0]!);
  });

  it('skips a step whose loss is not finite, leaving the weights as they were', async () => {
    await tf.setBackend(NATIVE_BACKEND_NAME);
    const weights = initialMlpWeights(SHAPE, 3);
    const optimiser = new ClippedAdamStep(weights, 1e-2, 100);
    const start = readWeights(weights);
    const inputs = tf.tensor2d(seededFloats(ROWS * SHAPE.inputs, 5), [ROWS, SHAPE.inputs]);
    expect(optimiser.minimise(() => tf.mul(tf.mean(applyMlp(weights, inputs)), Number.NaN))).toBeNaN();
    expect(readWeights(weights)).toEqual(start);
    optimiser.dispose();
    tf.dispose([...weights, inputs]);
  });
});

describe('applyMlpToRow (the policy’s per-tick forward pass)', () => {
  it('gives applyMlp’s outputs for each row, within float rounding', async () => {
    await tf.setBackend('cpu');
    for (const shape of [SHAPE, { inputs: 256, hidden: 128, layers: 2, outputs: 4 }, { inputs: 5, hidden: 7, layers: 1, outputs: 3 }]) {
      const weights = initialMlpWeights(shape, 9);
      // Gains and shifts away from 1 and 0, so that the layer norm's affine part is exercised.
      weights.forEach((weight, index) => {
        if (weight.rank === 1) weight.assign(tf.tensor(seededFloats(weight.size, 40 + index).map((v) => 1 + v)));
      });
      const values = readWeights(weights);
      const inputs = seededFloats(ROWS * shape.inputs, 7).map((v) => 4 * v);
      const expected = tf.tidy(() => applyMlp(weights, tf.tensor2d(inputs, [ROWS, shape.inputs])).arraySync());
      for (let row = 0; row < ROWS; row++) {
        const got = applyMlpToRow(shape, values, inputs.subarray(row * shape.inputs, (row + 1) * shape.inputs));
        expect(got).toHaveLength(shape.outputs);
        got.forEach((value, j) => expect(Math.abs(value - expected[row]![j]!)).toBeLessThan(1e-4 * Math.max(1, Math.abs(value))));
      }
      tf.dispose(weights);
    }
  });
});
