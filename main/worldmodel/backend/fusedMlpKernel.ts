// rssmLayers.mlp as one kernel for the 'native' backend (MLP_KERNEL), with its gradient as a second
// kernel. As the RSSM sequence kernel does, the forward keeps its intermediates for the gradient when
// it runs under a tape, keyed by its output's data; the gradient recomputes them if none was kept.
import {
  engine,
  registerGradient,
  registerKernel,
  type GradConfig,
  type KernelConfig,
  type KernelFunc,
  type NamedAttrMap,
  type NamedTensorMap,
  type Tensor,
  type TensorInfo,
} from '@tensorflow/tfjs-core';
import { MLP_KERNEL, MLP_KERNEL_INPUTS } from '../rssmLayers.ts';
import { mlpBackward, mlpForward, type MlpRecord, type MlpSizes, type MlpWeights } from './fusedMlpMath.ts';
import type { NativeBlasBackend } from './nativeBlasBackend.ts';

export const MLP_GRAD_KERNEL = 'ReinsMlpGrad';

type KernelArgs = { inputs: Partial<Record<string, TensorInfo>>; backend: NativeBlasBackend; attrs: NamedAttrMap };
interface MlpRun {
  sizes: MlpSizes;
  weights: MlpWeights;
  record: MlpRecord;
}

/** Forward runs awaiting their gradient, by the output's data; weak, so an unused one goes with its output. */
const runsAwaitingGradient = new WeakMap<object, MlpRun>();

function tensorInput(inputs: KernelArgs['inputs'], name: string): TensorInfo {
  const info = inputs[name];
  if (!info) throw new Error(`fused MLP kernel: missing input ${name}`);
  if (info.dtype !== 'float32') throw new Error(`fused MLP kernel: ${name} must be float32, got ${info.dtype}`);
  return info;
}

function values(backend: NativeBlasBackend, info: TensorInfo): Float32Array {
  return backend.data.get(info.dataId).values as Float32Array;
}

function mlpSizes(inputs: KernelArgs['inputs'], attrs: NamedAttrMap): MlpSizes {
  const shapeOf = (name: string) => tensorInput(inputs, name).shape;
  const [rows, width] = shapeOf('input') as [number, number];
  const [inputSize, hidden] = shapeOf('hiddenWeight') as [number, number];
  const [hiddenOut, outputs] = shapeOf('outWeight') as [number, number];
  const vectors: [string, number][] = [
    ['hiddenBias', hidden],
    ['gain', hidden],
    ['shift', hidden],
    ['outBias', outputs],
  ];
  const misfit =
    shapeOf('input').length !== 2 ||
    width !== inputSize ||
    hiddenOut !== hidden ||
    vectors.some(([name, size]) => shapeOf(name).length !== 1 || shapeOf(name)[0] !== size);
  if (misfit) {
    const shapes = MLP_KERNEL_INPUTS.map((name) => `${name} [${shapeOf(name).join(', ')}]`).join(', ');
    throw new Error(`fused MLP kernel: shapes do not fit together: ${shapes}`);
  }
  return { rows, inputs: inputSize, hidden, outputs, epsilon: attrs.epsilon as number };
}

function run({ inputs, backend, attrs }: KernelArgs): MlpRun {
  const sizes = mlpSizes(inputs, attrs);
  const read = (name: (typeof MLP_KERNEL_INPUTS)[number]) => values(backend, tensorInput(inputs, name));
  const weights: MlpWeights = {
    hiddenWeight: read('hiddenWeight'),
    hiddenBias: read('hiddenBias'),
    gain: read('gain'),
    shift: read('shift'),
    outWeight: read('outWeight'),
    outBias: read('outBias'),
  };
  return { sizes, weights, record: mlpForward(backend.blas, sizes, weights, read('input')) };
}

function mlpKernel(args: KernelArgs): TensorInfo {
  const forward = run(args);
  const output = args.backend.makeTensorInfo([forward.sizes.rows, forward.sizes.outputs], 'float32', forward.record.output);
  // Only a tape can ask for the gradient; outside one (filtering, imagining) nothing is kept.
  if (engine().state.gradientDepth > 0) runsAwaitingGradient.set(output.dataId, forward);
  return output;
}

/** Inputs: the forward's, its output as `output` (to find the kept run) and `dOutput`; one gradient per forward input, in MLP_KERNEL_INPUTS order. */
function mlpGradKernel(args: KernelArgs): TensorInfo[] {
  const output = args.inputs.output;
  const kept = output ? runsAwaitingGradient.get(output.dataId) : undefined;
  if (output) runsAwaitingGradient.delete(output.dataId);
  const { sizes, weights, record } = kept ?? run(args);
  const grads = mlpBackward(args.backend.blas, sizes, weights, record, values(args.backend, tensorInput(args.inputs, 'dOutput')));
  return MLP_KERNEL_INPUTS.map((name) => args.backend.makeTensorInfo(tensorInput(args.inputs, name).shape, 'float32', grads[name]));
}

const mlpGradient: GradConfig = {
  kernelName: MLP_KERNEL,
  inputsToSave: [...MLP_KERNEL_INPUTS],
  outputsToSave: [true],
  gradFunc: (dy, saved, attrs) => {
    const inputs: NamedTensorMap = Object.fromEntries(MLP_KERNEL_INPUTS.map((name, index) => [name, saved[index]!]));
    inputs.output = saved[MLP_KERNEL_INPUTS.length]!;
    inputs.dOutput = dy as Tensor;
    const grads = engine().runKernel(MLP_GRAD_KERNEL, inputs, attrs as NamedAttrMap) as Tensor[];
    return Object.fromEntries(MLP_KERNEL_INPUTS.map((name, index) => [name, () => grads[index]!]));
  },
};

/** Registers both kernels for `backendName` and the forward kernel's gradient. */
export function registerFusedMlpKernels(backendName: string): void {
  const kernels: KernelConfig[] = [
    { kernelName: MLP_KERNEL, backendName, kernelFunc: mlpKernel as unknown as KernelFunc },
    { kernelName: MLP_GRAD_KERNEL, backendName, kernelFunc: mlpGradKernel as unknown as KernelFunc },
  ];
  for (const config of kernels) registerKernel(config);
  registerGradient(mlpGradient);
}
