// `reins bench worldmodel`, speed rows: training steps per second of the wm-s configuration — a
// forward over batch 16 × sequence 64, the backward and the optimiser, as the reference script times
// it — on every TF.js backend that loads here, and the reference PyTorch script in the same run.
import * as tf from '@tensorflow/tfjs-core';
import { activateBackend, BACKEND_PREFERENCE, type ActiveBackend, type BackendName } from '../../session/worldModelBackend.ts';
import { createWorldModel, disposeWorldModel, sessionWorldModelConfig, type TrainingBatch } from '../../session/worldModelParts.ts';
import { runPytorchReference } from './pytorchReference.ts';
import type { BenchRow } from './report.ts';

export interface TrainSpeedOptions {
  /** Timed training per backend (at least one step is always timed, however long it takes). */
  seconds: number;
  backends: readonly BackendName[];
  /** The reference script's own timing per thread setting. */
  pytorchSeconds: number;
}

export const DEFAULT_TRAIN_SPEED_OPTIONS: TrainSpeedOptions = { seconds: 30, backends: BACKEND_PREFERENCE, pytorchSeconds: 20 };
const BATCH = 16;
const SEQUENCE = 64;
const log = (line: string) => process.stderr.write(`${line}\n`);

/** The reference script's inputs: random embeddings, actions in [−1, 1], random rewards, no episode ends. */
function referenceBatch(seed: number): TrainingBatch {
  const { embeddingSize, actionSize } = sessionWorldModelConfig('wm-s');
  return tf.tidy(() => {
    const rows = BATCH * SEQUENCE;
    const values = (shape: number[], min: number, max: number, offset: number) =>
      tf.randomUniform(shape, min, max, 'float32', seed + offset).dataSync() as Float32Array;
    return {
      batch: BATCH,
      length: SEQUENCE,
      embeddings: tf.randomNormal([rows * embeddingSize], 0, 1, 'float32', seed).dataSync() as Float32Array,
      previousActions: values([rows * actionSize], -1, 1, 1),
      rewards: tf.randomNormal([rows], 0, 1, 'float32', seed + 2).dataSync() as Float32Array,
      rewardKnown: new Float32Array(rows).fill(1),
      continues: new Float32Array(rows).fill(1),
    };
  });
}

/** Steps per second on the backend now active: warm-up steps, then as many as fit in `seconds`. */
function timeTraining(seconds: number): { stepsPerSec: number; steps: number } {
  const model = createWorldModel(sessionWorldModelConfig('wm-s'), 1);
  const { trainer } = model;
  const batch = referenceBatch(7);
  try {
    trainer.step(batch);
    const startedMs = performance.now();
    let steps = 0;
    do {
      trainer.step(batch);
      steps++;
    } while (performance.now() - startedMs < seconds * 1000);
    return { stepsPerSec: steps / ((performance.now() - startedMs) / 1000), steps };
  } finally {
    disposeWorldModel(model);
  }
}

export async function trainSpeedRows(options: TrainSpeedOptions = DEFAULT_TRAIN_SPEED_OPTIONS): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const backend of options.backends) {
    let active: ActiveBackend;
    try {
      active = await activateBackend(backend);
    } catch (error) {
      log(`wm-s-train-${backend}: not measured — ${(error as Error).message}`);
      continue;
    }
    // Native products run at the thread count that trains fastest, as PyTorch's row does.
    const threadSettings = active.setBlasThreads ? [1, 2] : [undefined];
    let best: { stepsPerSec: number; steps: number; threads: number | undefined } | undefined;
    for (const threads of threadSettings) {
      if (threads !== undefined) active.setBlasThreads?.(threads);
      const timed = { ...timeTraining(options.seconds), threads };
      log(
        `wm-s-train-${backend}${threads === undefined ? '' : ` (${threads} BLAS thread${threads > 1 ? 's' : ''})`}: ${timed.stepsPerSec.toFixed(3)} steps/s over ${timed.steps} steps`,
      );
      if (best === undefined || timed.stepsPerSec > best.stepsPerSec) best = timed;
    }
    if (best !== undefined) rows.push({ name: `wm-s-train-${backend}`, unit: 'steps/s', p50: null, p95: null, p99: null, value: best.stepsPerSec });
  }
  const pytorch = await runPytorchReference({ seconds: options.pytorchSeconds });
  if ('skipped' in pytorch) log(`wm-s-train-pytorch: not measured — ${pytorch.skipped}`);
  else {
    log(`wm-s-train-pytorch: ${pytorch.stepsPerSec.toFixed(3)} steps/s at ${pytorch.threads} thread(s), ${pytorch.params} parameters`);
    rows.push({ name: 'wm-s-train-pytorch', unit: 'steps/s', p50: null, p95: null, p99: null, value: pytorch.stepsPerSec });
  }
  return rows;
}
