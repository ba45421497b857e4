// Element-wise kernels for the 'native' backend. The cpu backend's binary ops work out every output
// element's broadcast index in general form (an array per element), which made them, not the matrix
// products, most of a world-model training step. These run the shapes a model actually uses — equal
// shapes, a scalar, a row or a column repeated — as straight loops, and hand anything else to cpu.
import { backend_util, getKernel, type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import type { MathBackendCPU } from '@tensorflow/tfjs-backend-cpu';

type Loop = (a: Float32Array, b: Float32Array, out: Float32Array, aStep: Stride, bStep: Stride) => void;
/** How an operand's index follows the output's: 'same', one value ('scalar'), a repeated row of n, or a repeated column of n. */
type Stride = { kind: 'same' } | { kind: 'scalar' } | { kind: 'row'; size: number } | { kind: 'column'; size: number };

/**
 * One loop per op and operand pattern, built from source so that V8 compiles each with its own
 * arithmetic inline rather than calling an op function per element.
 */
function loopFor(expression: string): Loop {
  const index = (operand: string, step: string) =>
    `${step}.kind === 'same' ? i : ${step}.kind === 'scalar' ? 0 : ${step}.kind === 'row' ? i % ${step}.size : Math.floor(i / ${step}.size)`;
  const body = (aIndex: string, bIndex: string) => `for (let i = 0; i < n; i++) { const x = a[${aIndex}]; const y = b[${bIndex}]; out[i] = ${expression}; }`;
  // The common cases get loops with no per-element branching at all.
  const source = `
    const n = out.length;
    if (aStep.kind === 'same' && bStep.kind === 'same') { ${body('i', 'i')} return; }
    if (aStep.kind === 'same' && bStep.kind === 'scalar') { const y = b[0]; for (let i = 0; i < n; i++) { const x = a[i]; out[i] = ${expression}; } return; }
    if (aStep.kind === 'scalar' && bStep.kind === 'same') { const x = a[0]; for (let i = 0; i < n; i++) { const y = b[i]; out[i] = ${expression}; } return; }
    if (aStep.kind === 'same' && bStep.kind === 'row') {
      const m = bStep.size;
      for (let start = 0; start < n; start += m) for (let j = 0; j < m; j++) { const x = a[start + j]; const y = b[j]; out[start + j] = ${expression}; }
      return;
    }
    if (aStep.kind === 'row' && bStep.kind === 'same') {
      const m = aStep.size;
      for (let start = 0; start < n; start += m) for (let j = 0; j < m; j++) { const x = a[j]; const y = b[start + j]; out[start + j] = ${expression}; }
      return;
    }
    ${body(index('a', 'aStep'), index('b', 'bStep'))}`;
  return new Function('a', 'b', 'out', 'aStep', 'bStep', source) as Loop;
}

const BINARY_OPS: Readonly<Record<string, string>> = {
  Add: 'x + y',
  Sub: 'x - y',
  Multiply: 'x * y',
  RealDiv: 'x / y',
  Maximum: 'Math.max(x, y)',
  Minimum: 'Math.min(x, y)',
  SquaredDifference: '(x - y) * (x - y)',
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

function binaryKernel(kernelName: string, expression: string, backendName: string): KernelConfig {
  const loop = loopFor(expression);
  const cpu = getKernel(kernelName, 'cpu');
  if (cpu === undefined) throw new Error(`the cpu backend has no ${kernelName} kernel to fall back on`);
  const kernelFunc = ((args: { inputs: { a: TensorInfo; b: TensorInfo }; backend: MathBackendCPU; attrs?: unknown }) => {
    const { a, b } = args.inputs;
    const backend = args.backend;
    if (a.dtype !== 'float32' || b.dtype !== 'float32') return cpu.kernelFunc(args as never);
    const outShape = backend_util.assertAndGetBroadcastShape(a.shape, b.shape);
    const outSize = outShape.reduce((product, side) => product * side, 1);
    const aStep = strideOf(a.shape, outShape, outSize);
    const bStep = strideOf(b.shape, outShape, outSize);
    if (aStep === undefined || bStep === undefined) return cpu.kernelFunc(args as never);
    const out = new Float32Array(outSize);
    loop(backend.data.get(a.dataId)!.values as Float32Array, backend.data.get(b.dataId)!.values as Float32Array, out, aStep, bStep);
    return backend.makeTensorInfo(outShape, 'float32', out);
  }) as unknown as KernelFunc;
  return { kernelName, backendName, kernelFunc };
}

const UNARY_OPS: Readonly<Record<string, string>> = {
  Abs: 'Math.abs(x)',
  Exp: 'Math.exp(x)',
  Expm1: 'Math.expm1(x)',
  Log: 'Math.log(x)',
  Log1p: 'Math.log1p(x)',
  Neg: '-x',
  Rsqrt: '1 / Math.sqrt(x)',
  Sigmoid: '1 / (1 + Math.exp(-x))',
  Sign: 'x < 0 ? -1 : x > 0 ? 1 : 0',
  Sqrt: 'Math.sqrt(x)',
  Square: 'x * x',
  Tanh: 'Math.tanh(x)',
};

function unaryKernel(kernelName: string, expression: string, backendName: string): KernelConfig {
  const loop = new Function('input', 'out', `for (let i = 0; i < out.length; i++) { const x = input[i]; out[i] = ${expression}; }`) as (
    input: Float32Array,
    out: Float32Array,
  ) => void;
  const cpu = getKernel(kernelName, 'cpu');
  if (cpu === undefined) throw new Error(`the cpu backend has no ${kernelName} kernel to fall back on`);
  const kernelFunc = ((args: { inputs: { x: TensorInfo }; backend: MathBackendCPU }) => {
    const { x } = args.inputs;
    if (x.dtype !== 'float32') return cpu.kernelFunc(args as never);
    const input = args.backend.data.get(x.dataId)!.values as Float32Array;
    const out = new Float32Array(input.length);
    loop(input, out);
    return args.backend.makeTensorInfo(x.shape, 'float32', out);
  }) as unknown as KernelFunc;
  return { kernelName, backendName, kernelFunc };
}

export function fastElementwiseKernels(backendName: string): KernelConfig[] {
  return [
    ...Object.entries(BINARY_OPS).map(([name, expression]) => binaryKernel(name, expression, backendName)),
    ...Object.entries(UNARY_OPS).map(([name, expression]) => unaryKernel(name, expression, backendName)),
  ];
}
