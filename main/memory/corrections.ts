// The `corrections` table: everything the operator taught (DESIGN §3) — interventions with their
// span, preference questions and answers, ratings, and undo marks — and who gave each one.
// Spans are inclusive step ranges within one episode.
import type { Schema } from 'apache-arrow';
import { z } from 'zod';
import { arrow } from './arrow.ts';
import { SCHEMA_KEYS } from './tableSchema.ts';

export const CORRECTIONS_SCHEMA_VERSION = 1;
export const CORRECTION_KINDS = ['intervention', 'preference', 'rating', 'undo'] as const;
export type CorrectionKind = (typeof CORRECTION_KINDS)[number];
export const PREFERENCE_ANSWERS = ['first', 'second', 'equal', 'unsure'] as const;

const step = z.number().int().min(0);

export const correctionRowSchema = z
  .object({
    correctionId: z.string().min(1),
    kind: z.enum(CORRECTION_KINDS),
    atMs: z.number(),
    episodeId: z.string().min(1),
    spanStartStep: step,
    spanEndStep: step,
    /** A preference's second segment. */
    otherEpisodeId: z.string().min(1).optional(),
    otherSpanStartStep: step.optional(),
    otherSpanEndStep: step.optional(),
    question: z.string().optional(),
    answer: z.enum(PREFERENCE_ANSWERS).optional(),
    /** +1 good, −1 bad. */
    rating: z.union([z.literal(1), z.literal(-1)]).optional(),
    /** The correction an undo withdraws. */
    undoesCorrectionId: z.string().min(1).optional(),
    answeredBy: z.string().min(1),
  })
  .superRefine((row, context) => {
    const need = (field: keyof typeof row, why: string) => {
      if (row[field] === undefined) context.addIssue({ code: 'custom', path: [field], message: `is required ${why}` });
    };
    if (row.spanEndStep < row.spanStartStep) context.addIssue({ code: 'custom', path: ['spanEndStep'], message: 'must not be before spanStartStep' });
    if (row.kind === 'preference') {
      need('otherEpisodeId', 'for a preference');
      need('otherSpanStartStep', 'for a preference');
      need('otherSpanEndStep', 'for a preference');
      need('answer', 'for a preference');
    }
    if (row.kind === 'rating') need('rating', 'for a rating');
    if (row.kind === 'undo') need('undoesCorrectionId', 'for an undo');
  });

export type CorrectionRow = z.infer<typeof correctionRowSchema>;

export function correctionsSchema(): Schema {
  const { Field, Float64, Int8, Int32, Utf8, Schema } = arrow;
  return new Schema(
    [
      new Field('correctionId', new Utf8(), false),
      new Field('kind', new Utf8(), false),
      new Field('atMs', new Float64(), false),
      new Field('episodeId', new Utf8(), false),
      new Field('spanStartStep', new Int32(), false),
      new Field('spanEndStep', new Int32(), false),
      new Field('otherEpisodeId', new Utf8(), true),
      new Field('otherSpanStartStep', new Int32(), true),
      new Field('otherSpanEndStep', new Int32(), true),
      new Field('question', new Utf8(), true),
      new Field('answer', new Utf8(), true),
      new Field('rating', new Int8(), true),
      new Field('undoesCorrectionId', new Utf8(), true),
      new Field('answeredBy', new Utf8(), false),
    ],
    new Map([
      [SCHEMA_KEYS.table, 'corrections'],
      [SCHEMA_KEYS.schemaVersion, String(CORRECTIONS_SCHEMA_VERSION)],
    ]),
  );
}
