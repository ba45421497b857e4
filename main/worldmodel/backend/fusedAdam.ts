// The world-model trainer's optimiser step on the 'native' backend: the gradients' global norm, the
// clipping and tf.train.adam's update, each weight in one pass of the addon (tf.train.adam plus the
// norm and the clip took a dozen element-wise kernels per weight, each a full pass allocating its
// output). The state is tf.AdamOptimizer's — moments as non-trainable variables, the step count as
// 'iter' — and getWeights/setWeights read and write it in the same layout, so checkpoints of either
// optimiser restore into the other.
//
// Storage: each step gives every weight new storage, as tf.train.adam's assign does, and never writes
// into the old. Updating weights in place is not safe on the cpu-derived backends: dataSync() hands
// out the storage itself, and a tensor made from such an array (restoreCheckpoint's
// tf.tensor(checkpoint values), when the checkpoint was just taken from a live model) shares it under
// another dataId, where no refCount can see it. The copy costs ~15 ms a wm-s step. The moments are the
// optimiser's own — made from zeros, or copied in setWeights — and are updated in place; getWeights
// hands them out as tf.AdamOptimizer does, so an array read from them holds until the next step
// (snapshotCheckpoint uses its arrays before the learner trains on).
import * as tf from '@tensorflow/tfjs-core';
import { NativeBlasBackend } from './nativeBlasBackend.ts';

export interface AdamSettings {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
}

/** tf.Optimizer's getWeights/setWeights element. */
export type NamedTensor = Awaited<ReturnType<tf.Optimizer['getWeights']>>[number];

interface Moments {
  first: tf.Variable;
  second: tf.Variable;
}

export class FusedAdam {
  /** Made on the first step, as tf.train.adam makes them. */
  private moments: Moments[] = [];
  private iterations = 0;
  /** β1ᵗ and β2ᵗ for the next step t, accumulated in float32 as tf.train.adam's accBeta variables are. */
  private firstPower: number;
  private secondPower: number;

  private constructor(
    private readonly backend: NativeBlasBackend,
    private readonly settings: AdamSettings,
  ) {
    this.firstPower = Math.fround(settings.beta1);
    this.secondPower = Math.fround(settings.beta2);
  }

  /** The fused step for the current backend, or undefined where it has none (the caller uses tf.train.adam). */
  static forCurrentBackend(settings: AdamSettings): FusedAdam | undefined {
    const backend = tf.backend();
    return backend instanceof NativeBlasBackend ? new FusedAdam(backend, settings) : undefined;
  }

  /**
   * Clips the gradients to `clipNorm` by their global norm and takes one Adam step. Returns the norm
   * before clipping; when it is not finite, nothing is changed. A missing gradient counts as zero
   * (the moments still decay and the weight still moves, as tf.train.adam does given zeros).
   */
  step(variables: tf.Variable[], gradients: (tf.Tensor | undefined)[], clipNorm: number): number {
    if (tf.backend() !== this.backend)
      throw new Error(`the fused Adam step works on the backend it was made on, not on '${tf.getBackend()}'; make a new trainer after changing backends`);
    const { blas } = this.backend;
    const gradientValues = gradients.map((gradient) => gradient && this.storage(gradient));
    const norm = Math.sqrt(gradientValues.reduce((sum, values) => sum + (values ? blas.sumOfSquares(values) : 0), 0));
    if (!Number.isFinite(norm)) return norm;
    const scale = norm > clipNorm ? clipNorm / norm : 1;
    if (this.moments.length === 0) {
      this.moments = variables.map((variable) => ({ first: zeroMoment(variable), second: zeroMoment(variable) }));
    }
    if (this.moments.length !== variables.length)
      throw new Error(`the fused Adam step holds moments for ${this.moments.length} weights, got ${variables.length}`);
    const { learningRate, beta1, beta2, epsilon } = this.settings;
    const firstCorrection = Math.fround(1 - this.firstPower);
    const secondCorrection = Math.fround(1 - this.secondPower);
    variables.forEach((variable, index) => {
      const { first, second } = this.moments[index]!;
      const weightNext = this.storage(variable).slice();
      blas.adamUpdate(
        weightNext,
        gradientValues[index],
        this.storage(first),
        this.storage(second),
        scale,
        learningRate,
        beta1,
        beta2,
        epsilon,
        firstCorrection,
        secondCorrection,
      );
      const next = tf.tensor(weightNext, variable.shape, 'float32');
      variable.assign(next);
      next.dispose();
    });
    this.iterations++;
    this.firstPower = Math.fround(this.firstPower * Math.fround(beta1));
    this.secondPower = Math.fround(this.secondPower * Math.fround(beta2));
    return norm;
  }

  /** tf.AdamOptimizer's layout: the step count as 'iter' (a new scalar, the caller's), then every first moment, then every second. */
  async getWeights(): Promise<NamedTensor[]> {
    const iterations = { name: 'iter', tensor: tf.scalar(this.iterations, 'int32') };
    return [
      iterations,
      ...this.moments.map(({ first }) => ({ name: `${first.name}/m`, tensor: first })),
      ...this.moments.map(({ second }) => ({ name: `${second.name}/v`, tensor: second })),
    ];
  }

  /** Takes the state in tf.AdamOptimizer's layout; the moments are copied (the caller keeps its tensors). */
  async setWeights(weights: NamedTensor[]): Promise<void> {
    const [iterations, ...moments] = weights;
    if (iterations === undefined) throw new Error('Adam state needs the step count first');
    this.iterations = Number((await iterations.tensor.data())[0]);
    this.firstPower = Math.fround(this.settings.beta1 ** (this.iterations + 1));
    this.secondPower = Math.fround(this.settings.beta2 ** (this.iterations + 1));
    if (moments.length % 2 !== 0) throw new Error(`Adam state needs as many second moments as first, got ${moments.length} moments`);
    const count = moments.length / 2;
    tf.dispose(this.moments.flatMap(({ first, second }) => [first, second]));
    this.moments = moments
      .slice(0, count)
      .map(({ tensor }, index) => ({ first: privateMoment(tensor), second: privateMoment(moments[count + index]!.tensor) }));
  }

  dispose(): void {
    tf.dispose(this.moments.flatMap(({ first, second }) => [first, second]));
    this.moments = [];
  }

  private storage(tensor: tf.Tensor): Float32Array {
    if (!this.backend.data.has(tensor.dataId)) throw new Error('the fused Adam step was given a tensor that lives on another backend');
    const { values } = this.backend.data.get(tensor.dataId);
    if (tensor.dtype !== 'float32' || !(values instanceof Float32Array)) throw new Error(`the fused Adam step takes float32 tensors, got ${tensor.dtype}`);
    return values;
  }
}

/** A moment variable on storage of its own (the tidy disposes the tensor it was made from). */
function zeroMoment(variable: tf.Variable): tf.Variable {
  return tf.tidy(() => tf.zerosLike(variable).variable(false));
}

function privateMoment(tensor: tf.Tensor): tf.Variable {
  return tf.tidy(() => tf.tensor(Float32Array.from(tensor.dataSync()), tensor.shape, 'float32').variable(false));
}
