// One encoder version's ticks: the LanceDB table, what its embeddings are (TickSpace), and how it is
// searched. The writer hands it checked batches; retrieval and replay read through it.
import type { Connection, Table } from '@lancedb/lancedb';
import { ConnectionGate } from './connectionGate.ts';
import { MemoryOpenError } from './memoryErrors.ts';
import type { RowSink } from './memoryWriter.ts';
import { openReinsTable } from './tableSchema.ts';
import { DEFAULT_SEARCH_SETTINGS, type SearchSettings } from './vectorIndex.ts';
import { checkTickRow, tickBatch } from './tickRows.ts';
import { TICK_SPACE_KEYS, TICKS_SCHEMA_VERSION, ticksSchema, ticksTableName, VECTOR_DISTANCES, type TickRow, type TickSpace } from './tickSchema.ts';

export class TickStore implements RowSink<TickRow> {
  readonly name: string;
  /** How indexed searches run; the defaults suit the index maintenance builds (see vectorIndex.ts). */
  searchSettings: SearchSettings = { ...DEFAULT_SEARCH_SETTINGS['ivf-flat'] };

  private constructor(
    private current: Table,
    readonly space: TickSpace,
    private readonly gate: ConnectionGate,
  ) {
    this.name = current.name;
  }

  /** The table as of the memory's current connection (see Memory.reconnect()): read it at each use. */
  get table(): Table {
    return this.current;
  }

  /** Moves to a handle on this table from another connection (Memory.reconnect()); returns the old one to close. */
  adopt(next: Table): Table {
    if (next.name !== this.name) throw new Error(`ticks store ${this.name} cannot adopt table ${next.name}`);
    const previous = this.current;
    this.current = next;
    return previous;
  }

  /** Opens (or creates) the ticks table of space.encoderVersion; refuses one made for another space. */
  static async open(db: Connection, uri: string, space: TickSpace, existing: readonly string[], gate = new ConnectionGate()): Promise<TickStore> {
    if (!Number.isInteger(space.embeddingSize) || space.embeddingSize <= 0) {
      throw new RangeError(`embedding size must be a whole number > 0, got ${space.embeddingSize}`);
    }
    const name = ticksTableName(space.encoderVersion);
    const table = await openReinsTable(db, uri, { name, kind: 'ticks', version: TICKS_SCHEMA_VERSION, schema: ticksSchema(space) }, existing);
    const stored = await storedSpace(table);
    if (stored.encoderVersion !== space.encoderVersion || stored.embeddingSize !== space.embeddingSize || stored.distance !== space.distance) {
      throw new MemoryOpenError(
        uri,
        `table ${name} holds encoder ${stored.encoderVersion} with ${stored.embeddingSize}-float embeddings compared by ${stored.distance}, not ${space.encoderVersion} with ${space.embeddingSize} by ${space.distance}`,
        'An encoder whose output changed needs a new version in its manifest.',
      );
    }
    return new TickStore(table, space, gate);
  }

  check(row: TickRow): void {
    checkTickRow(row, this.space);
  }

  async write(rows: readonly TickRow[]): Promise<void> {
    const batch = tickBatch(rows, this.space);
    await this.gate.run(() => this.table.add(batch));
  }

  countRows(): Promise<number> {
    return this.table.countRows();
  }
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
