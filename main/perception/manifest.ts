// The encoder manifest (`models/manifest.json`): which ONNX file encodes each modality, how its input
// is prepared, and how the three outputs are fused into one embedding. Validated on load; the
// manifest's version is part of every memory row, so embeddings of different versions never mix.
import { z } from 'zod';

import { MODALITIES, type Modality } from '../core/perception.ts';

/** The proprioceptive signals an encoder may ask for: what the robot feels, never where it is. */
export const PROPRIO_FIELDS = [
  'wheel-left-radps',
  'wheel-right-radps',
  'gyro-z-radps',
  'accel-x-mps2',
  'accel-y-mps2',
  'command-linear-mps',
  'command-angular-radps',
  // Summaries of the readings since the previous tick (the synchroniser's `sinceLastTick`): a shove
  // between two ticks is in the peak whichever sample the tick happens to read last. A peak is the
  // reading of largest magnitude, with its sign.
  'accel-x-peak-mps2',
  'accel-y-peak-mps2',
  'gyro-z-peak-radps',
  'accel-x-mean-mps2',
  'accel-y-mean-mps2',
  'gyro-z-mean-radps',
  'wheel-left-peak-radps',
  'wheel-right-peak-radps',
  'wheel-left-mean-radps',
  'wheel-right-mean-radps',
] as const;
export type ProprioField = (typeof PROPRIO_FIELDS)[number];

const positiveInt = z.number().int().positive();
/** Two figures per modality: how much its stream changed since the previous tick, and its age. */
export const LIVENESS_SIZE = 2 * MODALITIES.length;

const tensorSpec = z.object({
  name: z.string().min(1),
  /** The full shape including the batch of 1, e.g. [1, 48, 64, 3]. */
  shape: z.array(positiveInt).min(1),
  dtype: z.literal('float32'),
});

const imagePreprocessing = z.object({
  kind: z.literal('image'),
  widthPx: positiveInt,
  heightPx: positiveInt,
  /** nhwc: [1, H, W, C]; nchw: [1, C, H, W] (what exported PyTorch models such as ResNet or DINOv2 take). */
  layout: z.enum(['nhwc', 'nchw']),
  channelOrder: z.enum(['rgb', 'bgr']),
  /** Applied to channel values scaled to 0..1: (value − mean) / std, per channel in channelOrder. */
  mean: z.tuple([z.number(), z.number(), z.number()]),
  std: z.tuple([z.number().positive(), z.number().positive(), z.number().positive()]),
});

const rangesPreprocessing = z.object({
  kind: z.literal('ranges'),
  /** The scan is resampled to this many equal angular bins over a full turn, nearest return per bin. */
  bins: positiveInt,
  /** Ranges are clipped to this span and divided by maxRangeM; a bin with no valid return reads 1. */
  maxRangeM: z.number().positive(),
  /** Append one validity flag per bin (1 = a return was seen) after the ranges. */
  validityFlags: z.boolean(),
  /**
   * Append a proximity per bin, exp(−range / proximityScaleM) (0 where nothing was seen), after the
   * flags: near things stand out and the nearest is a soft maximum, easy for a small network to read.
   */
  proximityScaleM: z.number().positive().optional(),
});

const proprioPreprocessing = z
  .object({
    kind: z.literal('proprio'),
    fields: z.array(z.enum(PROPRIO_FIELDS)).min(1),
    mean: z.array(z.number()),
    std: z.array(z.number().positive()),
  })
  .refine((p) => p.mean.length === p.fields.length && p.std.length === p.fields.length, {
    message: 'proprio mean and std need one entry per field',
  });

const encoderEntry = <P extends z.ZodType>(preprocessing: P) =>
  z.object({
    /** Relative to the manifest's folder. */
    file: z.string().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hex digits'),
    version: z.string().min(1),
    input: tensorSpec,
    output: z.object({ name: z.string().min(1), size: positiveInt }),
    preprocessing,
  });

export const encoderManifestSchema = z
  .object({
    version: z.string().min(1),
    embeddingSize: positiveInt,
    encoders: z.object({
      camera: encoderEntry(imagePreprocessing).optional(),
      lidar: encoderEntry(rangesPreprocessing).optional(),
      proprio: encoderEntry(proprioPreprocessing).optional(),
    }),
    /**
     * Fusion is a fixed layout: each modality's output fills its slot (through a fixed, seeded random
     * projection when the sizes differ, e.g. a 384-float DINOv2 output into a 160-float slot), then one
     * presence flag per modality. A missing modality is zeros and a 0 flag, never old data.
     */
    fusion: z.object({
      /**
       * `liveness` (0 or 6; absent is 0): per modality, how much its stream changed since the previous
       * tick and its age (perception/liveness.ts), after the proprioception slot and before the flags.
       */
      slots: z.object({
        camera: positiveInt,
        lidar: positiveInt,
        proprio: positiveInt,
        liveness: z.union([z.literal(0), z.literal(LIVENESS_SIZE)]).optional(),
      }),
      projectionSeed: z.number().int(),
      /**
       * Each slot is multiplied by its scale, so that no modality's raw output size decides how alike
       * two moments look (nearest-moment search measures distance over the whole embedding). 1 if absent.
       */
      scales: z.object({ camera: z.number().positive(), lidar: z.number().positive(), proprio: z.number().positive() }).optional(),
    }),
  })
  .refine(
    (m) => m.fusion.slots.camera + m.fusion.slots.lidar + m.fusion.slots.proprio + (m.fusion.slots.liveness ?? 0) + MODALITIES.length === m.embeddingSize,
    {
      message: 'embeddingSize must equal the three slot sizes, plus the liveness slot where there is one, plus one presence flag per modality',
    },
  );

export type EncoderManifest = z.infer<typeof encoderManifestSchema>;
export type ImagePreprocessing = z.infer<typeof imagePreprocessing>;
export type RangesPreprocessing = z.infer<typeof rangesPreprocessing>;
export type ProprioPreprocessing = z.infer<typeof proprioPreprocessing>;
export type CameraEncoderEntry = NonNullable<EncoderManifest['encoders']['camera']>;
export type LidarEncoderEntry = NonNullable<EncoderManifest['encoders']['lidar']>;
export type ProprioEncoderEntry = NonNullable<EncoderManifest['encoders']['proprio']>;
export type EncoderEntry = CameraEncoderEntry | LidarEncoderEntry | ProprioEncoderEntry;

/** Where each part sits in the fused embedding; `liveness` only where the manifest has that slot. */
export function fusionLayout(
  manifest: Pick<EncoderManifest, 'fusion'>,
): Record<Modality | 'mask', { offset: number; size: number }> & { liveness?: { offset: number; size: number } } {
  const { camera, lidar, proprio, liveness = 0 } = manifest.fusion.slots;
  const livenessAt = camera + lidar + proprio;
  return {
    camera: { offset: 0, size: camera },
    lidar: { offset: camera, size: lidar },
    proprio: { offset: camera + lidar, size: proprio },
    ...(liveness > 0 ? { liveness: { offset: livenessAt, size: liveness } } : {}),
    mask: { offset: livenessAt + liveness, size: MODALITIES.length },
  };
}

/** Parses manifest JSON text; throws an Error that names the file and every problem. */
export function parseEncoderManifest(text: string, path: string): EncoderManifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`encoder manifest ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = encoderManifestSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    throw new Error(`encoder manifest ${path} is invalid: ${problems}`);
  }
  return parsed.data;
}
