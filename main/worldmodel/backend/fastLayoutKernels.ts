// Slicing, splitting, sums and softmax for the 'native' backend, for the layouts a model uses: a
// slice or split along one axis (the gradient of every concat), a sum over one block of adjacent axes
// (bias gradients sum over the batch, layer norm over the features), a softmax over the last axis.
// The cpu backend copies slices element by element and transposes before summing over a leading
// axis; these copy whole runs and sum in place. Any other layout goes to the cpu kernel.
import { backend_util, getKernel, util, type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import type { MathBackendCPU } from '@tensorflow/tfjs-backend-cpu';

type Args<A> = { inputs: { x: TensorInfo }; backend: MathBackendCPU; attrs: A };

function cpuKernel(kernelName: string) {
  const kernel = getKernel(kernelName, 'cpu');
  if (kernel === undefined) throw new Error(`the cpu backend has no ${kernelName} kernel to fall back on`);
  return kernel;
}

const product = (sides: readonly number[]) => sides.reduce((total, side) => total * side, 1);

/** Copies [start, start + count) along `axis` of x (shape `shape`) into a new array. */
function copyAlongAxis(values: Float32Array, shape: readonly number[], axis: number, start: number, count: number): Float32Array {
  const outer = product(shape.slice(0, axis));
  const inner = product(shape.slice(axis + 1));
  const run = count * inner;
  const stride = shape[axis]! * inner;
  const out = new Float32Array(outer * run);
  for (let block = 0; block < outer; block++) out.set(values.subarray(block * stride + start * inner, block * stride + start * inner + run), block * run);
  return out;
}

function slice(args: Args<{ begin: number | number[]; size: number | number[] }>): TensorInfo {
  const { x } = args.inputs;
  if (x.dtype !== 'float32') return cpuKernel('Slice').kernelFunc(args as never) as TensorInfo;
  const [begin, size] = backend_util.slice_util.parseSliceParams(x, args.attrs.begin, args.attrs.size) as [number[], number[]];
  const partial = size.flatMap((side, axis) => (begin[axis] === 0 && side === x.shape[axis] ? [] : [axis]));
  if (partial.length > 1) return cpuKernel('Slice').kernelFunc(args as never) as TensorInfo;
  const axis = partial[0] ?? 0;
  const values = args.backend.data.get(x.dataId)!.values as Float32Array;
  return args.backend.makeTensorInfo(size, 'float32', copyAlongAxis(values, x.shape, axis, begin[axis]!, size[axis]!));
}

function splitV(args: Args<{ numOrSizeSplits: number | number[]; axis: number }>): TensorInfo[] {
  const { x } = args.inputs;
  if (x.dtype !== 'float32') return cpuKernel('SplitV').kernelFunc(args as never) as TensorInfo[];
  const axis = util.parseAxisParam(args.attrs.axis, x.shape)[0]!;
  const sizes = backend_util.prepareSplitSize(x as never, args.attrs.numOrSizeSplits, axis);
  const values = args.backend.data.get(x.dataId)!.values as Float32Array;
  let start = 0;
  return sizes.map((count) => {
    const shape = [...x.shape];
    shape[axis] = count;
    const piece = args.backend.makeTensorInfo(shape, 'float32', copyAlongAxis(values, x.shape, axis, start, count));
    start += count;
    return piece;
  });
}

/** Sum or mean over axes that form one adjacent block; undefined (use cpu) when they do not. */
function reduceBlock(args: Args<{ axis: number | number[]; keepDims: boolean }>, mean: boolean): TensorInfo | undefined {
  const { x } = args.inputs;
  if (x.dtype !== 'float32') return undefined;
  const axes = util.parseAxisParam(args.attrs.axis, x.shape).sort((a, b) => a - b);
  if (axes.some((axis, index) => index > 0 && axis !== axes[index - 1]! + 1)) return undefined;
  const first = axes[0] ?? 0;
  const last = axes.length === 0 ? -1 : axes[axes.length - 1]!;
  const outer = product(x.shape.slice(0, first));
  const reduced = product(x.shape.slice(first, last + 1));
  const inner = product(x.shape.slice(last + 1));
  const values = args.backend.data.get(x.dataId)!.values as Float32Array;
  // Accumulate in doubles: a sum over a thousand rows in float32 would lose digits.
  const totals = new Float64Array(outer * inner);
  for (let block = 0; block < outer; block++) {
    for (let r = 0; r < reduced; r++) {
      const from = (block * reduced + r) * inner;
      const to = block * inner;
      for (let i = 0; i < inner; i++) totals[to + i]! += values[from + i]!;
    }
  }
  const out = new Float32Array(totals.length);
  const scale = mean ? 1 / reduced : 1;
  for (let i = 0; i < out.length; i++) out[i] = totals[i]! * scale;
  const kept = x.shape.map((side, axis) => (axis >= first && axis <= last ? 1 : side));
  const shape = args.attrs.keepDims ? kept : x.shape.filter((_, axis) => axis < first || axis > last);
  return args.backend.makeTensorInfo(shape, 'float32', out);
}

function softmax(args: { inputs: { logits: TensorInfo }; backend: MathBackendCPU; attrs: { dim: number } }): TensorInfo {
  const { logits } = args.inputs;
  const rank = logits.shape.length;
  const dim = args.attrs.dim < 0 ? args.attrs.dim + rank : args.attrs.dim;
  if (logits.dtype !== 'float32' || dim !== rank - 1) return cpuKernel('Softmax').kernelFunc(args as never) as TensorInfo;
  const values = args.backend.data.get(logits.dataId)!.values as Float32Array;
  const classes = logits.shape[rank - 1]!;
  const out = new Float32Array(values.length);
  for (let start = 0; start < values.length; start += classes) {
    let max = -Infinity;
    for (let j = 0; j < classes; j++) max = Math.max(max, values[start + j]!);
    let total = 0;
    for (let j = 0; j < classes; j++) {
      const e = Math.exp(values[start + j]! - max);
      out[start + j] = e;
      total += e;
    }
    for (let j = 0; j < classes; j++) out[start + j]! /= total;
  }
  return args.backend.makeTensorInfo(logits.shape, 'float32', out);
}

export function fastLayoutKernels(backendName: string): KernelConfig[] {
  const reduction = (kernelName: string, mean: boolean): KernelConfig => ({
    kernelName,
    backendName,
    kernelFunc: ((args: Args<{ axis: number | number[]; keepDims: boolean }>) =>
      reduceBlock(args, mean) ?? cpuKernel(kernelName).kernelFunc(args as never)) as unknown as KernelFunc,
  });
  return [
    { kernelName: 'Slice', backendName, kernelFunc: slice as unknown as KernelFunc },
    { kernelName: 'SplitV', backendName, kernelFunc: splitV as unknown as KernelFunc },
    { kernelName: 'Softmax', backendName, kernelFunc: softmax as unknown as KernelFunc },
    reduction('Sum', false),
    reduction('Mean', true),
  ];
}
