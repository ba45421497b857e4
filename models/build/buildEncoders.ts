// Rebuilds the default encoders: `npx tsx models/build/buildEncoders.ts [--arenas N] [--epochs N] [--out DIR]`.
// Deterministic from its seeds: views of the simulated robot's three tasks (reach, dock, corridor) in
// training arenas (training hues only),
// TensorFlow.js training on the WebAssembly backend, ONNX files, their sha256 in manifest.json, and
// reference outputs that the tests compare the ONNX files against. Install and tests never run this.
import { MODALITIES, type Modality } from '../../main/core/perception.ts';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as prettier from 'prettier';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { DEFAULT_ENCODER_SHAPES, DEFAULT_LIVENESS_SLOT, DEFAULT_SLOTS } from '../../main/perception/defaultEncoders.ts';
import { percentiles } from '../../main/core/util/latencyWindow.ts';
import { fitLinearProbes, predict, rSquared } from '../../main/core/util/linearProbe.ts';
import { scoreProbes, type ProbeSample } from '../../main/perception/embeddingProbes.ts';
import { encoderManifestSchema, type EncoderManifest } from '../../main/perception/manifest.ts';
import { sequentialToOnnx } from '../../main/perception/sequentialOnnx.ts';
import { buildDataset, CAMERA_PREPROCESSING, LIDAR_PREPROCESSING, normalisedProprio, proprioStatistics, type Dataset } from './dataset.ts';
import { withFusionScales } from './fusionScales.ts';
import { trainEncoders, type TrainedEncoders } from './trainEncoders.ts';

/**
 * 2: trained on dock and corridor views too (issue 26). 3: proprioception reads the IMU and the wheels
 * over the whole tick (peak, mean, last), trained on views with shoves (issue 30).
 */
export const ENCODERS_VERSION = 'reins-sim-encoders-3';
/** The manifest's version: the encoders' plus the fusion's (its scales, and from 3 its liveness slot, change the embedding space). */
export const MANIFEST_VERSION = `${ENCODERS_VERSION}-fusion-3`;
/** Share of views with a shove in their last tick: the proprioception encoder must keep a kick's size. */
const SHOVE_CHANCE = 0.2;
const TRAINING_ARENA_SEED_BASE = 10_000;
/** Quick self-check on held-out arenas and hues; the bench probes again on its own held-out arenas. */
const CHECK_ARENA_SEED_BASE = 30_000;
const REFERENCE_SAMPLES = 3;

const { values: args } = parseArgs({
  options: {
    arenas: { type: 'string', default: '100' },
    episodes: { type: 'string', default: '4' },
    views: { type: 'string', default: '40' },
    'task-episodes': { type: 'string', default: '2' },
    'dock-views': { type: 'string', default: '30' },
    'corridor-views': { type: 'string', default: '15' },
    epochs: { type: 'string', default: '8' },
    out: { type: 'string', default: resolve(import.meta.dirname, '..') },
  },
});
const log = (line: string) => process.stderr.write(`${line}\n`);

function embedAll(trained: TrainedEncoders, data: Dataset, proprio: Float32Array): Float32Array[] {
  const rows: Float32Array[] = [];
  const shapes = DEFAULT_ENCODER_SHAPES;
  const sizeOf = (m: Modality) => shapes[m].inputShape.reduce((a, b) => a * b, 1);
  const chunk = 256;
  for (let start = 0; start < data.count; start += chunk) {
    const n = Math.min(chunk, data.count - start);
    const outputs = tf.tidy(() =>
      [
        trained.reference.camera.apply(
          tf.tensor4d(data.camera.subarray(start * sizeOf('camera'), (start + n) * sizeOf('camera')), [
            n,
            ...(shapes.camera.inputShape as [number, number, number]),
          ]),
        ),
        trained.reference.lidar.apply(tf.tensor2d(data.lidar.subarray(start * sizeOf('lidar'), (start + n) * sizeOf('lidar')), [n, sizeOf('lidar')])),
        trained.reference.proprio.apply(tf.tensor2d(proprio.subarray(start * sizeOf('proprio'), (start + n) * sizeOf('proprio')), [n, sizeOf('proprio')])),
      ].map((t) => t.dataSync() as Float32Array),
    );
    for (let i = 0; i < n; i++) {
      const row = new Float32Array(DEFAULT_SLOTS.camera + DEFAULT_SLOTS.lidar + DEFAULT_SLOTS.proprio + MODALITIES.length);
      row.set(outputs[0]!.subarray(i * DEFAULT_SLOTS.camera, (i + 1) * DEFAULT_SLOTS.camera), 0);
      row.set(outputs[1]!.subarray(i * DEFAULT_SLOTS.lidar, (i + 1) * DEFAULT_SLOTS.lidar), DEFAULT_SLOTS.camera);
      row.set(outputs[2]!.subarray(i * DEFAULT_SLOTS.proprio, (i + 1) * DEFAULT_SLOTS.proprio), DEFAULT_SLOTS.camera + DEFAULT_SLOTS.lidar);
      row.fill(1, row.length - MODALITIES.length);
      rows.push(row);
    }
  }
  return rows;
}

