// Writes a set of sequential encoders as ONNX files with a manifest beside them (sha256 computed):
// how a randomly initialised set of the default shapes is made for tests and as the probes' floor,
// and what a build script can call after training.
import { MODALITIES, type Modality } from '../core/perception.ts';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAMERA_INPUT_PX, DEFAULT_ENCODER_SHAPES, DEFAULT_LIVENESS_SLOT, DEFAULT_SLOTS, LIDAR_BINS, randomlyInitialised } from './defaultEncoders.ts';
import { PROPRIO_FIELDS, type EncoderManifest, type ImagePreprocessing, type ProprioPreprocessing, type RangesPreprocessing } from './manifest.ts';
import { outputShapes, sequentialToOnnx, type SequentialNet } from './sequentialOnnx.ts';

interface PreprocessingByModality {
  camera: ImagePreprocessing;
  lidar: RangesPreprocessing;
  proprio: ProprioPreprocessing;
}

/** The default encoders' preprocessing (camera and LiDAR as trained; proprioception's statistics come from training data). */
export const DEFAULT_PREPROCESSING: Readonly<PreprocessingByModality> = {
  camera: { kind: 'image', ...CAMERA_INPUT_PX, layout: 'nhwc', channelOrder: 'rgb', mean: [0.5, 0.5, 0.5], std: [0.25, 0.25, 0.25] },
  lidar: { kind: 'ranges', bins: LIDAR_BINS, maxRangeM: 8, validityFlags: true, proximityScaleM: 0.5 },
  proprio: { kind: 'proprio', fields: [...PROPRIO_FIELDS], mean: PROPRIO_FIELDS.map(() => 0), std: PROPRIO_FIELDS.map(() => 1) },
};

export interface EncoderSetSpec {
  version: string;
  /** The networks to write; a modality left out gets no manifest entry. */
  nets: Partial<Record<Modality, SequentialNet>>;
  preprocessing?: Partial<PreprocessingByModality>;
  slots?: Record<Modality, number>;
  /** The liveness slot's size: the default's (6), or 0 for a manifest without one (as before issue 30). */
  liveness?: 0 | typeof DEFAULT_LIVENESS_SLOT;
  projectionSeed?: number;
}

/** Writes `<modality>.onnx` for each net and `manifest.json` into `folder`; returns the manifest's path. */
export function writeEncoderSet(folder: string, spec: EncoderSetSpec): string {
  mkdirSync(folder, { recursive: true });
  const slots = spec.slots ?? { ...DEFAULT_SLOTS };
  const liveness = spec.liveness ?? DEFAULT_LIVENESS_SLOT;
  const encoders: Record<string, unknown> = {};
  for (const modality of MODALITIES) {
    const net = spec.nets[modality];
    if (!net) continue;
    const bytes = sequentialToOnnx(net, spec.version);
    const file = `${modality}.onnx`;
    writeFileSync(join(folder, file), bytes);
    encoders[modality] = {
      file,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      version: spec.version,
      input: { name: net.inputName, shape: [1, ...net.inputShape], dtype: 'float32' },
      output: {
        name: net.outputName,
        size: outputShapes(net)
          .at(-1)!
          .reduce((a, b) => a * b, 1),
      },
      preprocessing: spec.preprocessing?.[modality] ?? DEFAULT_PREPROCESSING[modality],
    };
  }
  const manifest = {
    version: spec.version,
    embeddingSize: slots.camera + slots.lidar + slots.proprio + liveness + MODALITIES.length,
    encoders: encoders as EncoderManifest['encoders'],
    fusion: { slots: { ...slots, liveness }, projectionSeed: spec.projectionSeed ?? 1 },
  } satisfies EncoderManifest;
  const path = join(folder, 'manifest.json');
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
  return path;
}

/** The default shapes, randomly initialised (He) from `seed`: the untrained floor, and test encoders. */
export function writeRandomEncoderSet(folder: string, seed: number, version = `random-init-${seed}`): string {
  const nets = Object.fromEntries(MODALITIES.map((modality, i) => [modality, randomlyInitialised(DEFAULT_ENCODER_SHAPES[modality], seed + i)]));
  return writeEncoderSet(folder, { version, nets });
}
