// observeSequence's recurrence, step by step over a time-major batch, every product on BLAS and the
// element-wise layers in the addon: from h = 0, z = 0, each step's image input [z, a] →
// silu(layerNorm(dense)) → GRU → posterior MLP → categorical probabilities → straight-through draw.
// It keeps, for all rows, what the backward pass reads (rssmSequenceBackward.ts).
import type { NativeBlas } from './nativeBlas.ts';
import { fillRows, type GruRecord, type LayerNormSiluRecord } from './rssmSequenceMath.ts';
import type { SequenceData, SequenceSizes, SequenceWeights } from './rssmSequenceShapes.ts';

/** Every array is [rows, ·], time-major like the inputs. */
export interface SequenceRecord {
  /** [z_{t−1}, a_t]: the image layer's input, [rows, Z + A]. */
  imageInputs: Float32Array;
  image: LayerNormSiluRecord;
  gru: GruRecord;
  deterministic: Float32Array;
  posteriorHidden: LayerNormSiluRecord;
  /** The posterior's softmax before the uniform mix, [rows, Z]. */
  softmax: Float32Array;
  posterior: Float32Array;
  stochastic: Float32Array;
}

function layerNormSiluRecord(rows: number, width: number): LayerNormSiluRecord {
  return {
    normalised: new Float32Array(rows * width),
    reciprocalStd: new Float32Array(rows),
    scaled: new Float32Array(rows * width),
    gate: new Float32Array(rows * width),
    activated: new Float32Array(rows * width),
  };
}

/** Rows [first, first + count) of a [·, width] array, as a view. */
export function rowsOf(values: Float32Array, width: number, first: number, count: number): Float32Array {
  return values.subarray(first * width, (first + count) * width);
}

export function layerNormSiluRows(record: LayerNormSiluRecord, width: number, first: number, count: number): LayerNormSiluRecord {
  return {
    normalised: rowsOf(record.normalised, width, first, count),
    reciprocalStd: rowsOf(record.reciprocalStd, 1, first, count),
    scaled: rowsOf(record.scaled, width, first, count),
    gate: rowsOf(record.gate, width, first, count),
    activated: rowsOf(record.activated, width, first, count),
  };
}

export function gruRows(record: GruRecord, width: number, first: number, count: number): GruRecord {
  return {
    reset: rowsOf(record.reset, width, first, count),
    update: rowsOf(record.update, width, first, count),
    candidate: rowsOf(record.candidate, width, first, count),
    hiddenCandidate: rowsOf(record.hiddenCandidate, width, first, count),
  };
}

/** silu(layerNorm(pre)) of `rows` rows into `record`. */
function layerNormSilu(
  blas: NativeBlas,
  pre: Float32Array,
  gain: Float32Array,
  shift: Float32Array,
  epsilon: number,
  rows: number,
  record: LayerNormSiluRecord,
): void {
  blas.layerNormSilu(pre, gain, shift, epsilon, rows, record.normalised, record.reciprocalStd, record.scaled, record.gate, record.activated);
}

export function observeSequenceForward(blas: NativeBlas, sizes: SequenceSizes, weights: SequenceWeights, data: SequenceData): SequenceRecord {
  const { batch, length, rows, embedding, action, deterministic: d, stochastic: z, hidden: h, classes } = sizes;
  const imageWidth = z + action;
  const record: SequenceRecord = {
    imageInputs: new Float32Array(rows * imageWidth),
    image: layerNormSiluRecord(rows, h),
    gru: {
      reset: new Float32Array(rows * d),
      update: new Float32Array(rows * d),
      candidate: new Float32Array(rows * d),
      hiddenCandidate: new Float32Array(rows * d),
    },
    deterministic: new Float32Array(rows * d),
    posteriorHidden: layerNormSiluRecord(rows, h),
    softmax: new Float32Array(rows * z),
    posterior: new Float32Array(rows * z),
    stochastic: new Float32Array(rows * z),
  };
  // The embedding's share of the posterior's hidden layer does not wait on the recurrence: one
  // product for all rows; each step then adds its h·W onto its own rows.
  const posteriorPre = new Float32Array(rows * h);
  fillRows(posteriorPre, weights.posteriorHiddenBias, rows);
  blas.sgemm(false, false, rows, h, embedding, data.embeddings, weights.posteriorHiddenWeight.subarray(d * h), posteriorPre, 1);
  const posteriorFromDeterministic = weights.posteriorHiddenWeight.subarray(0, d * h);
  for (let row = 0; row < rows; row++) {
    record.imageInputs.set(rowsOf(data.previousActions, action, row, 1), row * imageWidth + z);
  }

  const imagePre = new Float32Array(batch * h);
  const fromInput = new Float32Array(batch * 3 * d);
  const fromHidden = new Float32Array(batch * 3 * d);
  const logits = new Float32Array(batch * z);
  for (let step = 0; step < length; step++) {
    const first = step * batch;
    const imageInput = rowsOf(record.imageInputs, imageWidth, first, batch);
    if (step > 0) {
      for (let row = 0; row < batch; row++) imageInput.set(rowsOf(record.stochastic, z, first - batch + row, 1), row * imageWidth);
    }
    fillRows(imagePre, weights.imageInBias, batch);
    blas.sgemm(false, false, batch, h, imageWidth, imageInput, weights.imageInWeight, imagePre, 1);
    const image = layerNormSiluRows(record.image, h, first, batch);
    layerNormSilu(blas, imagePre, weights.imageInGain, weights.imageInShift, sizes.layerNormEpsilon, batch, image);

    fillRows(fromInput, weights.gateInputBias, batch);
    blas.sgemm(false, false, batch, 3 * d, h, image.activated, weights.gateInputWeight, fromInput, 1);
    fillRows(fromHidden, weights.gateHiddenBias, batch);
    const hidden = step > 0 ? rowsOf(record.deterministic, d, first - batch, batch) : undefined;
    if (hidden) blas.sgemm(false, false, batch, 3 * d, d, hidden, weights.gateHiddenWeight, fromHidden, 1);
    const deterministic = rowsOf(record.deterministic, d, first, batch);
    const gru = gruRows(record.gru, d, first, batch);
    blas.gruCell(fromInput, fromHidden, hidden, batch, d, gru.reset, gru.update, gru.candidate, gru.hiddenCandidate, deterministic);

    const pre = rowsOf(posteriorPre, h, first, batch);
    blas.sgemm(false, false, batch, h, d, deterministic, posteriorFromDeterministic, pre, 1);
    const posteriorHidden = layerNormSiluRows(record.posteriorHidden, h, first, batch);
    layerNormSilu(blas, pre, weights.posteriorGain, weights.posteriorShift, sizes.layerNormEpsilon, batch, posteriorHidden);
    fillRows(logits, weights.posteriorOutBias, batch);
    blas.sgemm(false, false, batch, z, h, posteriorHidden.activated, weights.posteriorOutWeight, logits, 1);

    // The noise's [rows·groups, classes] is the same memory as [rows, Z].
    blas.categoricalDraw(
      logits,
      rowsOf(data.noise, z, first, batch),
      classes,
      sizes.uniformMix,
      rowsOf(record.softmax, z, first, batch),
      rowsOf(record.posterior, z, first, batch),
      rowsOf(record.stochastic, z, first, batch),
    );
  }
  return record;
}
