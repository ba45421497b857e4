import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
// The world model's own import; it also registers tfjs-core's gradients and chained ops.
import '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { nativeBlasForTests, seededFloats } from '../../../test/support/nativeBlasForTests.ts';
import { NATIVE_BACKEND_NAME, registerNativeBackend } from './nativeBackend.ts';

const blas = nativeBlasForTests();
type Activation = 'linear' | 'relu' | 'prelu' | 'elu' | 'relu6' | 'leakyrelu' | 'sigmoid';

let seed = 100;
function input(shape: number[]): Float32Array {
  return seededFloats(
    shape.reduce((a, b) => a * b, 1),
    seed++,
  );
}

/** Runs `compute` on a backend and returns its result as plain numbers (tensors made inside are freed). */
async function on(backend: string, compute: () => tf.Tensor | tf.Tensor[]): Promise<{ shape: number[]; dtype: string; values: number[] }[]> {
  await tf.setBackend(backend);
  const outputs = tf.tidy(compute);
  const list = Array.isArray(outputs) ? outputs : [outputs];
  const results = list.map((t) => ({ shape: t.shape, dtype: t.dtype, values: [...t.dataSync()] }));
  tf.dispose(list);
  return results;
}

function expectSameResults(native: Awaited<ReturnType<typeof on>>, cpu: Awaited<ReturnType<typeof on>>): void {
  expect(native.map((r) => [r.shape, r.dtype])).toEqual(cpu.map((r) => [r.shape, r.dtype]));
  native.forEach((result, index) => {
    const reference = cpu[index]!.values;
    const scale = 1 + Math.max(0, ...reference.map(Math.abs));
    const worst = Math.max(0, ...result.values.map((v, i) => Math.abs(v - reference[i]!)));
    expect(worst / scale).toBeLessThan(1e-5);
  });
}

async function expectNativeMatchesCpu(compute: () => tf.Tensor | tf.Tensor[]): Promise<void> {
  expectSameResults(await on(NATIVE_BACKEND_NAME, compute), await on('cpu', compute));
}

