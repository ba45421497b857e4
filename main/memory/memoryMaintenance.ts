// Background upkeep, on a timer and off the loop's path: compaction of the many small fragments the
// writer leaves (one per batch), clean-up of old table versions, and the indexes (the vector index
// once a ticks table is big enough, scalar indexes for filters and replay reads; optimize() folds
// new rows into both). One run at a time: a run asked for while another is going joins it.
import type { Table } from '@lancedb/lancedb';
import { describeLanceError } from './memoryErrors.ts';
import type { TickStore } from './tickStore.ts';
import { ensureScalarIndexes, ensureVectorIndex, type IndexOutcome, type VectorIndexKind } from './vectorIndex.ts';

export interface MaintenanceOptions {
  /** How often maintenance runs; 0 turns the timer off (runOnce() still works). */
  periodMs: number;
  /** Table versions older than this are removed (the latest always stays). */
  keepVersionsMs: number;
  /** A ticks table gets its vector index once it holds this many rows; below, search is exact. */
  indexMinRows: number;
  /** IVF-FLAT for a local folder; IVF-PQ (a 64-byte code a row) where probes read object storage. */
  vectorIndex: VectorIndexKind;
  /** …and its scalar indexes (episode, who acted, time, surpriseNats: for filters and replay) at this many. */
  scalarIndexMinRows: number;
}

export const DEFAULT_MAINTENANCE_OPTIONS: Readonly<MaintenanceOptions> = Object.freeze({
  // Each run rewrites a ticks table whole: LanceDB's optimize() merges every fragment under its
  // million-row target (lancedb/lancedb#2325). Run every 10 minutes instead, ~300 two-second fragments
  // gathered between runs and the 30-minute soak's tick p99 got worse (worst minute 59 ms, not 20).
  periodMs: 60_000,
  keepVersionsMs: 10 * 60_000,
  indexMinRows: 100_000,
  vectorIndex: 'ivf-flat',
  scalarIndexMinRows: 10_000,
});

export interface MaintenanceReport {
  fragmentsCompacted: number;
  versionsRemoved: number;
  /** What happened to each ticks table's vector index, by table name. */
  vectorIndexes: Record<string, IndexOutcome>;
  /** The columns each ticks table got a scalar index on in this run. */
  scalarIndexes: Record<string, string[]>;
}

export interface MaintenanceStatus {
  running: boolean;
  lastRunAtMs: number | undefined;
  lastReport: MaintenanceReport | undefined;
  lastError: string | undefined;
}

export class MemoryMaintenance {
  private readonly options: MaintenanceOptions;
  private running: Promise<MaintenanceReport> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastRunAtMs: number | undefined;
  private lastReport: MaintenanceReport | undefined;
  private lastError: string | undefined;

  constructor(
    private readonly tickStores: () => Promise<TickStore[]>,
    private readonly recordTables: () => readonly Table[],
    options: Partial<MaintenanceOptions> = {},
    /** Runs a maintenance run as a write (Memory's ConnectionGate): a reconnect waits for it. */
    private readonly asWrite: <T>(run: () => Promise<T>) => Promise<T> = (run) => run(),
  ) {
    this.options = { ...DEFAULT_MAINTENANCE_OPTIONS, ...options };
  }

  /** The kind of vector index this maintenance builds (searches are tuned to match it). */
  get vectorIndex(): VectorIndexKind {
    return this.options.vectorIndex;
  }

  start(): void {
    if (this.options.periodMs <= 0 || this.timer !== undefined) return;
    // A failed run is kept in status() (lastError); the next period tries again.
    this.timer = setInterval(() => void this.runOnce().catch(() => undefined), this.options.periodMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** Runs maintenance now, or joins the run already going. */
  runOnce(): Promise<MaintenanceReport> {
    this.running ??= this.asWrite(() => this.run()).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  status(): MaintenanceStatus {
    return { running: this.running !== undefined, lastRunAtMs: this.lastRunAtMs, lastReport: this.lastReport, lastError: this.lastError };
  }

  private async run(): Promise<MaintenanceReport> {
    const report: MaintenanceReport = { fragmentsCompacted: 0, versionsRemoved: 0, vectorIndexes: {}, scalarIndexes: {} };
    try {
      const stores = await this.tickStores();
      for (const table of [...this.recordTables(), ...stores.map((store) => store.table)]) {
        const stats = await table.optimize({ cleanupOlderThan: new Date(Date.now() - this.options.keepVersionsMs) });
        report.fragmentsCompacted += stats.compaction.fragmentsRemoved;
        report.versionsRemoved += stats.prune.oldVersionsRemoved;
      }
      for (const store of stores) {
        const { embeddingSize, distance } = store.space;
        report.vectorIndexes[store.name] = await ensureVectorIndex(store.table, embeddingSize, distance, {
          kind: this.options.vectorIndex,
          minRows: this.options.indexMinRows,
        });
        report.scalarIndexes[store.name] = await ensureScalarIndexes(store.table, this.options.scalarIndexMinRows);
      }
      this.lastError = undefined;
      this.lastReport = report;
      return report;
    } catch (error) {
      this.lastError = `memory maintenance failed: ${describeLanceError(error)}`;
      throw error;
    } finally {
      this.lastRunAtMs = Date.now();
    }
  }
}
