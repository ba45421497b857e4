// Background upkeep, on a timer and off the loop's path: compaction of the many small fragments the
// writer leaves (one per batch), clean-up of old table versions, and the indexes (the vector index
// once a segment is big enough, scalar indexes for filters and replay reads; optimize() folds new
// rows into both). Of the ticks it touches what changed: the open segment every run, a segment that
// closed once more (then once again to drop its old versions), and every closed segment once per
// process (one a crash left unfinished is finished then). One run at a time: a run asked for while
// another is going joins it.
import type { Table } from '@lancedb/lancedb';
import { wallSchedule, type Schedule } from '../core/runtime/schedule.ts';
import { describeLanceError } from './memoryErrors.ts';
import type { TickSegment } from './tickSegments.ts';
import type { TickStore } from './tickStore.ts';
import { ensureScalarIndexes, ensureVectorIndex, type IndexOutcome, type VectorIndexKind } from './vectorIndex.ts';

export interface MaintenanceOptions {
  /** How often maintenance runs; 0 turns the timer off (runOnce() still works). */
  periodMs: number;
  /** Table versions older than this are removed (the latest always stays). */
  keepVersionsMs: number;
  /** A ticks segment gets its vector index once it holds this many rows; below, search of it is exact. */
  indexMinRows: number;
  /** IVF-FLAT for a local folder; IVF-PQ (a 64-byte code a row) where probes read object storage. */
  vectorIndex: VectorIndexKind;
  /** …and its scalar indexes (episode, who acted, time, surpriseNats: for filters and replay) at this many. */
  scalarIndexMinRows: number;
}

export const DEFAULT_MAINTENANCE_OPTIONS: Readonly<MaintenanceOptions> = Object.freeze({
  // Each run rewrites the open segment whole: LanceDB's optimize() merges every fragment under its
  // million-row target (lancedb/lancedb#2325); segments, where asked for, bound what that costs (by
  // default there is one, and a run's cost grows with it: docs/reliability.md). Run every 10 minutes
  // instead, ~300 two-second fragments gathered between runs and the 30-minute soak's tick p99 got
  // worse (worst minute 59 ms, not 20).
  periodMs: 60_000,
  keepVersionsMs: 10 * 60_000,
  // Below this exact search is fast enough (over 100k 256-float rows: ~40 ms; vectorIndex.ts); with
  // the default single segment, the index is built when the memory reaches it, as before segments.
  indexMinRows: 100_000,
  vectorIndex: 'ivf-flat',
  scalarIndexMinRows: 10_000,
});

export interface MaintenanceReport {
  fragmentsCompacted: number;
  versionsRemoved: number;
  /** The ticks segments this run optimized (the open ones, and closed ones once), by table name. */
  segmentsOptimized: string[];
  /** What happened to the vector index of each segment looked at, by table name. */
  vectorIndexes: Record<string, IndexOutcome>;
  /** The columns each segment looked at got a scalar index on in this run. */
  scalarIndexes: Record<string, string[]>;
}

export interface MaintenanceStatus {
  running: boolean;
  /** On the schedule's clock. */
  lastRunAtMs: number | undefined;
  /** Runs finished (failed ones included) and the wall time they took together: what upkeep costs. */
  runs: number;
  runsTotalMs: number;
  lastReport: MaintenanceReport | undefined;
  lastError: string | undefined;
}

export class MemoryMaintenance {
  private readonly options: MaintenanceOptions;
  private running: Promise<MaintenanceReport> | undefined;
  private stopTimer: (() => void) | undefined;
  private lastRunAtMs: number | undefined;
  private runs = 0;
  private runsTotalMs = 0;
  private lastReport: MaintenanceReport | undefined;
  private lastError: string | undefined;
  /** Closed segments known finished (compacted and indexed) in this process, by table name. */
  private readonly finished = new Set<string>();
  /** Closed segments to visit once more when their pre-compaction versions are old enough to drop. */
  private readonly pruneDueAtMs = new Map<string, number>();