describe.skipIf(!blas)("the 'native' TF.js backend", () => {
  beforeAll(() => registerNativeBackend(blas!));

  it.each([
    [
      [1, 1],
      [1, 1],
    ],
    [
      [3, 5],
      [5, 7],
    ],
    [
      [16, 33],
      [33, 9],
    ],
    [
      [2, 64, 17],
      [2, 17, 31],
    ],
    [
      [7, 1],
      [1, 4],
    ],
  ])('matches the cpu backend for %j·%j with every transpose', async (aShape, bShape) => {
    const transpose = (shape: number[]) => [...shape.slice(0, -2), shape.at(-1)!, shape.at(-2)!];
    for (const [transposeA, transposeB] of [
      [false, false],
      [true, false],
      [false, true],
      [true, true],
    ] as const) {
      const a = input(transposeA ? transpose(aShape) : aShape);
      const b = input(transposeB ? transpose(bShape) : bShape);
      await expectNativeMatchesCpu(() =>
        tf.matMul(tf.tensor(a, transposeA ? transpose(aShape) : aShape), tf.tensor(b, transposeB ? transpose(bShape) : bShape), transposeA, transposeB),
      );
    }
  });

  it.each([
    [
      [3, 4, 5],
      [5, 6],
    ],
    [
      [4, 5],
      [3, 5, 6],
    ],
    [
      [2, 3, 4, 5],
      [2, 3, 5, 6],
    ],
    [
      [1, 4, 5],
      [3, 5, 6],
    ],
    [
      [2, 1, 4, 5],
      [3, 5, 6],
    ],
  ])('broadcasts batch dimensions %j·%j', async (aShape, bShape) => {
    const [a, b] = [input(aShape), input(bShape)];
    const batchShape = tf.broadcast_util.assertAndGetBroadcastShape(aShape.slice(0, -2), bShape.slice(0, -2));
    const native = await on(NATIVE_BACKEND_NAME, () => tf.matMul(tf.tensor(a, aShape), tf.tensor(b, bShape)));
    // The reference broadcasts explicitly: the cpu kernel indexes batches modulo their size, which is
    // right only when one side's batch is 1 or both are equal.
    const cpu = await on('cpu', () =>
      tf.matMul(
        tf.broadcastTo(tf.tensor(a, aShape), [...batchShape, ...aShape.slice(-2)]),
        tf.broadcastTo(tf.tensor(b, bShape), [...batchShape, ...bShape.slice(-2)]),
      ),
    );
    expectSameResults(native, cpu);
  });

  const activations: Activation[] = ['linear', 'relu', 'elu', 'relu6', 'leakyrelu', 'sigmoid', 'prelu'];
  it.each(activations)('fuses bias and %s activation like the cpu backend', async (activation) => {
    const [m, k, n] = [6, 9, 5];
    for (const biasShape of [[n], [1, n], [1], [m, n], [m, 1]]) {
      const [a, b, bias, alpha] = [input([k, m]), input([k, n]), input(biasShape), input([n])];
      await expectNativeMatchesCpu(() =>
        tf.fused.matMul({
          a: tf.tensor(a, [k, m]),
          b: tf.tensor(b, [k, n]),
          transposeA: true,
          bias: tf.tensor(bias, biasShape),
          activation,
          preluActivationWeights: tf.tensor(alpha, [n]),
          leakyreluAlpha: 0.1,
        }),
      );
    }
  });

  it('fuses an activation without a bias', async () => {
    const [a, b] = [input([2, 4, 3]), input([2, 5, 3])];
    await expectNativeMatchesCpu(() => tf.fused.matMul({ a: tf.tensor(a, [2, 4, 3]), b: tf.tensor(b, [2, 5, 3]), transposeB: true, activation: 'relu' }));
  });

  it("multiplies the world model's layer shape 16×514·514×1536 like the cpu backend", async () => {
    const [a, b, bias] = [input([16, 514]), input([514, 1536]), input([1536])];
    await expectNativeMatchesCpu(() =>
      tf.fused.matMul({ a: tf.tensor(a, [16, 514]), b: tf.tensor(b, [514, 1536]), bias: tf.tensor(bias, [1536]), activation: 'elu' }),
    );
  });

  it('multiplies 1024×1024·1024×256 (checked at sampled entries against float64 sums)', async () => {
    const [m, k, n] = [1024, 1024, 256];
    const [a, b] = [input([m, k]), input([k, n])];
    const { values } = (await on(NATIVE_BACKEND_NAME, () => tf.matMul(tf.tensor(a, [m, k]), tf.tensor(b, [k, n]))))[0]!;
    for (let sample = 0; sample < 64; sample++) {
      const [i, j] = [(sample * 337) % m, (sample * 101) % n];
      let sum = 0;
      for (let p = 0; p < k; p++) sum += a[i * k + p]! * b[p * n + j]!;
      expect(values[i * n + j]).toBeCloseTo(sum, 3);
    }
  });

  it('gives the same gradients as the cpu backend', async () => {
    const [a, b, bias] = [input([3, 4, 6]), input([3, 6, 5]), input([5])];
    const gradients = () => {
      const loss = (x: tf.Tensor, y: tf.Tensor, z: tf.Tensor) =>
        tf.sum(tf.square(tf.fused.matMul({ a: x as tf.Tensor3D, b: y as tf.Tensor3D, bias: z, activation: 'relu' })));
      const plain = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.matMul(x, y, true, false)))([tf.tensor(a, [3, 6, 4]), tf.tensor(b, [3, 6, 5])]);
      return [...tf.grads(loss)([tf.tensor(a, [3, 4, 6]), tf.tensor(b, [3, 6, 5]), tf.tensor(bias, [5])]), ...plain];
    };
    await expectNativeMatchesCpu(gradients);
  });

  it('leaves int32 products to the cpu kernel', async () => {
    await expectNativeMatchesCpu(() => tf.matMul(tf.tensor2d([1, 2, 3, 4], [2, 2], 'int32'), tf.tensor2d([5, 6, 7, 8], [2, 2], 'int32')));
  });

  it('runs the other cpu kernels and frees every intermediate buffer', async () => {
    await tf.setBackend(NATIVE_BACKEND_NAME);
    const before = tf.memory().numTensors;
    const dataBefore = tf.engine().backend.numDataIds();
    const out = tf.tidy(() =>
      tf.sum(tf.fused.matMul({ a: tf.ones([2, 3]), b: tf.ones([3, 4]), bias: tf.ones([2, 4]), activation: 'prelu', preluActivationWeights: tf.ones([4]) })),
    );
    expect(out.dataSync()[0]).toBe(32);
    out.dispose();
    expect(tf.memory().numTensors).toBe(before);
    expect(tf.engine().backend.numDataIds()).toBe(dataBefore);
  });

  it("rejects mismatched inner dimensions with the cpu kernel's message", async () => {
    await tf.setBackend(NATIVE_BACKEND_NAME);
    expect(() => tf.matMul(tf.ones([2, 3]), tf.ones([4, 2]))).toThrow(/inner shapes \(3\) and \(4\)/);
  });
});
