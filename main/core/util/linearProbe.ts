// Linear probes: ridge regression from embeddings to a quantity of the world, scored by R² on other
// data. If a straight line through the embedding recovers the goal's bearing on layouts the encoder
// never saw, the embedding carries it in a form the world model and the policy can use. Plain numbers
// in and out, so perception's probes and the perception bench's task probes fit them alike.
import { solveSymmetricPositiveDefinite } from './cholesky.ts';

export interface LinearProbe {
  /** Per feature, applied to standardised features. */
  weights: Float64Array;
  bias: number;
  featureMeans: Float64Array;
  featureScales: Float64Array;
}

function solveSpd(a: Float64Array, b: Float64Array, n: number): Float64Array {
  const x = solveSymmetricPositiveDefinite(a, b, n);
  if (!x) throw new Error('linear probe: the system is not positive definite (features are degenerate)');
  return x;
}

/** Fits one probe per target column, sharing the features' Gram matrix. `ridge` is per sample. */
export function fitLinearProbes(features: readonly Float32Array[], targets: readonly (readonly number[])[], ridge = 1e-3): LinearProbe[] {
  const count = features.length;
  if (count === 0) throw new Error('linear probe: no samples to fit');
  if (targets.some((column) => column.length !== count)) throw new Error('linear probe: every target needs one value per sample');
  const size = features[0]!.length;
  const featureMeans = new Float64Array(size);
  const featureScales = new Float64Array(size);
  for (const row of features) for (let i = 0; i < size; i++) featureMeans[i]! += row[i]! / count;
  for (const row of features) for (let i = 0; i < size; i++) featureScales[i]! += (row[i]! - featureMeans[i]!) ** 2 / count;
  // A constant feature gets scale 1: it standardises to 0 and the ridge keeps its weight at 0.
  for (let i = 0; i < size; i++) featureScales[i] = Math.sqrt(featureScales[i]!) || 1;

  const gram = new Float64Array(size * size);
  const standard = new Float64Array(size);
  const crossTerms = targets.map(() => new Float64Array(size));
  const targetMeans = targets.map((column) => column.reduce((sum, v) => sum + v, 0) / count);
  for (let r = 0; r < count; r++) {
    const row = features[r]!;
    for (let i = 0; i < size; i++) standard[i] = (row[i]! - featureMeans[i]!) / featureScales[i]!;
    for (let i = 0; i < size; i++) {
      const si = standard[i]!;
      if (si === 0) continue;
      const base = i * size;
      for (let j = 0; j <= i; j++) gram[base + j]! += si * standard[j]!;
    }
    targets.forEach((column, t) => {
      const centred = column[r]! - targetMeans[t]!;
      const cross = crossTerms[t]!;
      for (let i = 0; i < size; i++) cross[i]! += standard[i]! * centred;
    });
  }
  for (let i = 0; i < size; i++) {
    for (let j = 0; j < i; j++) gram[j * size + i] = gram[i * size + j]!;
    gram[i * size + i]! += ridge * count;
  }
  return crossTerms.map((cross, t) => ({
    weights: solveSpd(new Float64Array(gram), cross, size),
    bias: targetMeans[t]!,
    featureMeans,
    featureScales,
  }));
}

export function predict(probe: LinearProbe, row: Float32Array): number {
  let sum = probe.bias;
  for (let i = 0; i < row.length; i++) sum += ((row[i]! - probe.featureMeans[i]!) / probe.featureScales[i]!) * probe.weights[i]!;
  return sum;
}

/** 1 − SS_residual / SS_total: 1 is perfect, 0 is no better than the mean, below 0 worse. */
export function rSquared(probe: LinearProbe, features: readonly Float32Array[], targets: readonly number[]): number {
  const mean = targets.reduce((sum, v) => sum + v, 0) / targets.length;
  let residual = 0;
  let total = 0;
  features.forEach((row, i) => {
    residual += (targets[i]! - predict(probe, row)) ** 2;
    total += (targets[i]! - mean) ** 2;
  });
  return total === 0 ? 0 : 1 - residual / total;
}
