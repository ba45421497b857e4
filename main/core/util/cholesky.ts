// Solving the small symmetric positive-definite systems of ridge regressions (the perception probes,
// the world model's speed readout) by Cholesky, on row-major Float64Arrays.

/** Solves A·X = B for A (n × n, overwritten by its factor) and B (n × m); undefined when A is not positive definite. */
export function solveSymmetricPositiveDefinite(a: Float64Array, b: Float64Array, n: number, m = 1): Float64Array | undefined {
  for (let j = 0; j < n; j++) {
    let diagonal = a[j * n + j]!;
    for (let k = 0; k < j; k++) diagonal -= a[j * n + k]! ** 2;
    if (!(diagonal > 0)) return undefined;
    const root = Math.sqrt(diagonal);
    a[j * n + j] = root;
    for (let i = j + 1; i < n; i++) {
      let sum = a[i * n + j]!;
      for (let k = 0; k < j; k++) sum -= a[i * n + k]! * a[j * n + k]!;
      a[i * n + j] = sum / root;
    }
  }
  const x = Float64Array.from(b);
  for (let c = 0; c < m; c++) {
    for (let i = 0; i < n; i++) {
      let sum = x[i * m + c]!;
      for (let k = 0; k < i; k++) sum -= a[i * n + k]! * x[k * m + c]!;
      x[i * m + c] = sum / a[i * n + i]!;
    }
    for (let i = n - 1; i >= 0; i--) {
      let sum = x[i * m + c]!;
      for (let k = i + 1; k < n; k++) sum -= a[k * n + i]! * x[k * m + c]!;
      x[i * m + c] = sum / a[i * n + i]!;
    }
  }
  return x;
}
