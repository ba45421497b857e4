// The soak's figures window by window (a minute each by default): resident memory and where it is
// (the JS heap, external memory, the C heap), tick latency, how late the timer started ticks, ticks
// skipped or started late, messages dropped, sensor rates.
import { mallocStats } from '../../core/runtime/allocatorTuning.ts';
import { percentiles, type Percentiles } from '../../core/util/latencyWindow.ts';

export interface WindowFigures {
  /** 1-based. */
  index: number;
  endSecs: number;
  /** Resident memory at the window's end, and its peak over the window (sampled each second). */
  rssMiB: number;
  rssPeakMiB: number;
  /** Mean of the once-a-second samples: the window's level, which a sample or a peak alone is not. */
  rssMeanMiB: number;
  heapMiB: number;
  /** Memory outside the JS heap that the main thread's objects hold (ArrayBuffers included). */
  externalMiB: number;
  /** The C heap of every thread at the window's end (glibc's mallinfo2); undefined where unknown. */
  malloc: { inUseMiB: number; freeHeldMiB: number; mappedMiB: number } | undefined;
  ticks: number;
  tickMs: Percentiles;
  startLatenessMs: Percentiles;
  skipped: number;
  startedLate: number;
  recordingDropped: number;
  memoryDropped: number;
  /** Messages received per second on each sensor topic. */
  sensorHz: Record<string, number>;
}

/** The counters the window reads from the running core, each cumulative since the start. */
export interface SoakCounters {
  ticksSkipped(): number;
  ticksStartedLate(): number;
  recordingDropped(): number;
  memoryDropped(): number;
}

export const MIB = 1024 * 1024;

export class SoakWindows {
  readonly windows: WindowFigures[] = [];
  private durationsMs: number[] = [];
  private latenessMs: number[] = [];
  private sensorCounts = new Map<string, number>();
  private rssPeak = 0;
  private rssSum = 0;
  private rssSamples = 0;
  private startedMs = performance.now();
  private windowStartMs = this.startedMs;
  private at: { skipped: number; late: number; recordingDropped: number; memoryDropped: number };

  constructor(
    private readonly counters: SoakCounters,
    private readonly sensorTopics: readonly string[],
  ) {
    this.at = this.readCounters();
  }

  /** Starts the clock afresh (when the loop starts). */
  begin(): void {
    this.startedMs = performance.now();
    this.windowStartMs = this.startedMs;
    this.at = this.readCounters();
  }

  tick(durationMs: number, startLatenessMs: number | undefined): void {
    this.durationsMs.push(durationMs);
    if (startLatenessMs !== undefined) this.latenessMs.push(startLatenessMs);
  }

  sensorMessage(topic: string): void {
    this.sensorCounts.set(topic, (this.sensorCounts.get(topic) ?? 0) + 1);
  }

  /** Once a second: the peak and the level of resident memory. */
  sampleMemory(): void {
    const rss = process.memoryUsage.rss();
    this.rssPeak = Math.max(this.rssPeak, rss);
    this.rssSum += rss;
    this.rssSamples++;
  }

  /** Closes the window now. */
  close(): WindowFigures {
    const nowMs = performance.now();
    const secs = Math.max(1e-3, (nowMs - this.windowStartMs) / 1000);
    const memory = process.memoryUsage();
    const counters = this.readCounters();
    const heap = mallocStats();
    const figures: WindowFigures = {
      index: this.windows.length + 1,
      endSecs: (nowMs - this.startedMs) / 1000,
      rssMiB: memory.rss / MIB,
      rssPeakMiB: Math.max(this.rssPeak, memory.rss) / MIB,
      rssMeanMiB: (this.rssSamples > 0 ? this.rssSum / this.rssSamples : memory.rss) / MIB,
      heapMiB: memory.heapUsed / MIB,
      externalMiB: memory.external / MIB,
      malloc: heap && { inUseMiB: heap.inUse / MIB, freeHeldMiB: heap.freeHeld / MIB, mappedMiB: heap.mapped / MIB },
      ticks: this.durationsMs.length,
      tickMs: percentiles(this.durationsMs),
      startLatenessMs: percentiles(this.latenessMs),
      skipped: counters.skipped - this.at.skipped,
      startedLate: counters.late - this.at.late,
      recordingDropped: counters.recordingDropped - this.at.recordingDropped,
      memoryDropped: counters.memoryDropped - this.at.memoryDropped,
      sensorHz: Object.fromEntries(this.sensorTopics.map((topic) => [topic, (this.sensorCounts.get(topic) ?? 0) / secs])),
    };
    this.windows.push(figures);
    this.durationsMs = [];
    this.latenessMs = [];
    this.sensorCounts = new Map();
    this.rssPeak = 0;
    this.rssSum = 0;
    this.rssSamples = 0;
    this.windowStartMs = nowMs;
    this.at = counters;
    return figures;
  }

  private readCounters() {
    return {
      skipped: this.counters.ticksSkipped(),
      late: this.counters.ticksStartedLate(),
      recordingDropped: this.counters.recordingDropped(),
      memoryDropped: this.counters.memoryDropped(),
    };
  }
}
