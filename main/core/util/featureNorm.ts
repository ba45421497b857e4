// Per-dimension standardisation of the learners' input features (the embedding's dimensions vary by
// a few hundredths, the latent's by whole units): fitted once from the first data a learner sees and
// then kept, so that a network and its input units never drift apart. A policy version carries its own.

export interface FeatureNorm {
  mean: Float32Array;
  scale: Float32Array;
}

/** Fits to `count` feature rows of `size`; a dimension that hardly varies gets a tenth of the median spread. */
export function fitFeatureNorm(rows: Float32Array, count: number, size: number): FeatureNorm {
  if (!(count >= 2 && rows.length >= count * size)) throw new RangeError(`fitting feature statistics needs at least 2 rows of ${size}, got ${count}`);
  const mean = new Float64Array(size);
  const square = new Float64Array(size);
  for (let row = 0; row < count; row++) {
    for (let k = 0; k < size; k++) {
      const value = rows[row * size + k]!;
      mean[k]! += value / count;
      square[k]! += (value * value) / count;
    }
  }
  const spread = Array.from(mean, (m, k) => Math.sqrt(Math.max(0, square[k]! - m * m)));
  const floor = Math.max(1e-6, 0.1 * [...spread].sort((a, b) => a - b)[Math.floor(size / 2)]!);
  return { mean: Float32Array.from(mean), scale: Float32Array.from(spread, (value) => Math.max(value, floor)) };
}

/** Standardises rows in place; values that are not finite become 0 (the mean), never NaN downstream. */
export function standardise(norm: FeatureNorm, rows: Float32Array): Float32Array {
  const size = norm.mean.length;
  for (let i = 0; i < rows.length; i++) {
    const value = (rows[i]! - norm.mean[i % size]!) / norm.scale[i % size]!;
    rows[i] = Number.isFinite(value) ? Math.max(-10, Math.min(10, value)) : 0;
  }
  return rows;
}
