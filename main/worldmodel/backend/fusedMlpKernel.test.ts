import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
// The world model's own import; it also registers tfjs-core's gradients.
import '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { nativeBlasForTests, seededFloats } from '../../../test/support/nativeBlasForTests.ts';
import { mlp, MLP_KERNEL, MLP_KERNEL_INPUTS } from '../rssmLayers.ts';
import type { Mlp } from '../rssmWeights.ts';
import { MLP_GRAD_KERNEL } from './fusedMlpKernel.ts';
import { NATIVE_BACKEND_NAME, registerNativeBackend } from './nativeBackend.ts';

const blas = nativeBlasForTests();
const EPSILON = 1e-3;

interface Case {
  rows: number;
  inputs: number;
  hidden: number;
  outputs: number;
}

const TINY: Case = { rows: 3, inputs: 5, hidden: 4, outputs: 2 };
const MEDIUM: Case = { rows: 96, inputs: 40, hidden: 64, outputs: 24 };

type Numbers = Record<string, number[]>;

/** An MLP whose gain and shift are away from 1 and 0 (so their gradients count), an input and a loss's coefficients. */
function setUp({ rows, inputs, hidden, outputs }: Case) {
  const variable = (shape: number[], seed: number, map: (v: number) => number = (v) => v) =>
    tf.variable(
      tf.tensor(
        seededFloats(
          shape.reduce((a, b) => a * b, 1),
          seed,
        ).map(map),
        shape,
      ),
    );
  const layers: Mlp = {
    hidden: { weight: variable([inputs, hidden], 1), bias: variable([hidden], 2, (v) => 0.3 * v) },
    norm: { gain: variable([hidden], 3, (v) => 1 + 0.3 * v), shift: variable([hidden], 4, (v) => 0.2 * v) },
    out: { weight: variable([hidden, outputs], 5), bias: variable([outputs], 6) },
  };
  const input = variable([rows, inputs], 7, (v) => 2 * v);
  const coefficients = tf.tensor2d(seededFloats(rows * outputs, 8), [rows, outputs]);
  const named: Record<(typeof MLP_KERNEL_INPUTS)[number], tf.Variable> = {
    input,
    hiddenWeight: layers.hidden.weight,
    hiddenBias: layers.hidden.bias,
    gain: layers.norm.gain,
    shift: layers.norm.shift,
    outWeight: layers.out.weight,
    outBias: layers.out.bias,
  };
  return { layers, input, coefficients, named };
}

function tearDown({ named, coefficients }: ReturnType<typeof setUp>): void {
  tf.dispose([...Object.values(named), coefficients]);
}

/** What one backend computes: the output, and a random linear functional's gradient by every input. */
async function mlpOn(backend: string, testCase: Case): Promise<{ output: number[]; grads: Numbers }> {
  await tf.setBackend(backend);
  const made = setUp(testCase);
  let output: number[] = [];
  const { grads } = tf.variableGrads(() => {
    const y = mlp(made.layers, made.input as tf.Tensor2D, EPSILON);
    output = [...y.dataSync()];
    return tf.sum(tf.mul(y, made.coefficients)) as tf.Scalar;
  }, Object.values(made.named));
  const byName = Object.fromEntries(Object.entries(made.named).map(([name, variable]) => [name, [...grads[variable.name]!.dataSync()]]));
  tf.dispose(Object.values(grads));
  tearDown(made);
  return { output, grads: byName };
}

/** Largest difference, relative to the reference's largest magnitude. */
function relativeError(actual: number[], reference: number[]): number {
  const scale = Math.max(1e-12, ...reference.map(Math.abs));
  return Math.max(0, ...actual.map((value, i) => Math.abs(value - reference[i]!))) / scale;
}

function expectClose(actual: Numbers, reference: Numbers, tolerance: number): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(reference).sort());
  const over = Object.keys(reference)
    .map((name) => [name, relativeError(actual[name]!, reference[name]!)] as const)
    .filter(([, error]) => !(error < tolerance));
  expect(over, `relative errors over ${tolerance}`).toEqual([]);
}

describe.skipIf(!blas)("the fused MLP kernel on the 'native' backend", () => {
  beforeAll(async () => {
    registerNativeBackend(blas!);
    await tf.setBackend(NATIVE_BACKEND_NAME);
  });

  it('is what mlp runs on native, and only there', () => {
    expect(tf.getKernel(MLP_KERNEL, NATIVE_BACKEND_NAME)).toBeDefined();
    expect(tf.getKernel(MLP_KERNEL, 'cpu')).toBeUndefined();
  });

  it.each([
    ['tiny', TINY],
    ['medium', MEDIUM],
  ])('computes a %s MLP and all its gradients as the op-by-op version does', async (_, testCase) => {
    const fused = await mlpOn(NATIVE_BACKEND_NAME, testCase);
    const reference = await mlpOn('cpu', testCase);
    expect(relativeError(fused.output, reference.output)).toBeLessThan(1e-5);
    expectClose(fused.grads, reference.grads, 1e-4);
  });

  it('recomputes the forward when the gradient kernel runs without a kept forward', async () => {
    const reference = await mlpOn('cpu', MEDIUM);
    await tf.setBackend(NATIVE_BACKEND_NAME);
    const made = setUp(MEDIUM);
    const grads = tf.engine().runKernel(MLP_GRAD_KERNEL, { ...made.named, dOutput: made.coefficients }, { epsilon: EPSILON }) as tf.Tensor[];
    const byName = Object.fromEntries(MLP_KERNEL_INPUTS.map((name, index) => [name, [...grads[index]!.dataSync()]]));
    tf.dispose(grads);
    tearDown(made);
    expectClose(byName, reference.grads, 1e-4);
  });

  it('runs outside a tape (filtering, imagining) and holds no tensor afterwards', async () => {
    await tf.setBackend(NATIVE_BACKEND_NAME);
    const made = setUp(TINY);
    const before = tf.memory().numTensors;
    const output = tf.tidy(() => mlp(made.layers, made.input as tf.Tensor2D, EPSILON));
    expect(output.shape).toEqual([TINY.rows, TINY.outputs]);
    output.dispose();
    expect(tf.memory().numTensors).toBe(before);
    tearDown(made);
  });

  it('names the shapes when they do not fit together', async () => {
    await tf.setBackend(NATIVE_BACKEND_NAME);
    const made = setUp(TINY);
    const wrong = tf.zeros([TINY.rows, TINY.inputs + 1]) as tf.Tensor2D;
    expect(() => mlp(made.layers, wrong, EPSILON)).toThrow(/fused MLP kernel: shapes do not fit together: input \[3, 6\], hiddenWeight \[5, 4\]/);
    wrong.dispose();
    tearDown(made);
  });

  it('rejects a layer-norm backward whose arrays are too short, instead of writing past them', () => {
    const enough = new Float32Array(16);
    expect(() => blas!.layerNormSiluBackward(enough, enough, enough, enough, enough, new Float32Array(4), 2, enough, new Float32Array(3), enough)).toThrow(
      /layerNormSiluBackward: dGain has 3 elements/,
    );
  });
});
