// The OpenBLAS addon for tests. CI installs libopenblas-dev and builds it, so there a missing addon
// fails the run; on a developer machine without it the native tests skip and say why.
import { loadNativeBlas, type NativeBlas } from '../../main/worldmodel/backend/nativeBlas.ts';

export function nativeBlasForTests(): NativeBlas | undefined {
  const native = loadNativeBlas();
  if (native.loaded) return native.blas;
  if (process.env.CI) throw new Error(`CI must run the native matrix kernels, but ${native.reason}`);
  console.warn(`skipping native BLAS tests: ${native.reason}`);
  return undefined;
}

/** Deterministic values in [-1, 1) (mulberry32), so failures reproduce. */
export function seededFloats(length: number, seed: number): Float32Array {
  const values = new Float32Array(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    values[i] = ((t ^ (t >>> 14)) >>> 0) / 2 ** 31 - 1;
  }
  return values;
}
