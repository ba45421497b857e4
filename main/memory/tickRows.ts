// Tick rows at the edge: checked one by one (LanceDB itself would pad a short vector with nulls and
// store a NaN), then written column by column into one Arrow batch. The check is hand-written rather
// than zod because it runs on every tick and looks at every float of the embedding.
import type { Data, Table as ArrowTable } from 'apache-arrow';
import { arrow } from './arrow.ts';
import { float32Column, float32ListColumn, int64Column, utf8Column } from './arrowColumns.ts';
import { MemoryRowError } from './memoryErrors.ts';
import { packMoment } from './tickMoment.ts';
import { ACTED_BY, MOMENT_COLUMN, ticksSchema, type TickRow, type TickSpace } from './tickSchema.ts';

const ACTED_BY_SET: ReadonlySet<string> = new Set(ACTED_BY);
const INT32_MAX = 2 ** 31 - 1;

/** Throws a MemoryRowError naming the first bad field; returns nothing for a good row. */
export function checkTickRow(row: TickRow, space: TickSpace): void {
  const refuse = (field: string, reason: string): never => {
    throw new MemoryRowError('ticks', field, reason);
  };
  if (typeof row.episodeId !== 'string' || row.episodeId.length === 0) refuse('episodeId', 'must be a non-empty string');
  if (!Number.isInteger(row.step) || row.step < 0 || row.step > INT32_MAX) refuse('step', `must be a whole number ≥ 0, got ${row.step}`);
  if (!Number.isFinite(row.timeMs)) refuse('timeMs', `must be a finite number, got ${row.timeMs}`);
  if (!(row.embedding instanceof Float32Array)) refuse('embedding', 'must be a Float32Array');
  if (row.embedding.length !== space.embeddingSize) {
    refuse('embedding', `has ${row.embedding.length} values; encoder ${space.encoderVersion} gives ${space.embeddingSize}`);
  }
  const badAt = firstNonFinite(row.embedding);
  if (badAt >= 0) refuse('embedding', `holds ${row.embedding[badAt]} at index ${badAt}`);
  if (row.latent !== undefined) {
    if (!(row.latent instanceof Float32Array)) refuse('latent', 'must be a Float32Array or undefined');
    const latentBadAt = firstNonFinite(row.latent);
    if (latentBadAt >= 0) refuse('latent', `holds ${row.latent[latentBadAt]} at index ${latentBadAt}`);
  }
  if (!Number.isFinite(row.actionLinearMps)) refuse('actionLinearMps', `must be finite, got ${row.actionLinearMps}`);
  if (!Number.isFinite(row.actionAngularRadps)) refuse('actionAngularRadps', `must be finite, got ${row.actionAngularRadps}`);
  if (!ACTED_BY_SET.has(row.actedBy)) refuse('actedBy', `must be one of ${ACTED_BY.join(', ')}, got ${String(row.actedBy)}`);
  if (row.surpriseNats !== undefined && !Number.isFinite(row.surpriseNats)) refuse('surpriseNats', `must be finite or undefined, got ${row.surpriseNats}`);
  if (row.rewardEstimate !== undefined && !Number.isFinite(row.rewardEstimate))
    refuse('rewardEstimate', `must be finite or undefined, got ${row.rewardEstimate}`);
  if (!Number.isInteger(row.flags) || row.flags < 0 || row.flags > INT32_MAX) refuse('flags', `must be a bitmask ≥ 0, got ${row.flags}`);
  if (typeof row.robotId !== 'string' || row.robotId.length === 0) refuse('robotId', 'must be a non-empty string');
  if (row.encoderVersion !== space.encoderVersion) refuse('encoderVersion', `is ${row.encoderVersion}; this table holds ${space.encoderVersion} only`);
  if (typeof row.policyVersion !== 'string' || row.policyVersion.length === 0) refuse('policyVersion', 'must be a non-empty string');
  if (row.worldModelVersion !== undefined && typeof row.worldModelVersion !== 'string') refuse('worldModelVersion', 'must be a string or undefined');
  if (row.mcapFile !== undefined && typeof row.mcapFile !== 'string') refuse('mcapFile', 'must be a string or undefined');
  if (row.mcapLogTimeNs !== undefined && (typeof row.mcapLogTimeNs !== 'bigint' || row.mcapLogTimeNs < 0n))
    refuse('mcapLogTimeNs', 'must be a bigint ≥ 0 or undefined');
}

function firstNonFinite(values: Float32Array): number {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i]!)) return i;
  return -1;
}

/** Checked rows → one Arrow table in the ticks schema, built column by column. */
export function tickBatch(rows: readonly TickRow[], space: TickSpace): ArrowTable {
  const { makeData, RecordBatch, Struct, Table } = arrow;
  const schema = ticksSchema(space);
  const fields = schema.fields;
  const count = rows.length;
  const size = space.embeddingSize;
  const pick = <T>(read: (row: TickRow) => T) => rows.map(read);

  const embeddings = new Float32Array(count * size);
  rows.forEach((row, i) => embeddings.set(row.embedding, i * size));
  const embeddingType = fields.find((field) => field.name === 'embedding')!.type;
  const latentType = fields.find((field) => field.name === 'latent')!.type;
  const column: Record<keyof TickRow | typeof MOMENT_COLUMN, Data> = {
    episodeId: utf8Column(pick((row) => row.episodeId)),
    step: makeData({ type: new arrow.Int32(), length: count, data: Int32Array.from(rows, (row) => row.step) }),
    timeMs: makeData({ type: new arrow.Float64(), length: count, data: Float64Array.from(rows, (row) => row.timeMs) }),
    embedding: makeData({
      type: embeddingType,
      length: count,
      nullCount: 0,
      child: makeData({ type: new arrow.Float32(), length: count * size, data: embeddings }),
    }),
    latent: float32ListColumn(
      latentType,
      pick((row) => row.latent),
    ),
    actionLinearMps: float32Column(pick((row) => row.actionLinearMps)),
    actionAngularRadps: float32Column(pick((row) => row.actionAngularRadps)),
    actedBy: utf8Column(pick((row) => row.actedBy)),
    surpriseNats: float32Column(pick((row) => row.surpriseNats)),
    rewardEstimate: float32Column(pick((row) => row.rewardEstimate)),
    flags: makeData({ type: new arrow.Int32(), length: count, data: Int32Array.from(rows, (row) => row.flags) }),
    robotId: utf8Column(pick((row) => row.robotId)),
    encoderVersion: utf8Column(pick((row) => row.encoderVersion)),
    worldModelVersion: utf8Column(pick((row) => row.worldModelVersion)),
    policyVersion: utf8Column(pick((row) => row.policyVersion)),
    mcapFile: utf8Column(pick((row) => row.mcapFile)),
    mcapLogTimeNs: int64Column(pick((row) => row.mcapLogTimeNs)),
    [MOMENT_COLUMN]: utf8Column(pick(packMoment)),
  };
  const children = fields.map((field) => column[field.name as keyof typeof column]);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length: count, nullCount: 0, children }));
  return new Table(schema, [batch]);
}
