// Matrix-product speed of each world-model backend, run by hand (timings are not tests):
//   npx tsx main/worldmodel/backend/matMulBench.ts [--backends native,wasm,cpu] [--seconds 1]
// Times tf.matMul end to end (TF.js dispatch, output allocation, readback), then the bare addon,
// and OpenBLAS on 1 thread against all of them. Shapes are m×k·k×n; m = 16 is the world model's batch.
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { loadNativeBlas, type NativeBlas } from './nativeBlas.ts';
import { loadWorldModelBackend, type BackendName } from './selectBackend.ts';

const SHAPES_MKN: [number, number, number][] = [
  [16, 512, 512],
  [16, 1024, 512],
  [1024, 1024, 256],
  [1024, 1024, 1024],
];

const { values: args } = parseArgs({
  options: {
    backends: { type: 'string', default: 'native,wasm,cpu' },
    seconds: { type: 'string', default: '1' },
  },
});
const budgetSecs = Number(args.seconds);

/** Best GFLOP/s of `run` over repeats filling about budgetSecs (at least two, the first a warm-up). */
function gflops(flops: number, run: () => void): number {
  let bestSecs = Infinity;
  const start = performance.now();
  for (let rep = 0; rep < 2 || (performance.now() - start) / 1000 < budgetSecs; rep++) {
    const t0 = performance.now();
    run();
    if (rep > 0) bestSecs = Math.min(bestSecs, (performance.now() - t0) / 1000);
  }
  return flops / bestSecs / 1e9;
}

function benchTfjs(label: string): void {
  for (const [m, k, n] of SHAPES_MKN) {
    const a = tf.randomNormal([m, k]);
    const b = tf.randomNormal([k, n]);
    // Read back so lazy backends finish; tidy must not return the array (it would walk every element).
    const rate = gflops(2 * m * k * n, () => {
      const product = tf.matMul(a, b);
      product.dataSync();
      product.dispose();
    });
    tf.dispose([a, b]);
    console.log(`${label.padEnd(22)} ${`${m}×${k}×${n}`.padEnd(16)} ${rate.toFixed(1).padStart(7)} GFLOP/s`);
  }
}

function benchAddon(label: string, blas: NativeBlas): void {
  for (const [m, k, n] of SHAPES_MKN) {
    const [a, b, c] = [new Float32Array(m * k).fill(0.5), new Float32Array(k * n).fill(0.25), new Float32Array(m * n)];
    const rate = gflops(2 * m * k * n, () => blas.sgemm(false, false, m, n, k, a, b, c));
    console.log(`${label.padEnd(22)} ${`${m}×${k}×${n}`.padEnd(16)} ${rate.toFixed(1).padStart(7)} GFLOP/s`);
  }
}

const native = loadNativeBlas();
for (const backend of args.backends.split(',') as BackendName[]) {
  try {
    await loadWorldModelBackend(backend);
  } catch (error) {
    console.log(`${backend}: ${(error as Error).message}`);
    continue;
  }
  if (backend === 'native' && native.loaded) {
    const threads = native.blas.openblasThreads();
    for (const pinned of [1, threads]) {
      native.blas.setOpenblasThreads(pinned);
      benchTfjs(`tf native ${pinned} thr`);
      benchAddon(`bare sgemm ${pinned} thr`, native.blas);
    }
  } else {
    benchTfjs(`tf ${backend}`);
  }
}
