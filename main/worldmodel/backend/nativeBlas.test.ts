import { describe, expect, it } from 'vitest';
import { nativeBlasForTests, seededFloats } from '../../../test/support/nativeBlasForTests.ts';
import { loadNativeBlas } from './nativeBlas.ts';

const blas = nativeBlasForTests();

/** Row-major op(a)·op(b) in float64, the reference the addon must match. */
function referenceProduct(transA: boolean, transB: boolean, m: number, n: number, k: number, a: Float32Array, b: Float32Array): Float64Array {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += a[transA ? p * m + i : i * k + p]! * b[transB ? j * k + p : p * n + j]!;
      c[i * n + j] = sum;
    }
  }
  return c;
}

function expectClose(actual: Float32Array, expected: ArrayLike<number>): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < actual.length; i++) expect(actual[i]).toBeCloseTo(expected[i]!, 4);
}

describe('loadNativeBlas', () => {
  it('reports a missing addon as a reason instead of throwing', () => {
    const result = loadNativeBlas('/nonexistent/reins_blas.node');
    expect(result.loaded).toBe(false);
    if (!result.loaded) expect(result.reason).toMatch(/reins_blas\.node is not built \(run node native\/build\.mjs/);
  });
});

describe.skipIf(!blas)('the OpenBLAS addon', () => {
  const native = blas!;

  it.each([
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ])('multiplies row-major matrices (transA=%s, transB=%s)', (transA, transB) => {
    const [m, n, k] = [5, 7, 3];
    const a = seededFloats(m * k, 1);
    const b = seededFloats(k * n, 2);
    const c = new Float32Array(m * n).fill(Number.NaN);
    native.sgemm(transA, transB, m, n, k, a, b, c);
    expectClose(c, referenceProduct(transA, transB, m, n, k, a, b));
  });

  it('accumulates into c with beta and reads subarrays at their byte offset', () => {
    const backing = seededFloats(2 + 6 + 6, 3);
    const a = backing.subarray(2, 8); // 2×3
    const b = backing.subarray(8, 14); // 3×2
    const c = new Float32Array([1, 2, 3, 4]);
    native.sgemm(false, false, 2, 2, 3, a, b, c, 1);
    const product = referenceProduct(false, false, 2, 2, 3, a, b);
    expectClose(c, [1 + product[0]!, 2 + product[1]!, 3 + product[2]!, 4 + product[3]!]);
  });

  it('multiplies a strided batch and broadcasts an input with stride 0', () => {
    const [batch, m, n, k] = [3, 4, 2, 5];
    const a = seededFloats(batch * m * k, 4);
    const b = seededFloats(k * n, 5);
    const c = new Float32Array(batch * m * n);
    native.sgemmBatched(batch, false, false, m, n, k, a, m * k, b, 0, c, m * n);
    for (let i = 0; i < batch; i++) {
      expectClose(c.subarray(i * m * n, (i + 1) * m * n), referenceProduct(false, false, m, n, k, a.subarray(i * m * k, (i + 1) * m * k), b));
    }
  });

  it('writes zeros for an empty shared dimension', () => {
    const c = new Float32Array([5, 5]);
    native.sgemm(false, false, 1, 2, 0, new Float32Array(0), new Float32Array(0), c);
    expect([...c]).toEqual([0, 0]);
  });

  it.each([
    [
      'a non-boolean transpose',
      () => native.sgemm(1 as unknown as boolean, false, 1, 1, 1, new Float32Array(1), new Float32Array(1), new Float32Array(1)),
      TypeError,
      /sgemm: transA must be a boolean/,
    ],
    [
      'a fractional size',
      () => native.sgemm(false, false, 1.5, 1, 1, new Float32Array(2), new Float32Array(1), new Float32Array(2)),
      RangeError,
      /m must be a whole number in \[0, 2147483647\], got 1\.5/,
    ],
    [
      'a negative size',
      () => native.sgemm(false, false, -1, 1, 1, new Float32Array(1), new Float32Array(1), new Float32Array(1)),
      RangeError,
      /m must be a whole number/,
    ],
    [
      'a Float64Array',
      () => native.sgemm(false, false, 1, 1, 1, new Float64Array(1) as unknown as Float32Array, new Float32Array(1), new Float32Array(1)),
      TypeError,
      /a must be a Float32Array/,
    ],
    [
      'a too-short output',
      () => native.sgemm(false, false, 2, 2, 2, new Float32Array(4), new Float32Array(4), new Float32Array(3)),
      RangeError,
      /c has 3 elements but the shapes need at least 4/,
    ],
    [
      'a too-short input',
      () => native.sgemm(false, false, 2, 2, 2, new Float32Array(3), new Float32Array(4), new Float32Array(4)),
      RangeError,
      /a has 3 elements but the shapes need at least 4/,
    ],
    [
      'an output sharing memory with an input',
      () => {
        const x = new Float32Array(4);
        native.sgemm(false, false, 2, 2, 2, x, new Float32Array(4), x);
      },
      RangeError,
      /c must not share memory with a/,
    ],
    ['missing arguments', () => (native.sgemm as unknown as () => void)(), TypeError, /sgemm: expects at least 8 arguments, got 0/],
    [
      'a non-finite beta',
      () => native.sgemm(false, false, 1, 1, 1, new Float32Array(1), new Float32Array(1), new Float32Array(1), Number.NaN),
      RangeError,
      /beta must be finite/,
    ],
    [
      'a batch too long for its input',
      () => native.sgemmBatched(3, false, false, 2, 2, 2, new Float32Array(8), 4, new Float32Array(4), 0, new Float32Array(12), 4),
      RangeError,
      /sgemmBatched: a has 8 elements but the shapes need at least 12/,
    ],
    [
      'overlapping batch outputs',
      () => native.sgemmBatched(2, false, false, 2, 2, 2, new Float32Array(4), 0, new Float32Array(4), 0, new Float32Array(8), 2),
      RangeError,
      /cStride must be at least m\*n/,
    ],
    [
      'a negative stride',
      () => native.sgemmBatched(1, false, false, 1, 1, 1, new Float32Array(1), -1, new Float32Array(1), 0, new Float32Array(1), 1),
      RangeError,
      /aStride must be a whole number/,
    ],
    [
      'an element-wise op out of range',
      () => native.elementwiseUnary(12, new Float32Array(2), new Float32Array(2)),
      RangeError,
      /elementwiseUnary: op must be a whole number in \[0, 11\]/,
    ],
    [
      'a row that does not divide the output',
      () => native.elementwiseBinary(0, new Float32Array(6), 0, 0, new Float32Array(4), 2, 4, new Float32Array(6)),
      RangeError,
      /elementwiseBinary: bSize must be ≥ 1 and divide the output's 6 elements, got 4/,
    ],
    [
      'a column operand too short',
      () => native.elementwiseBinary(1, new Float32Array(6), 0, 0, new Float32Array(1), 3, 3, new Float32Array(6)),
      RangeError,
      /elementwiseBinary: b has 1 elements but the shapes need at least 2/,
    ],
    [
      'an unknown layout',
      () => native.elementwiseBinary(2, new Float32Array(2), 7, 0, new Float32Array(2), 0, 0, new Float32Array(2)),
      RangeError,
      /elementwiseBinary: aLayout must be 0–3, got 7/,
    ],
    [
      'an element-wise output overlapping its input',
      () => {
        const shared = new Float32Array(8);
        native.elementwiseUnary(1, shared.subarray(0, 4), shared.subarray(2, 6));
      },
      RangeError,
      /elementwiseUnary: out must not share memory with input/,
    ],
    ['zero threads', () => native.setOpenblasThreads(0), RangeError, /setOpenblasThreads: threads must be a whole number in \[1, 1024\]/],
  ])('throws a clear error for %s', (_case, call, errorType, message) => {
    expect(call).toThrow(errorType);
    expect(call).toThrow(message);
  });

  it('sets and reports the OpenBLAS thread count', () => {
    const before = native.openblasThreads();
    native.setOpenblasThreads(1);
    expect(native.openblasThreads()).toBe(1);
    native.setOpenblasThreads(before);
    expect(native.openblasThreads()).toBe(before);
  });
});
