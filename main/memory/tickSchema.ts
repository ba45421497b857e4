// The `ticks` table: one row per control tick (DESIGN §2 step 9). Each encoder version has a table of
// its own (`ticksTableName`), so embeddings of different versions are never mixed, an embedding size
// can change with the encoder, and each ANN index is trained on one embedding space.
import type { Schema } from 'apache-arrow';
import { arrow } from './arrow.ts';
import { SCHEMA_KEYS } from './tableSchema.ts';

/** 2: the packed `moment` column (tickMoment.ts); tables of version 1 get it on opening, empty. */
export const TICKS_SCHEMA_VERSION = 2;

/** The column a tick's moment is packed into (tickMoment.ts). */
export const MOMENT_COLUMN = 'moment';

/** The ticks schema version whose tables carry the packed moment on every row. */
export const PACKED_MOMENTS_SCHEMA_VERSION = 2;

export const ACTED_BY = ['policy', 'operator', 'safety', 'idle'] as const;
export type ActedBy = (typeof ACTED_BY)[number];

/** Bits of `flags`: what was wrong or special about a tick. */
export const TICK_FLAGS = Object.freeze({
  cameraMissing: 1 << 0,
  lidarMissing: 1 << 1,
  proprioMissing: 1 << 2,
  /** The safety filter changed the command that went out. */
  commandClipped: 1 << 3,
  /** The link was down: the command was dropped, not sent. */
  commandUndelivered: 1 << 4,
});

export const VECTOR_DISTANCES = ['l2', 'cosine', 'dot'] as const;
export type VectorDistance = (typeof VECTOR_DISTANCES)[number];

export interface TickRow {
  episodeId: string;
  /** Ticks since the episode began, from 0. */
  step: number;
  /** Wall-clock time of the tick, ms since the Unix epoch. */
  timeMs: number;
  embedding: Float32Array;
  /** The world model's latent state; undefined until a world model exists. */
  latent: Float32Array | undefined;
  /** The command that actually went out (after safety), zero when nothing was sent. */
  actionLinearMps: number;
  actionAngularRadps: number;
  actedBy: ActedBy;
  surpriseNats: number | undefined;
  /** The reward model's estimate; undefined until a reward model exists. */
  rewardEstimate: number | undefined;
  /** TICK_FLAGS bits. */
  flags: number;
  robotId: string;
  encoderVersion: string;
  worldModelVersion: string | undefined;
  policyVersion: string;
  /** The MCAP log this tick was recorded in, and its log time there. */
  mcapFile: string | undefined;
  mcapLogTimeNs: bigint | undefined;
}

/** What a ticks table is for: fixed when the table is made, kept in its schema metadata. */
export interface TickSpace {
  encoderVersion: string;
  embeddingSize: number;
  /** How embeddings are compared; the ANN index is trained for this and queries must use it. */
  distance: VectorDistance;
}

export const TICK_SPACE_KEYS = Object.freeze({
  encoderVersion: 'reins.encoderVersion',
  embeddingSize: 'reins.embeddingSize',
  distance: 'reins.distance',
});

export function ticksSchema(space: TickSpace): Schema {
  const { Field, Float32, Float64, Int32, Int64, Utf8, FixedSizeList, List, Schema } = arrow;
  const floats = () => new Field('item', new Float32(), true);
  return new Schema(
    [
      new Field('episodeId', new Utf8(), false),
      new Field('step', new Int32(), false),
      new Field('timeMs', new Float64(), false),
      new Field('embedding', new FixedSizeList(space.embeddingSize, floats()), false),
      new Field('latent', new List(floats()), true),
      new Field('actionLinearMps', new Float32(), false),
      new Field('actionAngularRadps', new Float32(), false),
      new Field('actedBy', new Utf8(), false),
      new Field('surpriseNats', new Float32(), true),
      new Field('rewardEstimate', new Float32(), true),
      new Field('flags', new Int32(), false),
      new Field('robotId', new Utf8(), false),
      new Field('encoderVersion', new Utf8(), false),
      new Field('worldModelVersion', new Utf8(), true),
      new Field('policyVersion', new Utf8(), false),
      new Field('mcapFile', new Utf8(), true),
      new Field('mcapLogTimeNs', new Int64(), true),
      // Nullable only for the rows of tables made before it; every row written since carries it.
      new Field(MOMENT_COLUMN, new Utf8(), true),
    ],
    new Map([
      [SCHEMA_KEYS.table, 'ticks'],
      [SCHEMA_KEYS.schemaVersion, String(TICKS_SCHEMA_VERSION)],
      [TICK_SPACE_KEYS.encoderVersion, space.encoderVersion],
      [TICK_SPACE_KEYS.embeddingSize, String(space.embeddingSize)],
      [TICK_SPACE_KEYS.distance, space.distance],
    ]),
  );
}

/**
 * `ticks-<encoder version>`: readable where the version is a plain name, with a short hash added
 * where characters had to be replaced (so two versions never share a table).
 */
export function ticksTableName(encoderVersion: string): string {
  const safe = encoderVersion.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64);
  if (safe === encoderVersion) return `ticks-${safe}`;
  return `ticks-${safe}-${fnv1aHex(encoderVersion)}`;
}

export const TICKS_TABLE_PREFIX = 'ticks-';

function fnv1aHex(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
