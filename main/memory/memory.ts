// The memory: everything the robot lived through, in LanceDB (DESIGN §2 step 9, §3). Opening it checks
// the location (a Reins memory, or empty) and every table's schema; ticks live in segment tables per
// encoder version (tickSegments.ts), beside the episodes, corrections and checkpoints. Maintenance
// (compaction, clean-up of old versions, the indexes) runs in the background on what changed.
import * as lancedb from '@lancedb/lancedb';
import type { Table } from '@lancedb/lancedb';
import { wallSchedule, type Schedule } from '../core/runtime/schedule.ts';
import { ConnectionGate } from './connectionGate.ts';
import { MemoryMaintenance, type MaintenanceOptions } from './memoryMaintenance.ts';
import { describeLanceError, MemoryOpenError } from './memoryErrors.ts';
import { defaultMemoryUri, localPath, META_TABLE, prepareLocalFolder } from './memoryLocation.ts';
import { metaSchema, META_SCHEMA_VERSION } from './metaTable.ts';
import { RecordTables } from './recordTables.ts';
import { openReinsTable } from './tableSchema.ts';
import { TICKS_TABLE_PREFIX, type TickSpace } from './tickSchema.ts';
import { segmentNames } from './tickSegments.ts';
import { storedSpace, TickStore, type TickStoreOptions } from './tickStore.ts';
import { DEFAULT_SEARCH_SETTINGS } from './vectorIndex.ts';

export interface MemoryOptions {
  /** A LanceDB URI: a folder path (the default: defaultMemoryUri()) or object storage (`s3://…`). */
  uri: string;
  /** Credentials and settings for object storage, passed to LanceDB as they are. */
  storageOptions: Record<string, string>;
  maintenance: Partial<MaintenanceOptions>;
  /** LanceDB's caches for this connection (index, metadata), in bytes. */
  cacheBytes: { index: number; metadata: number };
  /** How often the connection is replaced by a fresh one (see reconnect()); 0 never. */
  reconnectEveryMs: number;
  /** How the ticks are cut into segment tables (tickSegments.ts). */
  ticks: Partial<TickStoreOptions>;
  /** The clock maintenance and reconnects run on: the core's (simulated in a lockstep core); default the wall clock. */
  schedule: Schedule;
}

// LanceDB's own defaults (6 GiB of index cache, 1 GiB of metadata) are a server's; the core opens up to
// three connections (loop, learners) in a desktop app beside the encoders and the world model.
export const DEFAULT_CACHE_BYTES = Object.freeze({ index: 512 * 2 ** 20, metadata: 256 * 2 ** 20 });

// A LanceDB connection keeps ~90 KB of native memory for every commit made or read through it, whatever
// its cache sizes, until it is closed (lancedb 0.31 and 0.39 alike; lancedb/lancedb#2693). The tick
// writer commits every 2 s, so a connection held for hours grows without bound; replacing it every few
// minutes caps that at a few MiB. The cost: its caches start cold (an index is read again on next use).
export const DEFAULT_RECONNECT_EVERY_MS = 5 * 60_000;

type Connect = () => Promise<lancedb.Connection>;

export class Memory {
  readonly maintenance: MemoryMaintenance;
  private readonly stores = new Map<string, Promise<TickStore>>();
  private readonly gate: ConnectionGate;
  private stopReconnecting: (() => void) | undefined;
  private reconnecting: Promise<void> | undefined;
  private closed = false;
  private reconnects = 0;
  private lastReconnectError: string | undefined;

  private constructor(
    readonly uri: string,
    private db: lancedb.Connection,
    private readonly connect: Connect,
    readonly records: RecordTables,
    gate: ConnectionGate,
    maintenanceOptions: Partial<MaintenanceOptions>,
    private readonly tickOptions: Partial<TickStoreOptions>,
    private readonly schedule: Schedule,
  ) {
    this.gate = gate;
    this.maintenance = new MemoryMaintenance(
      () => this.openStores(),
      () => records.all,
      maintenanceOptions,
      (run) => gate.run(run),
      schedule,
    );
  }

