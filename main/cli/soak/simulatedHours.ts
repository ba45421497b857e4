// The accelerated soak's figures, one window per simulated hour (minutes in the short test): what
// memory upkeep cost, resident memory's level and peak, tick time, the memory's rows and how fast a
// search of it is so far, the recording's bytes, and the learners' steps. Resident memory is sampled
// on the core's own (simulated) clock; tick and upkeep times are wall time, what they cost here.
import { stat } from 'node:fs/promises';
import type { Schedule } from '../../core/runtime/schedule.ts';
import { percentiles, type Percentiles } from '../../core/util/latencyWindow.ts';
import type { CoreSession } from '../../session/coreSession.ts';
import { openTickMemory } from '../../session/memoryParts.ts';
import { MIB } from './soakWindows.ts';

export interface HourFigures {
  /** 1-based. */
  index: number;
  endSimSecs: number;
  /** Wall time the window took to run (its read-backs included). */
  wallSecs: number;
  maintenanceRuns: number;
  /** Wall time memory upkeep (compaction, clean-up, indexes) took in this window. */
  maintenanceMs: number;
  /** Mean of the window's resident-memory samples (every 10 simulated seconds): its level. */
  rssLevelMiB: number;
  rssPeakMiB: number;
  ticks: number;
  tickMs: Percentiles;
  /** Tick rows in memory at the window's end, read back on a connection of its own. */
  memoryRows: number;
  /** "Find similar moments" on the memory so far, from embeddings of this window's ticks. */
  queryMs: Percentiles;
  /** Bytes of the session's recording files on disk at the window's end, and the files the quota deleted so far. */
  recordingBytes: number;
  recordingFilesDeleted: number;
  learnerSteps: { policy: number; worldModel: number };
  recorderDropped: number;
  memoryDropped: number;
}

const RSS_SAMPLE_EVERY_MS = 10_000;
/** Searches at each window's end; their embeddings are taken evenly over the window's ticks. */
const QUERIES_PER_WINDOW = 20;
const QUERY_K = 10;

interface Counters {
  maintenanceRuns: number;
  maintenanceMs: number;
  steps: { policy: number; worldModel: number };
  recorderDropped: number;
  memoryDropped: number;
}

export class SimulatedHours {
  readonly windows: HourFigures[] = [];
  private durationsMs: number[] = [];
  private rssSamples: number[] = [];
  private queries: Float32Array[] = [];
  private ticksInWindow = 0;
  private windowStartWallMs = performance.now();
  private at: Counters;
  private readonly stopSampling: () => void;

  constructor(
    private readonly core: CoreSession,
    schedule: Schedule,
    private readonly ticksPerWindow: number,
  ) {
    this.at = this.readCounters();
    this.stopSampling = schedule.every(RSS_SAMPLE_EVERY_MS, () => void this.rssSamples.push(process.memoryUsage.rss()));
  }

  tick(durationMs: number, embedding: Float32Array): void {
    this.durationsMs.push(durationMs);
    const queryEvery = Math.max(1, Math.floor(this.ticksPerWindow / QUERIES_PER_WINDOW));
    if (this.ticksInWindow++ % queryEvery === 0 && this.queries.length < QUERIES_PER_WINDOW) this.queries.push(embedding.slice());
  }

  /** Closes the window at simulated `simSecs`: memory is flushed and read back, the recording's files measured. */
  async close(simSecs: number): Promise<HourFigures> {
    const counters = this.readCounters();
    const { memoryRows, queryMs } = await this.readMemory();
    const recording = await this.recordingOnDisk();
    const rss = this.rssSamples.length > 0 ? this.rssSamples : [process.memoryUsage.rss()];
    const nowMs = performance.now();
    const figures: HourFigures = {
      index: this.windows.length + 1,
      endSimSecs: simSecs,
      wallSecs: (nowMs - this.windowStartWallMs) / 1000,
      maintenanceRuns: counters.maintenanceRuns - this.at.maintenanceRuns,
      maintenanceMs: counters.maintenanceMs - this.at.maintenanceMs,
      rssLevelMiB: rss.reduce((sum, value) => sum + value, 0) / rss.length / MIB,
      rssPeakMiB: Math.max(...rss) / MIB,
      ticks: this.durationsMs.length,
      tickMs: percentiles(this.durationsMs),
      memoryRows,
      queryMs,
      ...recording,
      learnerSteps: { policy: counters.steps.policy - this.at.steps.policy, worldModel: counters.steps.worldModel - this.at.steps.worldModel },
      recorderDropped: counters.recorderDropped - this.at.recorderDropped,
      memoryDropped: counters.memoryDropped - this.at.memoryDropped,
    };
    this.windows.push(figures);
    this.durationsMs = [];
    this.rssSamples = [];
    this.queries = [];
    this.ticksInWindow = 0;
    this.at = counters;
    this.windowStartWallMs = performance.now();
    return figures;
  }

  stop(): void {
    this.stopSampling();
  }

  /** Every tick so far written, then counted and searched on a connection of the reader's own (as the review screen's search opens one). */
  private async readMemory(): Promise<{ memoryRows: number; queryMs: Percentiles }> {
    await this.core.stores.flushMemory();
    const reader = await openTickMemory(this.core.stores.memory!.uri, this.core.perception, { maintenance: { periodMs: 0 }, reconnectEveryMs: 0 });
    try {
      const memoryRows = await reader.store.countRows();
      const timesMs: number[] = [];
      for (const embedding of this.queries) {
        const startedMs = performance.now();
        await reader.nearest({ embedding }, { k: QUERY_K });
        timesMs.push(performance.now() - startedMs);
      }
      return { memoryRows, queryMs: percentiles(timesMs) };
    } finally {
      await reader.close();
    }
  }

  private async recordingOnDisk(): Promise<{ recordingBytes: number; recordingFilesDeleted: number }> {
    const stats = this.core.stores.recording!.stats();
    const deleted = new Set(stats.ownFilesDeleted);
    const sizes = await Promise.all(stats.files.filter((path) => !deleted.has(path)).map(async (path) => (await stat(path)).size));
    return { recordingBytes: sizes.reduce((sum, size) => sum + size, 0), recordingFilesDeleted: deleted.size };
  }

  private readCounters(): Counters {
    const { stores } = this.core;
    const maintenance = stores.memory!.maintenanceStatus();
    return {
      maintenanceRuns: maintenance.runs,
      maintenanceMs: maintenance.runsTotalMs,
      steps: this.core.learnerSteps(),
      recorderDropped: stores.recording?.stats().dropped ?? 0,
      memoryDropped: stores.memory!.writerStatus().dropped,
    };
  }
}
