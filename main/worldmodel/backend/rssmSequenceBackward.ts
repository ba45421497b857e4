// Backpropagation through time for observeSequence's recurrence, from a forward record. The serial
// part walks the steps backward carrying d(h) and d(z) and writes each layer's pre-activation
// gradient for every row; the weight gradients are then one product each over all rows at once
// (Xᵀ·dY with k = T·B), where the tape would keep one weight gradient per step and add them up.
import type { NativeBlas } from './nativeBlas.ts';
import { gruRows, layerNormSiluRows, rowsOf, type SequenceRecord } from './rssmSequenceForward.ts';
import { addColumnSums, categoricalProbsBackward, gruCellBackward, layerNormSiluBackward } from './rssmSequenceMath.ts';
import { GRU_GATES, unpackColumns, type SequenceData, type SequenceInputName, type SequenceSizes, type SequenceWeights } from './rssmSequenceShapes.ts';

/** Gradients of some loss w.r.t. the kernel's three outputs, each [rows, ·]; undefined is zero. */
export interface SequenceUpstream {
  deterministic?: Float32Array;
  stochastic?: Float32Array;
  posterior?: Float32Array;
}

/** The pre-activation gradients of every row, written by the serial pass. */
interface RowGradients {
  /** [rows, Z] */
  logits: Float32Array;
  /** [rows, H]: the posterior's hidden layer before its norm. */
  posteriorPre: Float32Array;
  /** [rows, 3D]: the gates' input and hidden products (reset | update | candidate). */
  fromInput: Float32Array;
  fromHidden: Float32Array;
  /** [rows, H]: the image layer before its norm. */
  imagePre: Float32Array;
  imageGain: Float32Array;
  imageShift: Float32Array;
  posteriorGain: Float32Array;
  posteriorShift: Float32Array;
}

function backwardThroughTime(
  blas: NativeBlas,
  sizes: SequenceSizes,
  weights: SequenceWeights,
  record: SequenceRecord,
  upstream: SequenceUpstream,
): RowGradients {
  const { batch, length, rows, deterministic: d, stochastic: z, hidden: h, classes } = sizes;
  const grads: RowGradients = {
    logits: new Float32Array(rows * z),
    posteriorPre: new Float32Array(rows * h),
    fromInput: new Float32Array(rows * 3 * d),
    fromHidden: new Float32Array(rows * 3 * d),
    imagePre: new Float32Array(rows * h),
    imageGain: new Float32Array(h),
    imageShift: new Float32Array(h),
    posteriorGain: new Float32Array(h),
    posteriorShift: new Float32Array(h),
  };
  const posteriorFromDeterministic = weights.posteriorHiddenWeight.subarray(0, d * h);
  const imageFromStochastic = weights.imageInWeight.subarray(0, z * h);
  // What step t + 1 sends back to step t's h and z (zero past the last step).
  const dHiddenCarry = new Float32Array(batch * d);
  const dStochasticCarry = new Float32Array(batch * z);
  const dProbs = new Float32Array(batch * z);
  const dActivated = new Float32Array(batch * h);
  const dNext = new Float32Array(batch * d);
  const dImage = new Float32Array(batch * h);
  for (let step = length - 1; step >= 0; step--) {
    const first = step * batch;
    // Straight-through: d(sample) reaches the probabilities unchanged, beside the posterior's own.
    dProbs.set(dStochasticCarry);
    addRows(dProbs, upstream.posterior, z, first, batch);
    addRows(dProbs, upstream.stochastic, z, first, batch);
    const dLogits = rowsOf(grads.logits, z, first, batch);
    categoricalProbsBackward(dProbs, rowsOf(record.softmax, z, first, batch), classes, sizes.uniformMix, dLogits);
    blas.sgemm(false, true, batch, h, z, dLogits, weights.posteriorOutWeight, dActivated);
    const dPosteriorPre = rowsOf(grads.posteriorPre, h, first, batch);
    layerNormSiluBackward(
      dActivated,
      layerNormSiluRows(record.posteriorHidden, h, first, batch),
      weights.posteriorGain,
      batch,
      dPosteriorPre,
      grads.posteriorGain,
      grads.posteriorShift,
    );

    // h_t feeds the outside, the posterior's hidden layer and step t + 1's GRU.
    dNext.set(dHiddenCarry);
    addRows(dNext, upstream.deterministic, d, first, batch);
    blas.sgemm(false, true, batch, d, h, dPosteriorPre, posteriorFromDeterministic, dNext, 1);
    const hidden = step > 0 ? rowsOf(record.deterministic, d, first - batch, batch) : undefined;
    const dFromInput = rowsOf(grads.fromInput, 3 * d, first, batch);
    const dFromHidden = rowsOf(grads.fromHidden, 3 * d, first, batch);
    gruCellBackward(dNext, gruRows(record.gru, d, first, batch), hidden, batch, d, dFromInput, dFromHidden, dHiddenCarry);
    if (hidden) blas.sgemm(false, true, batch, d, 3 * d, dFromHidden, weights.gateHiddenWeight, dHiddenCarry, 1);

    blas.sgemm(false, true, batch, h, 3 * d, dFromInput, weights.gateInputWeight, dImage);
    const dImagePre = rowsOf(grads.imagePre, h, first, batch);
    layerNormSiluBackward(dImage, layerNormSiluRows(record.image, h, first, batch), weights.imageInGain, batch, dImagePre, grads.imageGain, grads.imageShift);
    // z_{t−1} is the first Z columns of step t's image input; z before step 0 is a constant zero.
    if (step > 0) blas.sgemm(false, true, batch, z, h, dImagePre, imageFromStochastic, dStochasticCarry);
  }
  return grads;
}