function probeSamples(data: Dataset, embeddings: Float32Array[]): ProbeSample[] {
  return embeddings.map((embedding, i) => ({
    embedding,
    goalInView: data.goalInView[i] === 1,
    goalBearingRad: Math.atan2(data.goalSin[i]!, data.goalCos[i]!),
    goalDistanceM: data.goalDistanceM[i]!,
    nearestObstacleM: data.nearestObstacleM[i]!,
  }));
}

/** Median held-out errors of linear probes of the dock pose and corridor clearance (fit on the first half of the arenas, scored on the rest). */
function scoreTaskProbes(data: Dataset, embeddings: Float32Array[], fitting: (i: number) => boolean) {
  const medianError = (where: Float32Array, columns: Float32Array[], error: (predicted: number[], actual: number[]) => number) => {
    const indices = embeddings.flatMap((_, i) => (where[i] === 1 ? [i] : []));
    const fit = indices.filter(fitting);
    const score = indices.filter((i) => !fitting(i));
    const probes = fitLinearProbes(
      fit.map((i) => embeddings[i]!),
      columns.map((column) => fit.map((i) => column[i]!)),
    );
    return percentiles(
      score.map((i) =>
        error(
          probes.map((probe) => predict(probe, embeddings[i]!)),
          columns.map((column) => column[i]!),
        ),
      ),
    ).p50;
  };
  const dock = [data.dockOutM, data.dockLeftM, data.dockHeadingRad];
  return {
    dockPositionErrorM: medianError(data.dockView, dock, (p, a) => Math.hypot(p[0]! - a[0]!, p[1]! - a[1]!)),
    dockHeadingErrorDeg: medianError(data.dockView, dock, (p, a) => (Math.abs(p[2]! - a[2]!) * 180) / Math.PI),
    corridorClearanceErrorM: medianError(data.corridorView, [data.corridorClearanceM], (p, a) => Math.abs(p[0]! - a[0]!)),
  };
}

/** R² on held-out arenas of a linear probe of log(1 + peak acceleration) read from the proprioception slot alone (fit on `fitting`, scored on the rest). */
function proprioPeakProbeR2(data: Dataset, samples: ProbeSample[], fitting: (i: number) => boolean): number {
  const offset = DEFAULT_SLOTS.camera + DEFAULT_SLOTS.lidar;
  const rows = samples.map((sample) => sample.embedding.subarray(offset, offset + DEFAULT_SLOTS.proprio));
  const target = Array.from(data.peakAccelMps2, (peak) => Math.log1p(peak));
  const fit = rows.flatMap((_, i) => (fitting(i) ? [i] : []));
  const score = rows.flatMap((_, i) => (fitting(i) ? [] : [i]));
  const [probe] = fitLinearProbes(
    fit.map((i) => rows[i]!),
    [fit.map((i) => target[i]!)],
  );
  return rSquared(
    probe!,
    score.map((i) => rows[i]!),
    score.map((i) => target[i]!),
  );
}

const toBase64 = (values: Float32Array) => Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');

