// An encoder version's ticks live in segments: tables of at most so many rows, written one after the
// other (`ticks-<version>.s000001`, `.s000002`, …). Only the newest takes rows, so only it changes;
// LanceDB's optimize() rewrites every fragment of a table under its million-row target, and a table
// that no longer grows is rewritten once, when it closes, instead of every minute for the rest of the
// memory's life. A memory written before segments holds one table, `ticks-<version>`: it is read in
// place as segment 0, and takes new rows like any open segment until it reaches the row bound.
// By default there is no bound: one table, named and laid out as before segments. A search asks every
// segment, and without a tier that merges closed segments its cost grows with their number
// (docs/reliability.md).
import type { Connection, Table } from '@lancedb/lancedb';
import { openReinsTable, storedSchemaVersion } from './tableSchema.ts';
import { PACKED_MOMENTS_SCHEMA_VERSION, TICKS_SCHEMA_VERSION, ticksSchema, ticksTableName, type TickSpace } from './tickSchema.ts';

/**
 * The row bound to ask for (MemoryOptions.ticks.segmentRows) where maintenance must stay flat. It
 * rewrites the open segment every run (every minute), so this bounds a run's cost whatever the
 * memory's age: ~0.2 s at 12,000 rows and ~0.8 s at 27,000 on this 2-core machine (issue 31's figures
 * for one table), so 20,000 rows (33 minutes at 10 Hz) keep a run under ~0.5 s. Fewer rows would cost
 * search instead: a search asks every segment, ~1 query's overhead each (`reins bench memory-upkeep`,
 * docs/reliability.md). Not the default, for that reason: see DEFAULT_SEGMENT_ROWS.
 */
export const FLAT_UPKEEP_SEGMENT_ROWS = 20_000;

/** By default the open segment never closes: one table, searched as one (docs/reliability.md). */
export const DEFAULT_SEGMENT_ROWS = Number.POSITIVE_INFINITY;

export interface TickSegment {
  readonly name: string;
  /** 0 for a table of the layout before segments; 1, 2, … after. */
  readonly number: number;
  /**
   * Every row carries its packed moment (tickMoment.ts): the table was made at that schema version or
   * later. A table made before it holds rows without one, whatever is written to it since.
   */
  readonly packedMoments: boolean;
  table: Table;
}

const SEGMENT_DIGITS = 6;

export function segmentTableName(space: Pick<TickSpace, 'encoderVersion'>, number: number): string {
  return `${ticksTableName(space.encoderVersion)}.s${String(number).padStart(SEGMENT_DIGITS, '0')}`;
}

/** The segment number a table name gives within a space's tables: 0 for the old single table, undefined for another table. */
export function segmentNumber(space: Pick<TickSpace, 'encoderVersion'>, name: string): number | undefined {
  const base = ticksTableName(space.encoderVersion);
  if (name === base) return 0;
  const match = new RegExp(`^${escapeRegExp(base)}\\.s(\\d{${SEGMENT_DIGITS}})$`).exec(name);
  return match ? Number(match[1]) : undefined;
}

/** The space's tables among `existing`, oldest first. */
export function segmentNames(space: Pick<TickSpace, 'encoderVersion'>, existing: readonly string[]): Array<{ name: string; number: number }> {
  return existing
    .flatMap((name) => {
      const number = segmentNumber(space, name);
      return number === undefined ? [] : [{ name, number }];
    })
    .sort((a, b) => a.number - b.number);
}

/** Opens (creating when absent) one segment table, its schema checked and migrated like any memory table. */
export async function openSegment(db: Connection, uri: string, space: TickSpace, number: number, existing: readonly string[]): Promise<TickSegment> {
  const name = number === 0 ? ticksTableName(space.encoderVersion) : segmentTableName(space, number);
  const table = await openReinsTable(db, uri, { name, kind: 'ticks', version: TICKS_SCHEMA_VERSION, schema: ticksSchema(space) }, existing);
  return { name, number, packedMoments: (await storedSchemaVersion(table)) >= PACKED_MOMENTS_SCHEMA_VERSION, table };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
