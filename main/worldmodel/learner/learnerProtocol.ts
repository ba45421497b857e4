// The messages between the control loop's thread and the world-model learner's worker (DESIGN §2–3).
// Both sides validate what arrives with these schemas: a message is structured-cloned across the
// thread boundary, so nothing the type system promised on one side is trusted on the other.
import { z } from 'zod';
import type { BackendName } from '../backend/selectBackend.ts';
import { VECTOR_DISTANCES } from '../../memory/tickSchema.ts';
import { PRESET_NAMES, worldModelConfigSchema } from '../worldModelConfig.ts';

const BACKEND_NAMES = ['tfjs-node-gpu', 'tfjs-node', 'native', 'wasm', 'cpu'] as const satisfies readonly BackendName[];
const backendNameSchema = z.enum(BACKEND_NAMES);
const wholeAtLeastOne = z.number().int().min(1);

export const learnerOptionsSchema = z
  .object({
    /** The LanceDB memory the control loop writes (a folder path or object-storage URI). */
    memoryUri: z.string().min(1),
    /** The encoders whose embeddings the world model learns; their ticks table is the replay. */
    tickSpace: z.object({
      encoderVersion: z.string().min(1),
      embeddingSize: wholeAtLeastOne,
      distance: z.enum(VECTOR_DISTANCES),
    }),
    preset: z.enum(PRESET_NAMES),
    /** Fields of the preset to replace; the embedding size always follows `tickSpace`. */
    configOverrides: worldModelConfigSchema.omit({ preset: true }).partial().default({}),
    /** Ticks trained on (batch × sequence length per step) per tick received from memory. */
    replayRatio: z.number().positive(),
    batchSize: wholeAtLeastOne,
    sequenceLength: wholeAtLeastOne,
    checkpointDir: z.string().min(1),
    checkpointIntervalSteps: wholeAtLeastOne,
    /** How many checkpoint files of this encoder version to keep; older ones are deleted. */
    keepCheckpoints: wholeAtLeastOne.default(3),
    weightPublishIntervalSteps: wholeAtLeastOne,
    /** The replay index is re-read after this many new ticks (reading it costs a table scan). */
    replayIndexRefreshTicks: wholeAtLeastOne.default(256),
    seed: z.number().int(),
    /** Backends to try, fastest first; the first that loads is used. */
    backendPreference: z.array(backendNameSchema).min(1).optional(),
  })
  .refine((options) => options.configOverrides.embeddingSize === undefined || options.configOverrides.embeddingSize === options.tickSpace.embeddingSize, {
    message: 'configOverrides.embeddingSize must match tickSpace.embeddingSize (the world model reads the encoders’ embeddings)',
    path: ['configOverrides', 'embeddingSize'],
  });

/** What the caller passes (defaults may be left out) and what the worker works with. */
export type LearnerOptionsInput = z.input<typeof learnerOptionsSchema>;
export type LearnerOptions = z.output<typeof learnerOptionsSchema>;

export const toLearnerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('start'), options: learnerOptionsSchema }),
  /** The control loop's memory writer flushed this many new ticks of the learner's tick space. */
  z.object({ type: z.literal('ticksWritten'), count: z.number().int().min(0) }),
  z.object({ type: z.literal('pause') }),
  z.object({ type: z.literal('resume') }),
  /**
   * Answer `caughtUp` with this id once every step the replay budget allows for the ticks noted so far
   * has been taken (a lockstep core waits for it before simulated time moves on).
   */
  z.object({ type: z.literal('sync'), id: z.number().int() }),
  /** Save a final checkpoint, answer `stopped`, and wait to be terminated. */
  z.object({ type: z.literal('stop') }),
]);
export type ToLearner = z.infer<typeof toLearnerSchema>;

const namedArraySchema = z.object({
  name: z.string().min(1),
  shape: z.array(z.number().int().min(0)),
  values: z.instanceof(Float32Array),
});

const lossFiguresSchema = z.object({
  total: z.number(),
  decoder: z.number(),
  reward: z.number(),
  continuation: z.number(),
  klNats: z.number(),
});

const checkpointSavedSchema = z.object({ type: z.literal('checkpointSaved'), version: z.string(), path: z.string(), step: z.number().int() });

export const fromLearnerSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ready'),
    backend: backendNameSchema,
    /** The faster backends that did not load, each with why. */
    backendsTried: z.array(z.object({ backend: backendNameSchema, reason: z.string() })),
    /** OpenBLAS threads after pinning; absent when the native backend is not in use. */
    openblasThreads: z.number().int().optional(),
    openblasCore: z.string().optional(),
    parameterCount: z.number().int(),
    /** The checkpoint training continues from; absent when training starts fresh. */
    resumedFrom: z.object({ version: z.string(), path: z.string(), step: z.number().int() }).optional(),
    /** Each checkpoint that could not be used, with the reason (a CheckpointError's message). */
    checkpointsRefused: z.array(z.string()),
    /** Ticks already in memory at start: available to replay, but they set no training owed. */
    ticksAvailable: z.number().int(),
  }),
  z.object({
    type: z.literal('trained'),
    step: z.number().int(),
    losses: lossFiguresSchema,
    gradNorm: z.number(),
    stepMs: z.number(),
    stepsPerSec: z.number(),
    /** Ticks trained on per tick received since start (0 before any tick arrived). */
    replayRatio: z.number(),
  }),
  /** The answer to `sync`: the learner has taken every step its budget allowed when it was asked. */
  z.object({ type: z.literal('caughtUp'), id: z.number().int(), step: z.number().int() }),
  /** Training is held until a message arrives: why, and at which step. */
  z.object({ type: z.literal('waiting'), reason: z.enum(['not-enough-ticks', 'replay-ratio', 'paused', 'after-errors']), step: z.number().int() }),
  z.object({ type: z.literal('weights'), version: z.string(), step: z.number().int(), weights: z.array(namedArraySchema) }),
  checkpointSavedSchema,
  /** `fatal`: the worker cannot go on (it ends after this message). */
  z.object({ type: z.literal('error'), message: z.string(), fatal: z.boolean() }),
  /** The answer to `stop`: the final checkpoint, when one was written. */
  z.object({ type: z.literal('stopped'), step: z.number().int(), checkpoint: checkpointSavedSchema.omit({ type: true }).optional() }),
]);
export type FromLearner = z.infer<typeof fromLearnerSchema>;
export type LearnerReady = Extract<FromLearner, { type: 'ready' }>;
export type LearnerTrained = Extract<FromLearner, { type: 'trained' }>;
export type LearnerWaiting = Extract<FromLearner, { type: 'waiting' }>;
export type LearnerWeights = Extract<FromLearner, { type: 'weights' }>;
export type LearnerCheckpointSaved = Extract<FromLearner, { type: 'checkpointSaved' }>;
export type LearnerStopped = Extract<FromLearner, { type: 'stopped' }>;

/** The first issue of a zod failure, in words a person reads: "<what> (<field>: <problem>)". */
export function describeInvalid(what: string, error: z.ZodError): string {
  const issue = error.issues[0];
  return `${what}${issue ? ` (${issue.path.join('.') || 'message'}: ${issue.message})` : ''}`;
}