async function main(): Promise<void> {
  await tf.setBackend('wasm');
  await tf.ready();
  const arenaCount = Number(args.arenas);
  const started = performance.now();
  const training = buildDataset({
    arenaSeeds: Array.from({ length: arenaCount }, (_, i) => TRAINING_ARENA_SEED_BASE + i),
    hues: 'training',
    episodesPerArena: Number(args.episodes),
    viewsPerEpisode: Number(args.views),
    taskEpisodesPerArena: Number(args['task-episodes']),
    dockViewsPerEpisode: Number(args['dock-views']),
    corridorViewsPerEpisode: Number(args['corridor-views']),
    seed: 1,
    shoveChance: SHOVE_CHANCE,
  });
  log(`training views: ${training.count} from ${arenaCount} arenas (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  const proprioSpec = proprioStatistics(training);
  const trained = trainEncoders(training, normalisedProprio(training, proprioSpec), {
    epochs: Number(args.epochs),
    batchSize: 64,
    learningRate: 1e-3,
    seed: 7,
    log,
  });

  const check = buildDataset({
    arenaSeeds: Array.from({ length: 24 }, (_, i) => CHECK_ARENA_SEED_BASE + i),
    hues: 'held-out',
    episodesPerArena: 2,
    viewsPerEpisode: 40,
    seed: 2,
    shoveChance: SHOVE_CHANCE,
  });
  const checkSamples = probeSamples(check, embedAll(trained, check, normalisedProprio(check, proprioSpec)));
  const half = (i: number) => check.arenaSeeds[i]! < CHECK_ARENA_SEED_BASE + 12;
  const scores = scoreProbes(
    checkSamples.filter((_, i) => half(i)),
    checkSamples.filter((_, i) => !half(i)),
  );
  const peakAccelR2 = proprioPeakProbeR2(check, checkSamples, half);
  log(`held-out probe R² of log(1 + peak acceleration) on the proprioception slot: ${peakAccelR2.toFixed(3)}`);
  log(
    `held-out probe R²: goal bearing ${scores.goalBearingR2.toFixed(3)}, goal distance ${scores.goalDistanceR2.toFixed(3)}, obstacle distance ${scores.obstacleDistanceR2.toFixed(3)}`,
  );

  const taskCheck = buildDataset({
    arenaSeeds: Array.from({ length: 24 }, (_, i) => CHECK_ARENA_SEED_BASE + i),
    hues: 'held-out',
    episodesPerArena: 0,
    viewsPerEpisode: 0,
    taskEpisodesPerArena: 2,
    dockViewsPerEpisode: 25,
    corridorViewsPerEpisode: 25,
    seed: 2,
  });
  const taskScores = scoreTaskProbes(
    taskCheck,
    embedAll(trained, taskCheck, normalisedProprio(taskCheck, proprioSpec)),
    (i) => taskCheck.arenaSeeds[i]! < CHECK_ARENA_SEED_BASE + 12,
  );
  log(
    `held-out task probes (median): dock position ${(taskScores.dockPositionErrorM * 100).toFixed(1)} cm, dock heading ${taskScores.dockHeadingErrorDeg.toFixed(1)}°, corridor clearance ${(taskScores.corridorClearanceErrorM * 100).toFixed(1)} cm`,
  );

  const outDir = args.out;
  mkdirSync(outDir, { recursive: true });
  const inputs: Record<Modality, { data: Float32Array; preprocessing: unknown }> = {
    camera: { data: check.camera, preprocessing: CAMERA_PREPROCESSING },
    lidar: { data: check.lidar, preprocessing: LIDAR_PREPROCESSING },
    proprio: { data: normalisedProprio(check, proprioSpec), preprocessing: proprioSpec },
  };
  const encoders: Record<string, unknown> = {};
  const reference: Record<string, unknown> = {};
  for (const modality of MODALITIES) {
    const shape = DEFAULT_ENCODER_SHAPES[modality];
    const bytes = sequentialToOnnx(trained.nets[modality], ENCODERS_VERSION);
    const file = `${modality}.onnx`;
    writeFileSync(join(outDir, file), bytes);
    encoders[modality] = {
      file,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      version: ENCODERS_VERSION,
      input: { name: shape.inputName, shape: [1, ...shape.inputShape], dtype: 'float32' },
      output: { name: shape.outputName, size: DEFAULT_SLOTS[modality] },
      preprocessing: inputs[modality].preprocessing,
    };
    const size = shape.inputShape.reduce((a, b) => a * b, 1);
    const sampleInputs = inputs[modality].data.slice(0, REFERENCE_SAMPLES * size);
    const sampleOutputs = tf.tidy(
      () => trained.reference[modality].apply(tf.tensor(sampleInputs, [REFERENCE_SAMPLES, ...shape.inputShape])).dataSync() as Float32Array,
    );
    reference[modality] = { count: REFERENCE_SAMPLES, inputs: toBase64(sampleInputs), outputs: toBase64(sampleOutputs) };
    log(`${file}: ${(bytes.length / 1024).toFixed(0)} KiB`);
  }
  const manifest: EncoderManifest = encoderManifestSchema.parse({
    version: ENCODERS_VERSION,
    embeddingSize: DEFAULT_SLOTS.camera + DEFAULT_SLOTS.lidar + DEFAULT_SLOTS.proprio + DEFAULT_LIVENESS_SLOT + MODALITIES.length,
    encoders,
    fusion: { slots: { ...DEFAULT_SLOTS, liveness: DEFAULT_LIVENESS_SLOT }, projectionSeed: 1 },
  });
  const manifestPath = join(outDir, 'manifest.json');
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(manifestPath, `${JSON.stringify({ ...(await withFusionScales(manifestPath)), version: MANIFEST_VERSION }, null, 2)}\n`);
  const referencePath = join(outDir, 'reference-outputs.json');
  const referenceJson = JSON.stringify({
    note: 'TensorFlow.js outputs of the trained encoders on held-out inputs; the ONNX files must reproduce them.',
    heldOutProbeR2: { ...scores, peakAccelerationR2: peakAccelR2 },
    heldOutTaskProbeMedians: taskScores,
    encoders: reference,
  });
  // Written as the repository's formatter writes JSON, so a rebuild leaves `npm run format:check` clean.
  writeFileSync(referencePath, await prettier.format(referenceJson, { ...(await prettier.resolveConfig(referencePath)), filepath: referencePath }));
  log(`wrote ${outDir}/manifest.json in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

await main();
