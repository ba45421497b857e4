// One encoder version's ticks: its segment tables (tickSegments.ts), what its embeddings are
// (TickSpace), and how it is searched. The writer hands it checked batches, which go to the open
// (newest) segment; retrieval and replay read every segment through it as one set of rows.
import type { Connection, Table } from '@lancedb/lancedb';
import type { Table as ArrowTable } from 'apache-arrow';
import { ConnectionGate } from './connectionGate.ts';
import { MemoryOpenError } from './memoryErrors.ts';
import type { RowSink } from './memoryWriter.ts';
import { DEFAULT_SEGMENT_ROWS, openSegment, segmentNames, type TickSegment } from './tickSegments.ts';
import { DEFAULT_SEARCH_SETTINGS, type SearchSettings } from './vectorIndex.ts';
import { checkTickRow, tickBatch } from './tickRows.ts';
import { MOMENT_COLUMN, TICK_SPACE_KEYS, ticksSchema, ticksTableName, VECTOR_DISTANCES, type TickRow, type TickSpace } from './tickSchema.ts';

export interface TickStoreOptions {
  /** The open segment closes once it holds this many rows; Infinity (the default) never (see tickSegments.ts). */
  segmentRows: number;
}

/** Rows of every segment: a filter (LanceDB SQL) and the columns wanted, all of them by default. */
export interface TickQuery {
  where?: string;
  columns?: readonly string[];
}

export class TickStore implements RowSink<TickRow> {
  /** The space's name (`ticks-<version>`), as errors and reports name it; its tables are `segments`. */
  readonly name: string;
  /** How indexed searches run; the defaults suit the index maintenance builds (see vectorIndex.ts). */
  searchSettings: SearchSettings = { ...DEFAULT_SEARCH_SETTINGS['ivf-flat'] };
  private current: TickSegment[];
  private openRows: number;
  /** Segments closed by a rollover in this process and not yet handed to maintenance. */
  private closedPending: TickSegment[] = [];

  private constructor(
    segments: TickSegment[],
    openRows: number,
    readonly space: TickSpace,
    private readonly db: () => Connection,
    private readonly uri: string,
    private readonly gate: ConnectionGate,
    private readonly options: TickStoreOptions,
  ) {
    this.name = ticksTableName(space.encoderVersion);
    this.current = segments;
    this.openRows = openRows;
  }

  /**
   * Opens the ticks of space.encoderVersion: every segment, plus an open one (created when there is
   * none or the newest is full; a table of the layout before segments is one, and the one made when
   * segments are unbounded). Refuses tables made for another space.
   */
  static async open(
    db: Connection | (() => Connection),
    uri: string,
    space: TickSpace,
    existing: readonly string[],
    gate = new ConnectionGate(),
    options: Partial<TickStoreOptions> = {},
  ): Promise<TickStore> {
    if (!Number.isInteger(space.embeddingSize) || space.embeddingSize <= 0) {
      throw new RangeError(`embedding size must be a whole number > 0, got ${space.embeddingSize}`);
    }
    const connection = typeof db === 'function' ? db : () => db;
    const settings = { segmentRows: DEFAULT_SEGMENT_ROWS, ...options };
    if (!(settings.segmentRows === Number.POSITIVE_INFINITY || (Number.isInteger(settings.segmentRows) && settings.segmentRows >= 1)))
      throw new RangeError(`segment rows must be a whole number ≥ 1 or Infinity, got ${settings.segmentRows}`);
    const segments = await openSegments(connection(), uri, space, existing);
    const newest = segments[segments.length - 1];
    let openRows = newest === undefined ? 0 : await newest.table.countRows();
    if (newest === undefined || openRows >= settings.segmentRows) {
      // A first table that never closes is named as before segments, so earlier Reins reads the memory.
      const number = newest === undefined ? (settings.segmentRows === Number.POSITIVE_INFINITY ? 0 : 1) : newest.number + 1;
      segments.push(await openSegment(connection(), uri, space, number, existing));
      openRows = 0;
    }
    return new TickStore(segments, openRows, space, connection, uri, gate, settings);
  }

  /** Every segment, oldest first; the last is the open one. Read it at each use (see refresh(), adopt()). */
  get segments(): readonly TickSegment[] {
    return this.current;
  }

  /** The segment that takes new rows. */
  get openSegment(): TickSegment {
    return this.current[this.current.length - 1]!;
  }

  /** Segments this store closed since the last call: maintenance optimizes each once more. */
  takeClosedSegments(): TickSegment[] {
    const closed = this.closedPending;
    this.closedPending = [];
    return closed;
  }

