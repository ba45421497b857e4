// The element-wise halves of rssmLayers.ts's layers, backward, as loops over rows of Float32Arrays
// for the fused sequence kernels (the products around them go to BLAS). Their forward halves run in
// the addon (reins_blas.c: gruCell, layerNormSilu, categoricalDraw), where exp, tanh and log cost a
// fraction of V8's; the backward needs none. Every array is a row-major block of `rows` rows.

/** Every row of out ([rows, width]) set to bias: BLAS then adds a product onto it (beta = 1). */
export function fillRows(out: Float32Array, bias: Float32Array, rows: number): void {
  for (let row = 0; row < rows; row++) out.set(bias, row * bias.length);
}

/** out[j] += Σ_rows values[row, j]. */
export function addColumnSums(out: Float32Array, values: Float32Array, rows: number): void {
  const width = out.length;
  for (let row = 0; row < rows; row++) {
    const base = row * width;
    for (let j = 0; j < width; j++) out[j]! += values[base + j]!;
  }
}

/** What silu(layerNorm(pre)) keeps for its backward pass, each [rows, width] (rstd [rows]). */
export interface LayerNormSiluRecord {
  normalised: Float32Array;
  reciprocalStd: Float32Array;
  /** normalised·gain + shift: the SiLU's input. */
  scaled: Float32Array;
  /** σ(scaled). */
  gate: Float32Array;
  /** silu(scaled) = scaled·σ(scaled): the layer's output. */
  activated: Float32Array;
}

/**
 * From d(activated) to d(pre), written into dPre ([rows, width]); the gain's and shift's
 * gradients are added to dGain and dShift.
 */
export function layerNormSiluBackward(
  dActivated: Float32Array,
  record: LayerNormSiluRecord,
  gain: Float32Array,
  rows: number,
  dPre: Float32Array,
  dGain: Float32Array,
  dShift: Float32Array,
): void {
  const width = gain.length;
  const { normalised, reciprocalStd, scaled, gate } = record;
  for (let row = 0; row < rows; row++) {
    const base = row * width;
    let dNormSum = 0;
    let dNormDotNorm = 0;
    for (let j = 0; j < width; j++) {
      const s = gate[base + j]!;
      // silu'(y) = σ(y)·(1 + y·(1 − σ(y)))
      const dScaled = dActivated[base + j]! * s * (1 + scaled[base + j]! * (1 - s));
      const norm = normalised[base + j]!;
      dGain[j]! += dScaled * norm;
      dShift[j]! += dScaled;
      const dNorm = dScaled * gain[j]!;
      dPre[base + j] = dNorm;
      dNormSum += dNorm;
      dNormDotNorm += dNorm * norm;
    }
    const rstd = reciprocalStd[row]!;
    const meanDNorm = dNormSum / width;
    const meanDNormDotNorm = dNormDotNorm / width;
    for (let j = 0; j < width; j++) dPre[base + j] = rstd * (dPre[base + j]! - meanDNorm - normalised[base + j]! * meanDNormDotNorm);
  }
}

/**
 * What one GRU step keeps for its backward pass, each [rows, D]. PyTorch's GRUCell: r = σ(xr + hr),
 * u = σ(xu + hu), n = tanh(xn + r·hn), h' = n + u·(h − n), from the gate pre-activations.
 */
export interface GruRecord {
  reset: Float32Array;
  update: Float32Array;
  candidate: Float32Array;
  /** h·W_hn + b_hn: what the reset gate scales inside the candidate. */
  hiddenCandidate: Float32Array;
}

/**
 * From d(h') to the gates' pre-activation gradients ([rows, 3D]): dFromInput for the input
 * products, dFromHidden for the hidden ones (the candidate's scaled by r). dHidden is set to the
 * direct part of d(h), u·d(h'); the caller adds dFromHidden·W_hᵀ.
 */
export function gruCellBackward(
  dNext: Float32Array,
  record: GruRecord,
  hidden: Float32Array | undefined,
  rows: number,
  size: number,
  dFromInput: Float32Array,
  dFromHidden: Float32Array,
  dHidden: Float32Array,
): void {
  const { reset, update, candidate, hiddenCandidate } = record;
  for (let row = 0; row < rows; row++) {
    const gates = row * 3 * size;
    const base = row * size;
    for (let j = 0; j < size; j++) {
      const dh = dNext[base + j]!;
      const r = reset[base + j]!;
      const u = update[base + j]!;
      const n = candidate[base + j]!;
      const h = hidden === undefined ? 0 : hidden[base + j]!;
      const dCandidate = dh * (1 - u) * (1 - n * n);
      const dReset = dCandidate * hiddenCandidate[base + j]! * r * (1 - r);
      const dUpdate = dh * (h - n) * u * (1 - u);
      dFromInput[gates + j] = dReset;
      dFromInput[gates + size + j] = dUpdate;
      dFromInput[gates + 2 * size + j] = dCandidate;
      dFromHidden[gates + j] = dReset;
      dFromHidden[gates + size + j] = dUpdate;
      dFromHidden[gates + 2 * size + j] = dCandidate * r;
      dHidden[base + j] = dh * u;
    }
  }
}

/**
 * d(logits) ([rows, Z]) from d(probs): the straight-through draw passes d(sample) to the
 * probabilities unchanged, so the caller sums both into dProbs first.
 */
export function categoricalProbsBackward(dProbs: Float32Array, softmax: Float32Array, classes: number, uniformMix: number, dLogits: Float32Array): void {
  const keep = 1 - uniformMix;
  for (let group = 0; group < dProbs.length; group += classes) {
    let dot = 0;
    for (let k = 0; k < classes; k++) dot += dProbs[group + k]! * softmax[group + k]!;
    for (let k = 0; k < classes; k++) dLogits[group + k] = keep * softmax[group + k]! * (dProbs[group + k]! - dot);
  }
}
