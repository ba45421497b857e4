// observeSequence's recurrence as one fused kernel for the 'native' backend, with its gradient as a
// second kernel: the tape would record a dozen ops per step and, backward, materialise and add up
// one weight gradient per step, most of a training step's time. The gradient kernel reads the
// forward's intermediates where the forward ran under a tape, and recomputes them otherwise.
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
import { RSSM_OBSERVE_SEQUENCE } from '../observeSequence.ts';
import type { NativeBlasBackend } from './nativeBlasBackend.ts';
import { observeSequenceBackward, type SequenceUpstream } from './rssmSequenceBackward.ts';
import { observeSequenceForward } from './rssmSequenceForward.ts';
import { float32Input, SEQUENCE_INPUT_NAMES, sequenceData, sequenceSizes, sequenceWeights } from './rssmSequenceShapes.ts';

export const RSSM_OBSERVE_SEQUENCE_GRAD = 'ReinsRssmObserveSequenceGrad';

/**
 * The gradient kernel's extra inputs: d(loss)/d(each output), any of them absent (zero); and, as
 * `deterministic`, the forward's first output, by which it finds the forward's kept run.
 */
const UPSTREAM_INPUTS = { deterministic: 'dDeterministic', stochastic: 'dStochastic', posterior: 'dPosterior' } as const;

type KernelArgs = { inputs: Partial<Record<string, TensorInfo>>; backend: NativeBlasBackend; attrs: NamedAttrMap };
type ForwardRun = ReturnType<typeof run>;

/**
 * Forward runs kept for their gradient, by the deterministic output's data (which the gradient
 * receives as a saved output): a second forward would cost a sixth of a training step. Weak, so a
 * run whose gradient never comes is collected with its output.
 */
const runsAwaitingGradient = new WeakMap<object, ForwardRun>();

function run({ inputs, backend, attrs }: KernelArgs) {
  const sizes = sequenceSizes(inputs, attrs);
  const weights = sequenceWeights(backend, inputs, sizes);
  const data = sequenceData(backend, inputs);
  return { sizes, weights, data, record: observeSequenceForward(backend.blas, sizes, weights, data) };
}

/** [deterministic [T·B, D], stochastic [T·B, S·C], posterior [T·B, S·C]]. */
function observeSequenceKernel(args: KernelArgs): TensorInfo[] {
  const forward = run(args);
  const { rows, deterministic, stochastic } = forward.sizes;
  const outputs = [
    args.backend.makeTensorInfo([rows, deterministic], 'float32', forward.record.deterministic),
    args.backend.makeTensorInfo([rows, stochastic], 'float32', forward.record.stochastic),
    args.backend.makeTensorInfo([rows, stochastic], 'float32', forward.record.posterior),
  ];
  // Only a tape can ask for the gradient; outside one, the record is dropped at once.
  if (engine().state.gradientDepth > 0) runsAwaitingGradient.set(outputs[0]!.dataId, forward);
  return outputs;
}

/** One gradient per forward input, in SEQUENCE_INPUT_NAMES order. */
function observeSequenceGradKernel(args: KernelArgs): TensorInfo[] {
  const forwardOutput = args.inputs.deterministic;
  const kept = forwardOutput ? runsAwaitingGradient.get(forwardOutput.dataId) : undefined;
  if (forwardOutput) runsAwaitingGradient.delete(forwardOutput.dataId);
  const { sizes, weights, data, record } = kept ?? run(args);
  const upstream: SequenceUpstream = {};
  for (const [output, name] of Object.entries(UPSTREAM_INPUTS) as [keyof SequenceUpstream, string][]) {
    if (args.inputs[name]) upstream[output] = float32Input(args.backend, args.inputs, name);
  }
  const grads = observeSequenceBackward(args.backend.blas, sizes, weights, data, record, upstream);
  return SEQUENCE_INPUT_NAMES.map((name) => args.backend.makeTensorInfo(args.inputs[name]!.shape, 'float32', grads[name]));
}

const observeSequenceGradient: GradConfig = {
  kernelName: RSSM_OBSERVE_SEQUENCE,
  inputsToSave: [...SEQUENCE_INPUT_NAMES],
  outputsToSave: [true, false, false],
  gradFunc: (dys, saved, attrs) => {
    const inputs: NamedTensorMap = Object.fromEntries(SEQUENCE_INPUT_NAMES.map((name, index) => [name, saved[index]!]));
    inputs.deterministic = saved[SEQUENCE_INPUT_NAMES.length]!;
    // The engine passes zeros for an output the loss does not read; the kernel treats both alike.
    const [dDeterministic, dStochastic, dPosterior] = dys as Tensor[];
    Object.assign(inputs, { dDeterministic, dStochastic, dPosterior });
    const grads = engine().runKernel(RSSM_OBSERVE_SEQUENCE_GRAD, inputs, attrs as NamedAttrMap) as Tensor[];
    return Object.fromEntries(SEQUENCE_INPUT_NAMES.map((name, index) => [name, () => grads[index]!]));
  },
};

/** Registers both kernels for `backendName` and the forward kernel's gradient. */
export function registerRssmSequenceKernels(backendName: string): void {
  const kernels: KernelConfig[] = [
    { kernelName: RSSM_OBSERVE_SEQUENCE, backendName, kernelFunc: observeSequenceKernel as unknown as KernelFunc },
    { kernelName: RSSM_OBSERVE_SEQUENCE_GRAD, backendName, kernelFunc: observeSequenceGradKernel as unknown as KernelFunc },
  ];
  for (const config of kernels) registerKernel(config);
  registerGradient(observeSequenceGradient);
}