  constructor(
    private readonly tickStores: () => Promise<TickStore[]>,
    private readonly recordTables: () => readonly Table[],
    options: Partial<MaintenanceOptions> = {},
    /** Runs a maintenance run as a write (Memory's ConnectionGate): a reconnect waits for it. */
    private readonly asWrite: <T>(run: () => Promise<T>) => Promise<T> = (run) => run(),
    /** The clock its timer runs on: the core's (simulated in a lockstep core, so a soak's hours of upkeep pass in minutes). */
    private readonly schedule: Schedule = wallSchedule(),
  ) {
    this.options = { ...DEFAULT_MAINTENANCE_OPTIONS, ...options };
  }

  /** The kind of vector index this maintenance builds (searches are tuned to match it). */
  get vectorIndex(): VectorIndexKind {
    return this.options.vectorIndex;
  }

  start(): void {
    if (this.options.periodMs <= 0 || this.stopTimer !== undefined) return;
    // A failed run is kept in status() (lastError); the next period tries again. A lockstep schedule waits for the run.
    this.stopTimer = this.schedule.every(this.options.periodMs, () => this.runOnce().catch(() => undefined));
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopTimer?.();
    this.stopTimer = undefined;
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
    return {
      running: this.running !== undefined,
      lastRunAtMs: this.lastRunAtMs,
      runs: this.runs,
      runsTotalMs: this.runsTotalMs,
      lastReport: this.lastReport,
      lastError: this.lastError,
    };
  }

  private async run(): Promise<MaintenanceReport> {
    const report: MaintenanceReport = { fragmentsCompacted: 0, versionsRemoved: 0, segmentsOptimized: [], vectorIndexes: {}, scalarIndexes: {} };
    const startedMs = performance.now();
    try {
      for (const table of this.recordTables()) await this.optimize(table, report);
      for (const store of await this.tickStores()) {
        const closed = new Set(store.takeClosedSegments().map((segment) => segment.name));
        for (const segment of store.segments) {
          const isOpen = segment === store.openSegment;
          const dueAtMs = this.pruneDueAtMs.get(segment.name);
          if (isOpen || closed.has(segment.name) || !this.finished.has(segment.name)) {
            await this.upkeep(store, segment, report);
            if (isOpen) continue;
            this.finished.add(segment.name);
            this.pruneDueAtMs.set(segment.name, Date.now() + this.options.keepVersionsMs);
          } else if (dueAtMs !== undefined && Date.now() >= dueAtMs) {
            await this.optimize(segment.table, report);
            report.segmentsOptimized.push(segment.name);
            this.pruneDueAtMs.delete(segment.name);
          }
        }
      }
      this.lastError = undefined;
      this.lastReport = report;
      return report;
    } catch (error) {
      this.lastError = `memory maintenance failed: ${describeLanceError(error)}`;
      throw error;
    } finally {
      this.lastRunAtMs = this.schedule.now();
      this.runs++;
      this.runsTotalMs += performance.now() - startedMs;
    }
  }

  /** Compaction, clean-up and index upkeep of one segment. */
  private async upkeep(store: TickStore, segment: TickSegment, report: MaintenanceReport): Promise<void> {
    await this.optimize(segment.table, report);
    report.segmentsOptimized.push(segment.name);
    const { embeddingSize, distance } = store.space;
    report.vectorIndexes[segment.name] = await ensureVectorIndex(segment.table, embeddingSize, distance, {
      kind: this.options.vectorIndex,
      minRows: this.options.indexMinRows,
    });
    report.scalarIndexes[segment.name] = await ensureScalarIndexes(segment.table, this.options.scalarIndexMinRows);
  }

  // Version ages stay on the wall clock, whatever the schedule: LanceDB stamps versions with it, and the
  // readers on other connections that keepVersionsMs protects read at its pace.
  private async optimize(table: Table, report: MaintenanceReport): Promise<void> {
    const stats = await table.optimize({ cleanupOlderThan: new Date(Date.now() - this.options.keepVersionsMs) });
    report.fragmentsCompacted += stats.compaction.fragmentsRemoved;
    report.versionsRemoved += stats.prune.oldVersionsRemoved;
  }
}
