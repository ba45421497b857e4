// Element-wise kernels for the 'native' backend. The cpu backend's binary ops work out every output
// element's broadcast index in general form (an array per element), which made them, not the matrix
// products, most of a world-model training step. These run the shapes a model actually uses — equal
// shapes, a scalar, a row or a column repeated — as C loops in the addon (elementwiseBinary and
// elementwiseUnary: JavaScript's loops took 3–8 ns an element, 20–33 for exp, sigmoid and tanh, and
// were most of the policy learner's step), and hand anything else to cpu.
import { backend_util, getKernel, type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import type { NativeBlasBackend } from './nativeBlasBackend.ts';

/** How an operand's index follows the output's: 'same', one value ('scalar'), a repeated row of n, or a repeated column of n. */
type Stride = { kind: 'same' } | { kind: 'scalar' } | { kind: 'row'; size: number } | { kind: 'column'; size: number };

/** The addon's numbering of the layouts and ops (native/reins_blas.c, elementwiseBinary/elementwiseUnary). */
const LAYOUTS: Readonly<Record<Stride['kind'], number>> = { same: 0, scalar: 1, row: 2, column: 3 };
const BINARY_OPS: Readonly<Record<string, number>> = {
  Add: 0,
  Sub: 1,
  Multiply: 2,
  RealDiv: 3,
  Maximum: 4,
  Minimum: 5,
  SquaredDifference: 6,
};

/** How an operand of `shape` maps onto an output of `outShape`, or undefined for a pattern left to cpu. */
function strideOf(shape: readonly number[], outShape: readonly number[], outSize: number): Stride | undefined {
  const size = shape.reduce((product, side) => product * side, 1);
  if (size === outSize) return { kind: 'same' };
  if (size === 1) return { kind: 'scalar' };
  // Leading ones do not change the layout: [1, m] repeats like [m].
  const trimmed = shape.slice(shape.findIndex((side) => side !== 1));
  const outTail = outShape.slice(outShape.length - trimmed.length);
  if (trimmed.every((side, axis) => side === outTail[axis])) return { kind: 'row', size };
  // [n, 1] against [n, m]: each value repeats along the last axis.
  const rank = outShape.length;
  if (shape.length === rank && shape[rank - 1] === 1 && shape.slice(0, rank - 1).every((side, axis) => side === outShape[axis])) {
    return { kind: 'column', size: outShape[rank - 1]! };
  }
  return undefined;
}

function binaryKernel(kernelName: string, op: number, backendName: string): KernelConfig {
  const cpu = getKernel(kernelName, 'cpu');
  if (cpu === undefined) throw new Error(`the cpu backend has no ${kernelName} kernel to fall back on`);
  const kernelFunc = ((args: { inputs: { a: TensorInfo; b: TensorInfo }; backend: NativeBlasBackend; attrs?: unknown }) => {
    const { a, b } = args.inputs;
    const backend = args.backend;
    if (a.dtype !== 'float32' || b.dtype !== 'float32') return cpu.kernelFunc(args as never);
    const outShape = backend_util.assertAndGetBroadcastShape(a.shape, b.shape);
    const outSize = outShape.reduce((product, side) => product * side, 1);
    const aStep = strideOf(a.shape, outShape, outSize);
    const bStep = strideOf(b.shape, outShape, outSize);
    const aValues = valuesOf(backend, a);
    const bValues = valuesOf(backend, b);
    if (aStep === undefined || bStep === undefined || aValues === undefined || bValues === undefined) return cpu.kernelFunc(args as never);
    const out = new Float32Array(outSize);
    const sizeOf = (step: Stride) => (step.kind === 'row' || step.kind === 'column' ? step.size : 0);
    backend.blas.elementwiseBinary(op, aValues, LAYOUTS[aStep.kind], sizeOf(aStep), bValues, LAYOUTS[bStep.kind], sizeOf(bStep), out);
    return backend.makeTensorInfo(outShape, 'float32', out);
  }) as unknown as KernelFunc;
  return { kernelName, backendName, kernelFunc };
}

const UNARY_OPS: Readonly<Record<string, number>> = {
  Abs: 0,
  Exp: 1,
  Expm1: 2,
  Log: 3,
  Log1p: 4,
  Neg: 5,
  Rsqrt: 6,
  Sigmoid: 7,
  Sign: 8,
  Sqrt: 9,
  Square: 10,
  Tanh: 11,
};

function unaryKernel(kernelName: string, op: number, backendName: string): KernelConfig {
  const cpu = getKernel(kernelName, 'cpu');
  if (cpu === undefined) throw new Error(`the cpu backend has no ${kernelName} kernel to fall back on`);
  const kernelFunc = ((args: { inputs: { x: TensorInfo }; backend: NativeBlasBackend }) => {
    const { x } = args.inputs;
    const input = x.dtype === 'float32' ? valuesOf(args.backend, x) : undefined;
    if (input === undefined) return cpu.kernelFunc(args as never);
    const out = new Float32Array(input.length);
    args.backend.blas.elementwiseUnary(op, input, out);
    return args.backend.makeTensorInfo(x.shape, 'float32', out);
  }) as unknown as KernelFunc;
  return { kernelName, backendName, kernelFunc };
}

/** A float32 tensor's storage, or undefined when it is held in another array (a float32 tensor made from a Uint8Array keeps it). */
function valuesOf(backend: NativeBlasBackend, info: TensorInfo): Float32Array | undefined {
  const values = backend.data.get(info.dataId)?.values;
  return values instanceof Float32Array ? values : undefined;
}

export function fastElementwiseKernels(backendName: string): KernelConfig[] {
  return [
    ...Object.entries(BINARY_OPS).map(([name, op]) => binaryKernel(name, op, backendName)),
    ...Object.entries(UNARY_OPS).map(([name, op]) => unaryKernel(name, op, backendName)),
  ];
}
