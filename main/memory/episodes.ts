// The `episodes` table: one row per episode — which robot, which task, when, how it ended, and the
// policy and encoder versions it ran with. Written at the start and again when it ends (upsert).
import type { Schema } from 'apache-arrow';
import { z } from 'zod';
import { arrow } from './arrow.ts';
import { SCHEMA_KEYS } from './tableSchema.ts';

export const EPISODES_SCHEMA_VERSION = 1;
export const EPISODE_OUTCOMES = ['succeeded', 'failed', 'aborted'] as const;

export const episodeRowSchema = z
  .object({
    episodeId: z.string().min(1),
    robotId: z.string().min(1),
    task: z.string().min(1),
    startMs: z.number(),
    endMs: z.number().optional(),
    outcome: z.enum(EPISODE_OUTCOMES).optional(),
    policyVersion: z.string().min(1),
    encoderVersion: z.string().min(1),
  })
  .refine((row) => row.endMs === undefined || row.endMs >= row.startMs, { message: 'must not be before startMs', path: ['endMs'] });

export type EpisodeRow = z.infer<typeof episodeRowSchema>;

export function episodesSchema(): Schema {
  const { Field, Float64, Utf8, Schema } = arrow;
  return new Schema(
    [
      new Field('episodeId', new Utf8(), false),
      new Field('robotId', new Utf8(), false),
      new Field('task', new Utf8(), false),
      new Field('startMs', new Float64(), false),
      new Field('endMs', new Float64(), true),
      new Field('outcome', new Utf8(), true),
      new Field('policyVersion', new Utf8(), false),
      new Field('encoderVersion', new Utf8(), false),
    ],
    new Map([
      [SCHEMA_KEYS.table, 'episodes'],
      [SCHEMA_KEYS.schemaVersion, String(EPISODES_SCHEMA_VERSION)],
    ]),
  );
}
