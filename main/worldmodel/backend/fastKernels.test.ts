// The 'native' backend's element-wise, slicing and reduction kernels must give what the cpu
// backend gives, for the layouts they run themselves and for those they hand back to cpu.
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { nativeBlasForTests } from '../../../test/support/nativeBlasForTests.ts';
import { loadWorldModelBackend } from './selectBackend.ts';

const blas = nativeBlasForTests();

/** Runs `build` on both backends with the same inputs and returns both results as plain arrays. */
async function onBoth(build: () => tf.Tensor | tf.Tensor[]): Promise<{ cpu: number[][]; native: number[][] }> {
  const run = async (backend: string) => {
    await tf.setBackend(backend);
    const result = tf.tidy(build);
    const tensors = Array.isArray(result) ? result : [result];
    const values = tensors.map((tensor) => [...tensor.dataSync()]);
    const shapes = tensors.map((tensor) => tensor.shape.join('×'));
    tf.dispose(tensors);
    return { values, shapes };
  };
  const cpu = await run('cpu');
  const ours = await run('native');
  expect(ours.shapes).toEqual(cpu.shapes);
  return { cpu: cpu.values, native: ours.values };
}

function expectClose(actual: number[][], expected: number[][], tolerance = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((values, index) => {
    const reference = expected[index]!;
    expect(values.length).toBe(reference.length);
    values.forEach((value, i) => {
      const want = reference[i]!;
      if (Number.isNaN(want)) expect(value).toBeNaN();
      else if (!Number.isFinite(want)) expect(value).toBe(want);
      else expect(Math.abs(value - want)).toBeLessThanOrEqual(tolerance * Math.max(1, Math.abs(want)));
    });
  });
}

const random = (shape: number[], seed: number) => tf.randomUniform(shape, -2, 2, 'float32', seed);

describe.skipIf(blas === undefined)('the native backend’s own element-wise and layout kernels', () => {
  beforeAll(async () => {
    await loadWorldModelBackend('native');
  });

  it('binary ops broadcast as cpu does: equal shapes, scalars, rows, columns and the general case', async () => {
    const pairs: [number[], number[]][] = [
      [
        [4, 5],
        [4, 5],
      ],
      [[4, 5], []],
      [[], [4, 5]],
      [[4, 5], [5]],
      [[5], [4, 5]],
      [
        [4, 5],
        [1, 5],
      ],
      [
        [4, 5],
        [4, 1],
      ],
      [
        [4, 1],
        [4, 5],
      ],
      [
        [3, 1, 5],
        [4, 1],
      ],
    ];
    for (const [aShape, bShape] of pairs) {
      const { cpu, native: ours } = await onBoth(() => {
        const [a, b] = [random(aShape, 1), random(bShape, 2)];
        return [tf.add(a, b), tf.sub(a, b), tf.mul(a, b), tf.div(a, b), tf.maximum(a, b), tf.minimum(a, b), tf.squaredDifference(a, b)];
      });
      expectClose(ours, cpu);
    }
  });

  it('unary ops match, NaN and infinities included', async () => {
    const { cpu, native: ours } = await onBoth(() => {
      const x = tf.concat([random([50], 3), tf.tensor1d([0, -0, NaN, Infinity, -Infinity, 1e-30, 3e-5, -9.9e-5, 1e-4, 0.5, -2, 40, -40])]);
      const positive = tf.abs(x);
      return [
        tf.abs(x),
        tf.exp(x),
        tf.expm1(x),
        tf.log(positive),
        tf.log1p(positive),
        tf.neg(x),
        tf.rsqrt(positive),
        tf.sigmoid(x),
        tf.sign(x),
        tf.sqrt(positive),
        tf.square(x),
        tf.tanh(x),
      ];
    });
    expectClose(ours, cpu);
  });

  it('slices, splits, sums, means and softmax match on the layouts they run and those they pass on', async () => {
    const { cpu, native: ours } = await onBoth(() => {
      const x = random([3, 4, 6], 4);
      return [
        tf.slice(x, [0, 1, 0], [3, 2, 6]),
        tf.slice(x, [0, 0, 2], [3, 4, 3]),
        tf.slice(x, [1, 1, 1], [2, 2, 2]),
        ...tf.split(x, [2, 4], 2),
        ...tf.split(x, 2, 1),
        tf.sum(x, 0),
        tf.sum(x, -1, true),
        tf.sum(x, [0, 1]),
        tf.sum(x, [0, 2]),
        tf.mean(x, 1),
        tf.mean(x),
        tf.softmax(x),
        tf.softmax(tf.reshape(x, [12, 6])),
      ];
    });
    expectClose(ours, cpu);
  });

  it('leaves other dtypes to the cpu kernels', async () => {
    const { cpu, native: ours } = await onBoth(() => {
      const a = tf.tensor2d(
        [
          [1, 2],
          [3, 4],
        ],
        [2, 2],
        'int32',
      );
      return [tf.add(a, tf.scalar(3, 'int32')), tf.sum(a, 0), tf.slice(a, [0, 1], [2, 1]), tf.neg(a)];
    });
    expect(ours).toEqual(cpu);
  });
});
