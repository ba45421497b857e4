// The memory: everything the robot lived through, in LanceDB (DESIGN §2 step 9, §3). Opening it checks
// the location (a Reins memory, or empty) and every table's schema; ticks live in one table per
// encoder version, beside the episodes, corrections and checkpoints. Maintenance (compaction,
// clean-up of old versions, the ANN index) runs in the background.
import * as lancedb from '@lancedb/lancedb';
import { MemoryMaintenance, type MaintenanceOptions } from './memoryMaintenance.ts';
import { describeLanceError, MemoryOpenError } from './memoryErrors.ts';
import { defaultMemoryUri, localPath, META_TABLE, prepareLocalFolder } from './memoryLocation.ts';
import { metaSchema, META_SCHEMA_VERSION } from './metaTable.ts';
import { RecordTables } from './recordTables.ts';
import { openReinsTable } from './tableSchema.ts';
import { TICKS_TABLE_PREFIX, type TickSpace } from './tickSchema.ts';
import { storedSpace, TickStore } from './tickStore.ts';
import { DEFAULT_SEARCH_SETTINGS } from './vectorIndex.ts';

export interface MemoryOptions {
  /** A LanceDB URI: a folder path (the default: defaultMemoryUri()) or object storage (`s3://…`). */
  uri: string;
  /** Credentials and settings for object storage, passed to LanceDB as they are. */
  storageOptions: Record<string, string>;
  maintenance: Partial<MaintenanceOptions>;
  /** LanceDB's caches for this connection (index, metadata), in bytes. */
  cacheBytes: { index: number; metadata: number };
}

// LanceDB's own defaults (6 GiB of index cache, 1 GiB of metadata) are a server's; the core opens up to
// three connections (loop, learners) in a desktop app beside the encoders and the world model.
export const DEFAULT_CACHE_BYTES = Object.freeze({ index: 512 * 2 ** 20, metadata: 256 * 2 ** 20 });

export class Memory {
  readonly maintenance: MemoryMaintenance;
  private readonly stores = new Map<string, Promise<TickStore>>();

  private constructor(
    readonly uri: string,
    private readonly db: lancedb.Connection,
    readonly records: RecordTables,
    maintenanceOptions: Partial<MaintenanceOptions>,
  ) {
    this.maintenance = new MemoryMaintenance(() => this.openStores(), records.all, maintenanceOptions);
  }

  /** Opens (creating if needed) the memory; throws a MemoryOpenError saying what is wrong and what to do. */
  static async open(options: Partial<MemoryOptions> = {}): Promise<Memory> {
    const uri = options.uri ?? defaultMemoryUri();
    const path = localPath(uri);
    const connectUri = path === undefined ? uri : prepareLocalFolder(uri, path);
    let db: lancedb.Connection;
    let existing: string[];
    try {
      const cache = options.cacheBytes ?? DEFAULT_CACHE_BYTES;
      const session = new lancedb.Session(BigInt(cache.index), BigInt(cache.metadata));
      db = await lancedb.connect(connectUri, options.storageOptions ? { storageOptions: options.storageOptions } : {}, session);
      existing = await db.tableNames();
    } catch (error) {
      throw new MemoryOpenError(uri, `cannot be reached (${describeLanceError(error)})`, 'Check the memory location and, for object storage, its credentials.', { cause: error });
    }
    try {
      if (existing.length > 0 && !existing.includes(META_TABLE)) {
        throw new MemoryOpenError(uri, `is not a Reins memory: it holds tables (${existing.slice(0, 3).join(', ')}) but no ${META_TABLE}`, 'Choose an empty location or an existing Reins memory.');
      }
      // The marker first, so a location Reins has begun to fill is recognised as its own.
      await openReinsTable(db, uri, { name: META_TABLE, kind: META_TABLE, version: META_SCHEMA_VERSION, schema: metaSchema() }, existing);
      const memory = new Memory(uri, db, await RecordTables.open(db, uri, existing), options.maintenance ?? {});
      memory.maintenance.start();
      return memory;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** The ticks of one encoder version, opened or created on first use. */
  ticks(space: TickSpace): Promise<TickStore> {
    let store = this.stores.get(space.encoderVersion);
    if (store === undefined) {
      store = this.db.tableNames().then(async (existing) => {
        const opened = await TickStore.open(this.db, this.uri, space, existing);
        opened.searchSettings = { ...DEFAULT_SEARCH_SETTINGS[this.maintenance.vectorIndex] };
        return opened;
      });
      this.stores.set(space.encoderVersion, store);
      // A failed open is not cached: the caller gets the error, and a later call tries again.
      store.catch(() => this.stores.delete(space.encoderVersion));
    }
    return store;
  }

  /** Every encoder version this memory holds ticks for. */
  async tickSpaces(): Promise<TickSpace[]> {
    const names = (await this.db.tableNames()).filter((name) => name.startsWith(TICKS_TABLE_PREFIX));
    return Promise.all(
      names.map(async (name) => {
        const table = await this.db.openTable(name);
        try {
          return await storedSpace(table);
        } finally {
          table.close();
        }
      }),
    );
  }

  /** Stops maintenance (waiting for a run in progress) and releases the tables; close writers first. */
  async close(): Promise<void> {
    await this.maintenance.stop();
    const stores = await Promise.allSettled(this.stores.values());
    for (const store of stores) if (store.status === 'fulfilled') store.value.table.close();
    for (const table of this.records.all) table.close();
    this.db.close();
  }

  private async openStores(): Promise<TickStore[]> {
    const stores = await Promise.allSettled(this.stores.values());
    return stores.flatMap((store) => (store.status === 'fulfilled' ? [store.value] : []));
  }
}