  /** Moves to handles from another connection (Memory.reconnect()), by table name; returns the old ones to close. */
  adopt(next: ReadonlyMap<string, Table>): Table[] {
    const previous: Table[] = [];
    for (const segment of this.current) {
      const table = next.get(segment.name);
      if (table === undefined) throw new Error(`ticks store ${this.name} got no handle for segment ${segment.name}`);
      previous.push(segment.table);
      segment.table = table;
    }
    return previous;
  }

  check(row: TickRow): void {
    checkTickRow(row, this.space);
  }

  async write(rows: readonly TickRow[]): Promise<void> {
    const batch = tickBatch(rows, this.space);
    await this.gate.run(async () => {
      if (this.openRows > 0 && this.openRows + rows.length > this.options.segmentRows) await this.rollOver();
      await this.openSegment.table.add(batch);
      this.openRows += rows.length;
    });
  }

  async countRows(): Promise<number> {
    const counts = await Promise.all(this.current.map((segment) => segment.table.countRows()));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** The rows of every segment matching the query, as one Arrow table (segments in order, each in its stored order). */
  async query(query: TickQuery = {}): Promise<ArrowTable> {
    // Every column of a row by default; the packed moment repeats seven of them and is left out.
    const columns = [
      ...(query.columns ??
        ticksSchema(this.space)
          .fields.map((field) => field.name)
          .filter((name) => name !== MOMENT_COLUMN)),
    ];
    const parts = await Promise.all(
      this.current.map((segment) => {
        const rows = segment.table.query().select(columns);
        return (query.where === undefined ? rows : rows.where(query.where)).toArrow();
      }),
    );
    // An empty result may come without the columns' schema: only parts holding rows are joined.
    const filled = parts.filter((part) => part.numRows > 0);
    return filled.length === 0 ? parts[0]! : filled.reduce((all, part) => all.concat(part));
  }

  /**
   * Reads what other connections wrote since: the newest version of every segment, and segments they
   * opened. A handle opened without read consistency stays at the version it first read until then.
   */
  async refresh(): Promise<void> {
    await this.gate.run(async () => {
      const known = new Set(this.current.map((segment) => segment.name));
      const names = segmentNames(this.space, await this.db().tableNames()).filter((segment) => !known.has(segment.name));
      const added = await openSegments(
        this.db(),
        this.uri,
        this.space,
        names.map((segment) => segment.name),
      );
      await Promise.all(this.current.map((segment) => segment.table.checkoutLatest()));
      if (added.length === 0) return;
      this.current = [...this.current, ...added].sort((a, b) => a.number - b.number);
      this.openRows = await this.openSegment.table.countRows();
    });
  }

  // Runs inside a write: the gate is held, so a reconnect cannot move the tables meanwhile.
  private async rollOver(): Promise<void> {
    const closing = this.openSegment;
    const existing = await this.db().tableNames();
    const next = await openSegment(this.db(), this.uri, this.space, closing.number + 1, existing);
    this.current = [...this.current, next];
    this.closedPending.push(closing);
    this.openRows = await next.table.countRows();
  }
}

/** The space's segment tables among `existing`, oldest first; tables of another encoder version that only look alike are left out. */
async function openSegments(db: Connection, uri: string, space: TickSpace, existing: readonly string[]): Promise<TickSegment[]> {
  const segments: TickSegment[] = [];
  for (const { number } of segmentNames(space, existing)) {
    const segment = await openSegment(db, uri, space, number, existing);
    const stored = await storedSpace(segment.table);
    if (stored.encoderVersion !== space.encoderVersion) {
      segment.table.close();
      continue;
    }
    if (stored.embeddingSize !== space.embeddingSize || stored.distance !== space.distance) {
      for (const opened of [...segments, segment]) opened.table.close();
      throw new MemoryOpenError(
        uri,
        `table ${segment.name} holds encoder ${stored.encoderVersion} with ${stored.embeddingSize}-float embeddings compared by ${stored.distance}, not ${space.encoderVersion} with ${space.embeddingSize} by ${space.distance}`,
        'An encoder whose output changed needs a new version in its manifest.',
      );
    }
    segments.push(segment);
  }
  return segments;
}

/** What a ticks table says it holds, from its schema metadata. */
export async function storedSpace(table: Table): Promise<TickSpace> {
  const metadata = (await table.schema()).metadata;
  const distance = metadata.get(TICK_SPACE_KEYS.distance);
  const known = VECTOR_DISTANCES.find((candidate) => candidate === distance);
  if (known === undefined) throw new Error(`table ${table.name} compares embeddings by an unknown distance (${distance})`);
  return {
    encoderVersion: metadata.get(TICK_SPACE_KEYS.encoderVersion) ?? '',
    embeddingSize: Number(metadata.get(TICK_SPACE_KEYS.embeddingSize)),
    distance: known,
  };
}
