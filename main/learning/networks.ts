// The small networks the learners train (actor, critic, reward members): Linear → LayerNorm → SiLU
// blocks and a linear head, as functions of an explicit weight list so that a trained network and a
// frozen copy of it (a policy version) run the same code. Weights are Float32Arrays when they travel.
import * as tf from '@tensorflow/tfjs-core';
// The gradients of every op: tfjs-core's Node bundle leaves them to the umbrella package.
import '@tensorflow/tfjs';
import { FusedAdam } from '../worldmodel/backend/fusedAdam.ts';

export interface MlpShape {
  inputs: number;
  hidden: number;
  /** Hidden blocks (Linear → LayerNorm → SiLU); at least 1. */
  layers: number;
  outputs: number;
}

const LAYER_NORM_EPSILON = 1e-3;

/** [weight, bias, gain, shift] per hidden block, then [weight, bias] of the head: 4·layers + 2 tensors. */
export function mlpWeightShapes(shape: MlpShape): number[][] {
  const shapes: number[][] = [];
  let inputs = shape.inputs;
  for (let layer = 0; layer < shape.layers; layer++) {
    shapes.push([inputs, shape.hidden], [shape.hidden], [shape.hidden], [shape.hidden]);
    inputs = shape.hidden;
  }
  shapes.push([inputs, shape.outputs], [shape.outputs]);
  return shapes;
}

export function checkMlpShape(shape: MlpShape, what: string): void {
  for (const key of ['inputs', 'hidden', 'layers', 'outputs'] as const) {
    if (!(Number.isInteger(shape[key]) && shape[key] >= 1)) throw new RangeError(`${what}: ${key} must be a whole number ≥ 1, got ${shape[key]}`);
  }
}

/** The network's output for a batch of inputs [batch, inputs] → [batch, outputs]. */
export function applyMlp(weights: readonly tf.Tensor[], input: tf.Tensor2D): tf.Tensor2D {
  let x = input;
  const blocks = (weights.length - 2) / 4;
  for (let block = 0; block < blocks; block++) {
    const [weight, bias, gain, shift] = weights.slice(block * 4, block * 4 + 4) as [tf.Tensor2D, tf.Tensor1D, tf.Tensor1D, tf.Tensor1D];
    const linear = tf.add(tf.matMul(x, weight), bias) as tf.Tensor2D;
    const { mean, variance } = tf.moments(linear, -1, true);
    const normalised = tf.add(tf.mul(tf.mul(tf.sub(linear, mean), tf.rsqrt(tf.add(variance, LAYER_NORM_EPSILON))), gain), shift) as tf.Tensor2D;
    x = tf.mul(normalised, tf.sigmoid(normalised)) as tf.Tensor2D;
  }
  const [weight, bias] = weights.slice(-2) as [tf.Tensor2D, tf.Tensor1D];
  return tf.add(tf.matMul(x, weight), bias) as tf.Tensor2D;
}

/**
 * applyMlp for one input row, on the weights' values: the control loop's policy runs this every tick,
 * where TensorFlow.js spent ~1 ms on thirty kernel dispatches for a single row (the arithmetic is
 * ~50 µs). The same blocks in the same order, accumulated in double; equal to applyMlp within float
 * rounding (a test holds them together).
 */
export function applyMlpToRow(shape: MlpShape, weights: readonly Float32Array[], input: Float32Array): Float64Array {
  let x: ArrayLike<number> = input;
  let width = shape.inputs;
  for (let block = 0; block < shape.layers; block++) {
    const [weight, bias, gain, shift] = weights.slice(block * 4, block * 4 + 4) as [Float32Array, Float32Array, Float32Array, Float32Array];
    const linear = affine(x, width, weight, bias, shape.hidden);
    let mean = 0;
    for (let j = 0; j < shape.hidden; j++) mean += linear[j]!;
    mean /= shape.hidden;
    let variance = 0;
    for (let j = 0; j < shape.hidden; j++) variance += (linear[j]! - mean) ** 2;
    variance /= shape.hidden;
    const reciprocalStd = 1 / Math.sqrt(variance + LAYER_NORM_EPSILON);
    for (let j = 0; j < shape.hidden; j++) {
      const normalised = (linear[j]! - mean) * reciprocalStd * gain[j]! + shift[j]!;
      linear[j] = normalised / (1 + Math.exp(-normalised));
    }
    x = linear;
    width = shape.hidden;
  }
  return affine(x, width, weights[weights.length - 2]!, weights[weights.length - 1]!, shape.outputs);
}

/** x·W + b for one row; W is [inputs, outputs] row-major. */
function affine(x: ArrayLike<number>, inputs: number, weight: Float32Array, bias: Float32Array, outputs: number): Float64Array {
  const out = Float64Array.from(bias);
  for (let i = 0; i < inputs; i++) {
    const value = x[i]!;
    if (value === 0) continue;
    const row = i * outputs;
    for (let j = 0; j < outputs; j++) out[j]! += value * weight[row + j]!;
  }
  return out;
}

