// rssmLayers.mlp — dense → layerNorm → SiLU → dense — forward and backward on Float32Arrays: the four
// products on BLAS, the element-wise middle in the addon (layerNormSilu and its backward). The heads
// run it on all of a batch's rows at once ([T·B, ·]), where the op-by-op version spent most of its
// time in a dozen element-wise kernels and their taped gradients.
import type { NativeBlas } from './nativeBlas.ts';
import { fillRows, type LayerNormSiluRecord } from './rssmSequenceMath.ts';

export interface MlpSizes {
  rows: number;
  inputs: number;
  hidden: number;
  outputs: number;
  epsilon: number;
}

export interface MlpWeights {
  /** [inputs, hidden] and [hidden]. */
  hiddenWeight: Float32Array;
  hiddenBias: Float32Array;
  /** [hidden] each. */
  gain: Float32Array;
  shift: Float32Array;
  /** [hidden, outputs] and [outputs]. */
  outWeight: Float32Array;
  outBias: Float32Array;
}

/** What the forward keeps for the backward: its input and the layer norm's intermediates. */
export interface MlpRecord {
  input: Float32Array;
  middle: LayerNormSiluRecord;
  output: Float32Array;
}

/** One gradient per weight, and the input's; named as MLP_KERNEL_INPUTS names the forward's inputs. */
export type MlpGradients = MlpWeights & { input: Float32Array };

export function mlpForward(blas: NativeBlas, sizes: MlpSizes, weights: MlpWeights, input: Float32Array): MlpRecord {
  const { rows, inputs, hidden, outputs, epsilon } = sizes;
  const pre = new Float32Array(rows * hidden);
  fillRows(pre, weights.hiddenBias, rows);
  blas.sgemm(false, false, rows, hidden, inputs, input, weights.hiddenWeight, pre, 1);
  const middle: LayerNormSiluRecord = {
    normalised: new Float32Array(rows * hidden),
    reciprocalStd: new Float32Array(rows),
    scaled: new Float32Array(rows * hidden),
    gate: new Float32Array(rows * hidden),
    activated: new Float32Array(rows * hidden),
  };
  blas.layerNormSilu(pre, weights.gain, weights.shift, epsilon, rows, middle.normalised, middle.reciprocalStd, middle.scaled, middle.gate, middle.activated);
  const output = new Float32Array(rows * outputs);
  fillRows(output, weights.outBias, rows);
  blas.sgemm(false, false, rows, outputs, hidden, middle.activated, weights.outWeight, output, 1);
  return { input, middle, output };
}

/** Every gradient from d(output) ([rows, outputs]). */
export function mlpBackward(blas: NativeBlas, sizes: MlpSizes, weights: MlpWeights, record: MlpRecord, dOutput: Float32Array): MlpGradients {
  const { rows, inputs, hidden, outputs } = sizes;
  const { middle } = record;
  // A bias's gradient is its rows' column sums: ones[1, rows]·d[rows, n] on BLAS.
  const ones = new Float32Array(rows).fill(1);
  const outWeight = new Float32Array(hidden * outputs);
  blas.sgemm(true, false, hidden, outputs, rows, middle.activated, dOutput, outWeight);
  const outBias = new Float32Array(outputs);
  blas.sgemm(false, false, 1, outputs, rows, ones, dOutput, outBias);
  // d(activated), then overwritten by d(pre) in place (the addon reads each element before writing it).
  const dPre = new Float32Array(rows * hidden);
  blas.sgemm(false, true, rows, hidden, outputs, dOutput, weights.outWeight, dPre);
  const gain = new Float32Array(hidden);
  const shift = new Float32Array(hidden);
  blas.layerNormSiluBackward(dPre, middle.normalised, middle.reciprocalStd, middle.scaled, middle.gate, weights.gain, rows, dPre, gain, shift);
  const hiddenWeight = new Float32Array(inputs * hidden);
  blas.sgemm(true, false, inputs, hidden, rows, record.input, dPre, hiddenWeight);
  const hiddenBias = new Float32Array(hidden);
  blas.sgemm(false, false, 1, hidden, rows, ones, dPre, hiddenBias);
  const input = new Float32Array(rows * inputs);
  blas.sgemm(false, true, rows, inputs, hidden, dPre, weights.hiddenWeight, input);
  return { input, hiddenWeight, hiddenBias, gain, shift, outWeight, outBias };
}