function addRows(out: Float32Array, values: Float32Array | undefined, width: number, first: number, count: number): void {
  if (!values) return;
  const rows = rowsOf(values, width, first, count);
  for (let i = 0; i < out.length; i++) out[i]! += rows[i]!;
}

function columnSums(values: Float32Array, rows: number, width: number): Float32Array {
  const out = new Float32Array(width);
  addColumnSums(out, values, rows);
  return out;
}

/** Gradients for every input of the forward kernel, each laid out as that input. */
export function observeSequenceBackward(
  blas: NativeBlas,
  sizes: SequenceSizes,
  weights: SequenceWeights,
  data: SequenceData,
  record: SequenceRecord,
  upstream: SequenceUpstream,
): Record<SequenceInputName, Float32Array> {
  const { batch, rows, embedding, action, deterministic: d, stochastic: z, hidden: h } = sizes;
  const grads = backwardThroughTime(blas, sizes, weights, record, upstream);

  const posteriorOutWeight = new Float32Array(h * z);
  blas.sgemm(true, false, h, z, rows, record.posteriorHidden.activated, grads.logits, posteriorOutWeight);
  // [D + E, H]: the deterministic state's rows, then the embedding's.
  const posteriorHiddenWeight = new Float32Array((d + embedding) * h);
  blas.sgemm(true, false, d, h, rows, record.deterministic, grads.posteriorPre, posteriorHiddenWeight.subarray(0, d * h));
  blas.sgemm(true, false, embedding, h, rows, data.embeddings, grads.posteriorPre, posteriorHiddenWeight.subarray(d * h));
  const gateInputWeight = new Float32Array(h * 3 * d);
  blas.sgemm(true, false, h, 3 * d, rows, record.image.activated, grads.fromInput, gateInputWeight);
  // Step 0's h is zero: only steps 1.. contribute, reading h_{t−1} = deterministic row t − 1.
  const gateHiddenWeight = new Float32Array(d * 3 * d);
  if (rows > batch) blas.sgemm(true, false, d, 3 * d, rows - batch, record.deterministic, grads.fromHidden.subarray(batch * 3 * d), gateHiddenWeight);
  const imageInWeight = new Float32Array((z + action) * h);
  blas.sgemm(true, false, z + action, h, rows, record.imageInputs, grads.imagePre, imageInWeight);

  const embeddings = new Float32Array(rows * embedding);
  blas.sgemm(false, true, rows, embedding, h, grads.posteriorPre, weights.posteriorHiddenWeight.subarray(d * h), embeddings);
  const previousActions = new Float32Array(rows * action);
  blas.sgemm(false, true, rows, action, h, grads.imagePre, weights.imageInWeight.subarray(z * h), previousActions);

  const [resetInputWeight, updateInputWeight, candidateInputWeight] = unpackColumns(gateInputWeight, GRU_GATES.length, h, d) as [
    Float32Array,
    Float32Array,
    Float32Array,
  ];
  const [resetHiddenWeight, updateHiddenWeight, candidateHiddenWeight] = unpackColumns(gateHiddenWeight, GRU_GATES.length, d, d) as [
    Float32Array,
    Float32Array,
    Float32Array,
  ];
  const [resetInputBias, updateInputBias, candidateInputBias] = unpackColumns(columnSums(grads.fromInput, rows, 3 * d), GRU_GATES.length, 1, d) as [
    Float32Array,
    Float32Array,
    Float32Array,
  ];
  const [resetHiddenBias, updateHiddenBias, candidateHiddenBias] = unpackColumns(columnSums(grads.fromHidden, rows, 3 * d), GRU_GATES.length, 1, d) as [
    Float32Array,
    Float32Array,
    Float32Array,
  ];
  return {
    embeddings,
    previousActions,
    // The draw's noise gets no gradient (argmax is flat almost everywhere).
    noise: new Float32Array(data.noise.length),
    imageInWeight,
    imageInBias: columnSums(grads.imagePre, rows, h),
    imageInGain: grads.imageGain,
    imageInShift: grads.imageShift,
    resetInputWeight,
    resetHiddenWeight,
    resetInputBias,
    resetHiddenBias,
    updateInputWeight,
    updateHiddenWeight,
    updateInputBias,
    updateHiddenBias,
    candidateInputWeight,
    candidateHiddenWeight,
    candidateInputBias,
    candidateHiddenBias,
    posteriorHiddenWeight,
    posteriorHiddenBias: columnSums(grads.posteriorPre, rows, h),
    posteriorGain: grads.posteriorGain,
    posteriorShift: grads.posteriorShift,
    posteriorOutWeight,
    posteriorOutBias: columnSums(grads.logits, rows, z),
  };
}