  /** Opens (creating if needed) the memory; throws a MemoryOpenError saying what is wrong and what to do. */
  static async open(options: Partial<MemoryOptions> = {}): Promise<Memory> {
    const uri = options.uri ?? defaultMemoryUri();
    const path = localPath(uri);
    const connectUri = path === undefined ? uri : prepareLocalFolder(uri, path);
    const cache = options.cacheBytes ?? DEFAULT_CACHE_BYTES;
    const connect: Connect = () =>
      lancedb.connect(
        connectUri,
        options.storageOptions ? { storageOptions: options.storageOptions } : {},
        new lancedb.Session(BigInt(cache.index), BigInt(cache.metadata)),
      );
    let db: lancedb.Connection;
    let existing: string[];
    try {
      db = await connect();
      existing = await db.tableNames();
    } catch (error) {
      throw new MemoryOpenError(
        uri,
        `cannot be reached (${describeLanceError(error)})`,
        'Check the memory location and, for object storage, its credentials.',
        { cause: error },
      );
    }
    try {
      if (existing.length > 0 && !existing.includes(META_TABLE)) {
        throw new MemoryOpenError(
          uri,
          `is not a Reins memory: it holds tables (${existing.slice(0, 3).join(', ')}) but no ${META_TABLE}`,
          'Choose an empty location or an existing Reins memory.',
        );
      }
      // The marker first, so a location Reins has begun to fill is recognised as its own.
      (await openReinsTable(db, uri, { name: META_TABLE, kind: META_TABLE, version: META_SCHEMA_VERSION, schema: metaSchema() }, existing)).close();
      const gate = new ConnectionGate();
      const records = await RecordTables.open(db, uri, existing, gate);
      const memory = new Memory(uri, db, connect, records, gate, options.maintenance ?? {}, options.ticks ?? {}, options.schedule ?? wallSchedule());
      memory.maintenance.start();
      memory.startReconnecting(options.reconnectEveryMs ?? DEFAULT_RECONNECT_EVERY_MS);
      return memory;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * Replaces the LanceDB connection with a fresh one and moves every open table to it, then closes the
   * old one, freeing what it held. Tables are read through their owners at each use (TickStore.segments,
   * records.episodes…), so callers see nothing; calls in flight on the old handles finish. On failure
   * the old connection stays in use and the error is kept in reconnectStatus().
   */
  reconnect(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the memory is closed'));
    // The stores asked for so far move; one asked for from now on waits for this reconnect (connection()).
    const stores = [...this.stores.values()];
    this.reconnecting ??= this.gate
      .exclusive(() => this.replaceConnection(stores))
      .finally(() => {
        this.reconnecting = undefined;
      });
    return this.reconnecting;
  }

  reconnectStatus(): { reconnects: number; lastError: string | undefined } {
    return { reconnects: this.reconnects, lastError: this.lastReconnectError };
  }

  /** The ticks of one encoder version, opened or created on first use. */
  ticks(space: TickSpace): Promise<TickStore> {
    let store = this.stores.get(space.encoderVersion);
    if (store === undefined) {
      store = this.connection().then(async (db) => {
        const opened = await TickStore.open(() => this.db, this.uri, space, await db.tableNames(), this.gate, this.tickOptions);
        opened.searchSettings = { ...DEFAULT_SEARCH_SETTINGS[this.maintenance.vectorIndex] };
        return opened;
      });
      this.stores.set(space.encoderVersion, store);
      // A failed open is not cached: the caller gets the error, and a later call tries again.
      store.catch(() => this.stores.delete(space.encoderVersion));
    }
    return store;
  }

  /** Every encoder version this memory holds ticks for (read from one table of each: its first segment). */
  async tickSpaces(): Promise<TickSpace[]> {
    const db = await this.connection();
    const names = (await db.tableNames()).filter((name) => name.startsWith(TICKS_TABLE_PREFIX));
    const spaces = new Map<string, TickSpace>();
    for (const name of names) {
      // A segment of a version already read says nothing new.
      if ([...spaces.values()].some((space) => segmentNames(space, [name]).length > 0)) continue;
      const table = await db.openTable(name);
      try {
        const space = await storedSpace(table);
        spaces.set(space.encoderVersion, space);
      } finally {
        table.close();
      }
    }
    return [...spaces.values()];
  }

  /** Stops maintenance (waiting for a run in progress) and releases the tables; close writers first. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopReconnecting?.();
    await this.reconnecting?.catch(() => undefined);
    await this.maintenance.stop();
    const stores = await Promise.allSettled(this.stores.values());
    for (const store of stores) if (store.status === 'fulfilled') for (const segment of store.value.segments) segment.table.close();
    for (const table of this.records.all) table.close();
    this.db.close();
  }

  private startReconnecting(everyMs: number): void {
    if (everyMs <= 0) return;
    // A failure is kept in reconnectStatus(); the old connection goes on serving and the next period tries again.
    this.stopReconnecting = this.schedule.every(everyMs, () => this.reconnect().catch(() => undefined));
  }

  // Runs with the gate closed: no write is in flight, so the new handles see every commit. Every handle is
  // opened on the new connection first, then all are swapped at once: a failure part way leaves
  // everything on the old connection.
  private async replaceConnection(stores: ReadonlyArray<Promise<TickStore>>): Promise<void> {
    const opened: Table[] = [];
    let next: lancedb.Connection | undefined;
    try {
      next = await this.connect();
      const records = await RecordTables.openHandles(next);
      opened.push(...Object.values(records));
      const moves: Array<[TickStore, Map<string, Table>]> = [];
      for (const store of await settledStores(stores)) {
        const tables = new Map<string, Table>();
        for (const { name } of store.segments) {
          const table = await next.openTable(name);
          opened.push(table);
          tables.set(name, table);
        }
        moves.push([store, tables]);
      }
      const previous = [...this.records.adopt(records), ...moves.flatMap(([store, tables]) => store.adopt(tables))];
      const previousDb = this.db;
      this.db = next;
      for (const table of previous) table.close();
      previousDb.close();
      this.reconnects += 1;
      this.lastReconnectError = undefined;
    } catch (error) {
      for (const table of opened) table.close();
      next?.close();
      this.lastReconnectError = `memory reconnect failed: ${describeLanceError(error)}`;
      throw error;
    }
  }

  /** The connection, once a reconnect in progress (if any) has settled: what is opened on it stays open. */
  private async connection(): Promise<lancedb.Connection> {
    await this.reconnecting?.catch(() => undefined);
    return this.db;
  }

  private openStores(): Promise<TickStore[]> {
    return settledStores([...this.stores.values()]);
  }
}

async function settledStores(stores: ReadonlyArray<Promise<TickStore>>): Promise<TickStore[]> {
  const settled = await Promise.allSettled(stores);
  return settled.flatMap((store) => (store.status === 'fulfilled' ? [store.value] : []));
}
