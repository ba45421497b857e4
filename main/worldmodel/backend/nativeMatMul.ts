// A TF.js batch matrix product, [...batchA, m, k]·[...batchB, k, n] → [...broadcast(batchA, batchB), m, n]
// (before transposes), computed by OpenBLAS straight into one Float32Array.
import { broadcast_util, util, type TensorInfo } from '@tensorflow/tfjs-core';
import type { NativeBlas } from './nativeBlas.ts';

export interface MatMulShape {
  transposeA: boolean;
  transposeB: boolean;
  /** Rows of op(a), columns of op(b), and the shared dimension. */
  m: number;
  n: number;
  k: number;
  batchShapeA: number[];
  batchShapeB: number[];
  batchShape: number[];
  outShape: number[];
}

export function matMulShape(a: TensorInfo, b: TensorInfo, transposeA: boolean, transposeB: boolean): MatMulShape {
  const [aRows, aCols] = a.shape.slice(-2) as [number, number];
  const [bRows, bCols] = b.shape.slice(-2) as [number, number];
  const [m, kA] = transposeA ? [aCols, aRows] : [aRows, aCols];
  const [kB, n] = transposeB ? [bCols, bRows] : [bRows, bCols];
  // The same message as the cpu kernel, so errors read alike whichever backend runs.
  util.assert(
    kA === kB,
    () =>
      `Error in matMul: inner shapes (${kA}) and (${kB}) of Tensors with shapes ${a.shape} and ${b.shape} and ` +
      `transposeA=${transposeA} and transposeB=${transposeB} must match.`,
  );
  const batchShapeA = a.shape.slice(0, -2);
  const batchShapeB = b.shape.slice(0, -2);
  const batchShape = broadcast_util.assertAndGetBroadcastShape(batchShapeA, batchShapeB);
  return { transposeA, transposeB, m, n, k: kA, batchShapeA, batchShapeB, batchShape, outShape: [...batchShape, m, n] };
}

/** Index into a (right-aligned, size-1-broadcast) input batch of the output batch `flatIndex`. */
function inputBatchIndex(flatIndex: number, batchShape: number[], inputShape: number[]): number {
  let index = 0;
  let inputStride = 1;
  let rest = flatIndex;
  for (let axis = batchShape.length - 1, inputAxis = inputShape.length - 1; axis >= 0; axis--, inputAxis--) {
    const size = batchShape[axis]!;
    const coordinate = rest % size;
    rest = Math.floor(rest / size);
    if (inputAxis < 0) continue;
    const inputSize = inputShape[inputAxis]!;
    if (inputSize !== 1) index += coordinate * inputStride;
    inputStride *= inputSize;
  }
  return index;
}

/**
 * out = op(a)·op(b) + beta·out for every batch entry. `beta = 1` lets the caller prefill `out`
 * (with a bias) and have BLAS add the product to it.
 */
export function multiplyInto(blas: NativeBlas, shape: MatMulShape, aValues: Float32Array, bValues: Float32Array, out: Float32Array, beta = 0): void {
  const { transposeA, transposeB, m, n, k } = shape;
  const batch = util.sizeFromShape(shape.batchShape);
  const batchA = util.sizeFromShape(shape.batchShapeA);
  const batchB = util.sizeFromShape(shape.batchShapeB);
  const [aSize, bSize, outSize] = [m * k, k * n, m * n];
  // Each input either fills the whole batch or is one matrix shared by all: one strided BLAS call.
  if ((batchA === batch || batchA === 1) && (batchB === batch || batchB === 1)) {
    blas.sgemmBatched(batch, transposeA, transposeB, m, n, k, aValues, batchA === 1 ? 0 : aSize, bValues, batchB === 1 ? 0 : bSize, out, outSize, beta);
    return;
  }
  // Both inputs broadcast along different axes (e.g. [2,1] with [1,3]): one call per output matrix.
  for (let index = 0; index < batch; index++) {
    const aIndex = inputBatchIndex(index, shape.batchShape, shape.batchShapeA);
    const bIndex = inputBatchIndex(index, shape.batchShape, shape.batchShapeB);
    blas.sgemm(
      transposeA,
      transposeB,
      m,
      n,
      k,
      aValues.subarray(aIndex * aSize, (aIndex + 1) * aSize),
      bValues.subarray(bIndex * bSize, (bIndex + 1) * bSize),
      out.subarray(index * outSize, (index + 1) * outSize),
      beta,
    );
  }
}
