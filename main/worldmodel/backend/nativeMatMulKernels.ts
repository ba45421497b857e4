// BatchMatMul and _FusedMatMul for the 'native' backend: the product through OpenBLAS, the common
// bias and activations applied in place on its output. Anything else (int32 inputs, rank < 2, a bias
// that is not one row, prelu) runs the cpu backend's own kernels, so semantics never drift from cpu.
import {
  BatchMatMul,
  getKernel,
  util,
  _FusedMatMul,
  type BatchMatMulAttrs,
  type BatchMatMulInputs,
  type KernelConfig,
  type KernelFunc,
  type NamedAttrMap,
  type NamedTensorInfoMap,
  type TensorInfo,
  type _FusedMatMulAttrs,
  type _FusedMatMulInputs,
} from '@tensorflow/tfjs-core';
import type { NativeBlasBackend } from './nativeBlasBackend.ts';
import { matMulShape, multiplyInto } from './nativeMatMul.ts';

type Activation = _FusedMatMulAttrs['activation'];

function cpuKernel(kernelName: string): KernelFunc {
  const config = getKernel(kernelName, 'cpu');
  if (!config) throw new Error(`the cpu backend has no ${kernelName} kernel to fall back on (import @tensorflow/tfjs-backend-cpu)`);
  return config.kernelFunc;
}

function runCpu(kernelName: string, backend: NativeBlasBackend, inputs: NamedTensorInfoMap, attrs: NamedAttrMap = {}): TensorInfo {
  return cpuKernel(kernelName)({ inputs, backend, attrs }) as TensorInfo;
}

function float32Values(backend: NativeBlasBackend, info: TensorInfo): Float32Array | undefined {
  const values = backend.data.get(info.dataId).values;
  return info.dtype === 'float32' && values instanceof Float32Array ? values : undefined;
}

/** The product of float32 matrices, or undefined when the cpu kernel must handle these inputs. */
function nativeProduct(backend: NativeBlasBackend, a: TensorInfo, b: TensorInfo, transposeA: boolean, transposeB: boolean, bias?: Float32Array) {
  const aValues = float32Values(backend, a);
  const bValues = float32Values(backend, b);
  if (!aValues || !bValues || a.shape.length < 2 || b.shape.length < 2) return undefined;
  const shape = matMulShape(a, b, transposeA, transposeB);
  const out = new Float32Array(util.sizeFromShape(shape.outShape));
  if (bias) {
    // BLAS adds the product to the prefilled bias rows (beta = 1): no second pass over the output.
    if (bias.length === 1) out.fill(bias[0]!);
    else for (let row = 0; row < out.length; row += shape.n) out.set(bias, row);
  }
  multiplyInto(backend.blas, shape, aValues, bValues, out, bias ? 1 : 0);
  return { shape: shape.outShape, values: out };
}

function batchMatMul({ inputs, backend, attrs }: { inputs: BatchMatMulInputs; backend: NativeBlasBackend; attrs: BatchMatMulAttrs }): TensorInfo {
  // Pick<NamedTensorInfoMap> types them optional; the matMul op always passes both.
  const product = nativeProduct(backend, inputs.a!, inputs.b!, attrs.transposeA, attrs.transposeB);
  if (!product) return runCpu(BatchMatMul, backend, inputs as unknown as NamedTensorInfoMap, attrs as unknown as NamedAttrMap);
  return backend.makeTensorInfo(product.shape, 'float32', product.values);
}

/** A bias that is one value or one row of n values can be prefilled under every output row. */
function rowBias(backend: NativeBlasBackend, bias: TensorInfo | undefined, n: number): Float32Array | undefined {
  if (!bias) return undefined;
  const values = float32Values(backend, bias);
  const size = util.sizeFromShape(bias.shape);
  const isRow = size === 1 || (size === n && bias.shape[bias.shape.length - 1] === n);
  return values && isRow && bias.shape.length <= 2 ? values : undefined;
}

// The cpu backend's own formulas, so the activation adds no difference between the backends.
const IN_PLACE_ACTIVATIONS: Partial<Record<Activation, (x: number, leakyreluAlpha: number) => number>> = {
  relu: (x) => Math.max(0, x),
  relu6: (x) => Math.min(Math.max(0, x), 6),
  elu: (x) => (x >= 0 ? x : Math.exp(x) - 1),
  leakyrelu: (x, alpha) => (x < 0 ? alpha * x : x),
  sigmoid: (x) => 1 / (1 + Math.exp(-x)),
};

function activate(backend: NativeBlasBackend, x: TensorInfo, attrs: _FusedMatMulAttrs, preluWeights?: TensorInfo): TensorInfo {
  const { activation, leakyreluAlpha = 0.2 } = attrs;
  if (!activation || activation === 'linear') return x;
  const formula = IN_PLACE_ACTIVATIONS[activation];
  const values = float32Values(backend, x);
  if (formula && values) {
    // x is this kernel's own fresh output, so rewriting it in place is safe and saves a buffer.
    for (let i = 0; i < values.length; i++) values[i] = formula(values[i]!, leakyreluAlpha);
    return x;
  }
  if (activation !== 'prelu') throw new Error(`Activation ${activation} has not been implemented for the native backend.`);
  if (!preluWeights) throw new Error('the prelu activation needs preluActivationWeights');
  const result = runCpu('Prelu', backend, { x, alpha: preluWeights });
  backend.disposeIntermediateTensorInfo(x);
  return result;
}

function fusedMatMul({ inputs, backend, attrs }: { inputs: _FusedMatMulInputs; backend: NativeBlasBackend; attrs: _FusedMatMulAttrs }): TensorInfo {
  const { a, b, bias, preluActivationWeights } = inputs;
  const n = a.shape.length >= 2 && b.shape.length >= 2 ? matMulShape(a, b, attrs.transposeA, attrs.transposeB).n : 0;
  const prefilledBias = rowBias(backend, bias, n);
  const product = nativeProduct(backend, a, b, attrs.transposeA, attrs.transposeB, prefilledBias);
  if (!product) return runCpu(_FusedMatMul, backend, inputs as unknown as NamedTensorInfoMap, attrs as unknown as NamedAttrMap);
  let current = backend.makeTensorInfo(product.shape, 'float32', product.values);
  if (bias && !prefilledBias) {
    const sum = runCpu('Add', backend, { a: current, b: bias });
    backend.disposeIntermediateTensorInfo(current);
    current = sum;
  }
  return activate(backend, current, attrs, preluActivationWeights);
}

export function nativeMatMulKernels(backendName: string): KernelConfig[] {
  return [
    { kernelName: BatchMatMul, backendName, kernelFunc: batchMatMul as unknown as KernelFunc },
    { kernelName: _FusedMatMul, backendName, kernelFunc: fusedMatMul as unknown as KernelFunc },
  ];
}
