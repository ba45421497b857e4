// The `checkpoints` table: every numbered model version the learner made — which model, where its
// weights are, what it was trained from, and how it scored (DESIGN §3).
import type { Schema } from 'apache-arrow';
import { z } from 'zod';
import { arrow } from './arrow.ts';
import { SCHEMA_KEYS } from './tableSchema.ts';

export const CHECKPOINTS_SCHEMA_VERSION = 1;
export const MODEL_KINDS = ['world-model', 'reward-model', 'policy'] as const;

export const checkpointRowSchema = z.object({
  modelKind: z.enum(MODEL_KINDS),
  version: z.string().min(1),
  /** A file path or any URI the learner can read the weights back from. */
  weightsUri: z.string().min(1),
  createdAtMs: z.number(),
  parentVersion: z.string().min(1).optional(),
  encoderVersion: z.string().min(1).optional(),
  /** Named figures (accuracy, success rate, …); stored as JSON. */
  scores: z.record(z.string(), z.number()),
});

export type CheckpointRow = z.infer<typeof checkpointRowSchema>;

export function checkpointsSchema(): Schema {
  const { Field, Float64, Utf8, Schema } = arrow;
  return new Schema(
    [
      new Field('modelKind', new Utf8(), false),
      new Field('version', new Utf8(), false),
      new Field('weightsUri', new Utf8(), false),
      new Field('createdAtMs', new Float64(), false),
      new Field('parentVersion', new Utf8(), true),
      new Field('encoderVersion', new Utf8(), true),
      new Field('scoresJson', new Utf8(), false),
    ],
    new Map([
      [SCHEMA_KEYS.table, 'checkpoints'],
      [SCHEMA_KEYS.schemaVersion, String(CHECKPOINTS_SCHEMA_VERSION)],
    ]),
  );
}