/**
 * Trainable weights, initialised as PyTorch's Linear does (uniform ±1/√fan-in); the head is scaled
 * by `headScale` (a small head starts an actor near its mean and a reward model near zero).
 */
export function initialMlpWeights(shape: MlpShape, seed: number, headScale = 1): tf.Variable[] {
  checkMlpShape(shape, 'network');
  const shapes = mlpWeightShapes(shape);
  return tf.tidy(() =>
    shapes.map((dims, index) => {
      const isGain = dims.length === 1 && index < shapes.length - 2 && index % 4 === 2;
      const isShift = dims.length === 1 && index < shapes.length - 2 && index % 4 === 3;
      if (isGain) return tf.variable(tf.ones(dims));
      if (isShift) return tf.variable(tf.zeros(dims));
      const fanIn = dims.length === 2 ? dims[0]! : shapes[index - 1]![0]!;
      const bound = (1 / Math.sqrt(fanIn)) * (index >= shapes.length - 2 ? headScale : 1);
      return tf.variable(tf.randomUniform(dims, -bound, bound, 'float32', seed * 1000 + index));
    }),
  );
}

/** Copies of the weights' values, in order. */
export function readWeights(weights: readonly tf.Tensor[]): Float32Array[] {
  return weights.map((weight) => Float32Array.from(weight.dataSync() as Float32Array));
}

/** Throws unless `values` fit the network's shapes and are all finite. */
export function checkMlpWeights(shape: MlpShape, values: readonly Float32Array[]): void {
  const shapes = mlpWeightShapes(shape);
  if (values.length !== shapes.length) throw new RangeError(`network: ${values.length} weight arrays for ${shapes.length} tensors`);
  shapes.forEach((dims, index) => {
    const size = dims.reduce((a, b) => a * b, 1);
    if (values[index]!.length !== size) throw new RangeError(`network: weight ${index} has ${values[index]!.length} values, expected ${size}`);
    if (!values[index]!.every(Number.isFinite)) throw new RangeError(`network: weight ${index} holds a value that is not finite`);
  });
}

/** Frozen tensors holding `values` in the network's shapes; throws on a mismatch. */
export function frozenWeights(shape: MlpShape, values: readonly Float32Array[]): tf.Tensor[] {
  checkMlpWeights(shape, values);
  return mlpWeightShapes(shape).map((dims, index) => tf.tensor(values[index]!, dims));
}

/**
 * Adam on a set of variables, with the gradient clipped by its global norm; a non-finite gradient skips
 * the step. On the 'native' backend the norm, clip and update run in one addon pass per weight (the
 * world model's FusedAdam: the same floats as tf.train.adam, without a dozen kernels per weight).
 */
export class ClippedAdamStep {
  private readonly fused: FusedAdam | undefined;
  private readonly adam: tf.AdamOptimizer | undefined;
  /** Which step runs: the addon's fused one (the 'native' backend) or tf.train.adam's kernels. */
  readonly path: 'fused' | 'tf.train.adam';

  constructor(
    readonly variables: tf.Variable[],
    learningRate: number,
    private readonly clipNorm = 100,
  ) {
    const settings = { learningRate, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };
    this.fused = FusedAdam.forCurrentBackend(settings);
    this.adam = this.fused ? undefined : tf.train.adam(settings.learningRate, settings.beta1, settings.beta2, settings.epsilon);
    this.path = this.fused ? 'fused' : 'tf.train.adam';
  }

  /** Minimises `loss()`; returns its value, or NaN when the step was skipped for a non-finite gradient. */
  minimise(loss: () => tf.Scalar): number {
    const { value, grads } = tf.variableGrads(loss, this.variables);
    const lossValue = value.dataSync()[0]!;
    const applied = Number.isFinite(lossValue) && (this.fused ? this.fusedStep(grads) : this.tfStep(grads));
    tf.dispose([value, ...Object.values(grads)]);
    return applied ? lossValue : Number.NaN;
  }

  private fusedStep(grads: tf.NamedTensorMap): boolean {
    const norm = this.fused!.step(
      this.variables,
      this.variables.map((variable) => grads[variable.name]),
      this.clipNorm,
    );
    return Number.isFinite(norm);
  }

  private tfStep(grads: tf.NamedTensorMap): boolean {
    return tf.tidy(() => {
      const complete = this.variables.map((variable) => grads[variable.name] ?? tf.zerosLike(variable));
      const norm = tf.sqrt(tf.addN(complete.map((gradient) => tf.sum(tf.square(gradient))))).dataSync()[0]!;
      if (!Number.isFinite(norm)) return false;
      const scale = norm > this.clipNorm ? this.clipNorm / norm : 1;
      this.adam!.applyGradients(
        this.variables.map((variable, index) => ({ name: variable.name, tensor: scale === 1 ? complete[index]! : tf.mul(complete[index]!, scale) })),
      );
      return true;
    });
  }

  dispose(): void {
    this.fused?.dispose();
    this.adam?.dispose();
  }
}
