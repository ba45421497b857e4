// The OpenBLAS addon built by native/build.mjs, loaded without throwing: a machine without
// libopenblas or a compiler still runs the world model on a slower backend, and the reason is kept
// so the operator can see why.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Row-major single-precision matrix products; shapes and lengths are checked by the addon. */
export interface NativeBlas {
  /** c[m×n] = op(a)·op(b) + beta·c, where op(a) is m×k and op(b) is k×n. */
  sgemm(transA: boolean, transB: boolean, m: number, n: number, k: number, a: Float32Array, b: Float32Array, c: Float32Array, beta?: number): void;
  /** `batch` products, the i-th reading a at i·aStride, b at i·bStride, writing c at i·cStride (stride 0 broadcasts an input). */
  sgemmBatched(
    batch: number,
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    k: number,
    a: Float32Array,
    aStride: number,
    b: Float32Array,
    bStride: number,
    c: Float32Array,
    cStride: number,
    beta?: number,
  ): void;
  openblasThreads(): number;
  /** The kernels OpenBLAS runs on this CPU (openblasCore.ts picks them where it would guess too low). */
  openblasCore(): string;
  setOpenblasThreads(threads: number): void;
  // The RSSM sequence kernel's element-wise forward steps (reins_blas.c says what each computes).
  gruCell(
    fromInput: Float32Array,
    fromHidden: Float32Array,
    hidden: Float32Array | undefined,
    rows: number,
    size: number,
    reset: Float32Array,
    update: Float32Array,
    candidate: Float32Array,
    hiddenCandidate: Float32Array,
    next: Float32Array,
  ): void;
  layerNormSilu(
    pre: Float32Array,
    gain: Float32Array,
    shift: Float32Array,
    epsilon: number,
    rows: number,
    normalised: Float32Array,
    reciprocalStd: Float32Array,
    scaled: Float32Array,
    gate: Float32Array,
    activated: Float32Array,
  ): void;
  categoricalDraw(
    logits: Float32Array,
    noise: Float32Array,
    classes: number,
    uniformMix: number,
    softmax: Float32Array,
    probs: Float32Array,
    sample: Float32Array,
  ): void;
  /** layerNormSilu's backward from what it kept: writes dPre, adds onto dGain and dShift. */
  layerNormSiluBackward(
    dActivated: Float32Array,
    normalised: Float32Array,
    reciprocalStd: Float32Array,
    scaled: Float32Array,
    gate: Float32Array,
    gain: Float32Array,
    rows: number,
    dPre: Float32Array,
    dGain: Float32Array,
    dShift: Float32Array,
  ): void;
  // Element-wise ops (fastElementwiseKernels.ts numbers the ops and layouts).
  /** out[i] = op(a[·], b[·]); each operand's layout: 0 same, 1 scalar, 2 a row of size repeated, 3 a column each value repeated size times. */
  elementwiseBinary(op: number, a: Float32Array, aLayout: number, aSize: number, b: Float32Array, bLayout: number, bSize: number, out: Float32Array): void;
  /** out[i] = op(input[i]). */
  elementwiseUnary(op: number, input: Float32Array, out: Float32Array): void;
  // The fused Adam step (fusedAdam.ts).
  /** Σ values², in double. */
  sumOfSquares(values: Float32Array): number;
  /** One Adam step of one weight, in place; an undefined gradient counts as zero. */
  adamUpdate(
    weight: Float32Array,
    gradient: Float32Array | undefined,
    firstMoment: Float32Array,
    secondMoment: Float32Array,
    gradientScale: number,
    learningRate: number,
    beta1: number,
    beta2: number,
    epsilon: number,
    firstCorrection: number,
    secondCorrection: number,
  ): void;
}

export type NativeBlasLoad = { loaded: true; blas: NativeBlas; path: string } | { loaded: false; reason: string; path: string };

export const DEFAULT_NATIVE_BLAS_PATH = fileURLToPath(new URL('../../../native/build/reins_blas.node', import.meta.url));

const REQUIRED_FUNCTIONS = [
  'sgemm',
  'sgemmBatched',
  'openblasThreads',
  'openblasCore',
  'setOpenblasThreads',
  'gruCell',
  'layerNormSilu',
  'categoricalDraw',
  'layerNormSiluBackward',
  'sumOfSquares',
  'adamUpdate',
  'elementwiseBinary',
  'elementwiseUnary',
] as const;
const loads = new Map<string, NativeBlasLoad>();

function load(path: string): NativeBlasLoad {
  let exports: Record<string, unknown>;
  try {
    exports = createRequire(import.meta.url)(path) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'MODULE_NOT_FOUND'
        ? `${path} is not built (run node native/build.mjs; it needs gcc and libopenblas-dev)`
        : `${path} did not load: ${(error as Error).message.split('\n')[0]}`;
    return { loaded: false, reason, path };
  }
  const missing = REQUIRED_FUNCTIONS.filter((name) => typeof exports[name] !== 'function');
  if (missing.length > 0) return { loaded: false, reason: `${path} lacks ${missing.join(', ')} (stale build? run node native/build.mjs)`, path };
  return { loaded: true, blas: exports as unknown as NativeBlas, path };
}

/** Loads the addon once per path; `path` lets tests point at a missing file. */
export function loadNativeBlas(path: string = DEFAULT_NATIVE_BLAS_PATH): NativeBlasLoad {
  let result = loads.get(path);
  if (!result) {
    result = load(path);
    loads.set(path, result);
  }
  return result;
}
