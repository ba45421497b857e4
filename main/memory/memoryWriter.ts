// Rows reach disk off the control loop's path: append() checks a row and queues it, never waiting;
// a background pump writes what is queued as one batch when enough rows have gathered or the oldest
// has waited long enough. The queue is bounded: under sustained overload (or a disk that refuses
// writes) new rows are dropped and counted, and status() says so. A failed batch stays at the head
// of the queue and is retried with backoff, so a passing fault loses nothing that fits the queue.
import { wallSchedule, type Schedule } from '../core/runtime/schedule.ts';
import { describeLanceError, MemoryRowError } from './memoryErrors.ts';

/** Where a writer's batches go (a ticks table): it checks one row and writes many. */
export interface RowSink<Row> {
  readonly name: string;
  /** Throws a MemoryRowError for a row that must not be written. */
  check(row: Row): void;
  write(rows: readonly Row[]): Promise<void>;
}

export interface MemoryWriterOptions {
  /** Write as soon as this many rows are queued… */
  batchRows: number;
  /** …or once the oldest queued row has waited this long. */
  flushIntervalMs: number;
  /** The bound: past this, new rows are dropped (and counted) until the queue drains to half. */
  maxQueuedRows: number;
  /** The most rows one write takes; a backlog is written in batches this big. */
  maxBatchRows: number;
  /** Retries of a failed write back off from flushIntervalMs up to this. */
  maxRetryDelayMs: number;
}

export const DEFAULT_WRITER_OPTIONS: Readonly<MemoryWriterOptions> = Object.freeze({
  batchRows: 1000,
  // Every write is a LanceDB commit and leaves a fragment until compaction: at 200 ms (10 Hz ticks in
  // two-row fragments) reads slowed ~20× between compactions and the process grew ~30 MB a minute.
  // Two seconds is what a crash can lose of rows not yet committed (the recorder loses ~1 s).
  flushIntervalMs: 2000,
  // An hour at 10 Hz (20 minutes at 30 Hz) of a stalled disk before anything is dropped: ~45 MB of
  // 256-float rows.
  maxQueuedRows: 36_000,
  maxBatchRows: 10_000,
  maxRetryDelayMs: 5000,
});

export interface WriterStatus {
  /** Rows waiting (including a batch being written). */
  queued: number;
  written: number;
  /** Rows refused because the queue was full or the writer closed. */
  dropped: number;
  /** Rows refused by the check (bad input); lastError says why. */
  rejected: number;
  /** Rows are being dropped, or writes are failing. */
  degraded: boolean;
  /** The most recent refusal or write failure, kept after recovery (degraded says whether it lasts). */
  lastError: string | undefined;
}

export type AppendResult =
  { accepted: true } | { accepted: false; reason: 'queue-full' | 'closed' } | { accepted: false; reason: 'invalid'; error: MemoryRowError };

const ACCEPTED: AppendResult = Object.freeze({ accepted: true });
const QUEUE_FULL: AppendResult = Object.freeze({ accepted: false, reason: 'queue-full' });
const CLOSED: AppendResult = Object.freeze({ accepted: false, reason: 'closed' });

interface Waiter {
  done: () => boolean;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class MemoryWriter<Row> {
  private readonly options: MemoryWriterOptions;
  private readonly queue: Row[] = [];
  private written = 0;
  private dropped = 0;
  private rejected = 0;
  private dropping = false;
  private failing = false;
  private retryDelayMs = 0;
  private lastError: string | undefined;
  private writing = false;
  private closed = false;
  private cancelTimer: (() => void) | undefined;
  private waiters: Waiter[] = [];

  constructor(
    private readonly sink: RowSink<Row>,
    options: Partial<MemoryWriterOptions> = {},
    /** The clock its flush interval and retries run on: the core's (simulated in a lockstep core). */
    private readonly clock: Schedule = wallSchedule(),
  ) {
    this.options = { ...DEFAULT_WRITER_OPTIONS, ...options };
    const { batchRows, maxBatchRows, maxQueuedRows } = this.options;
    if (!(batchRows >= 1 && batchRows <= maxBatchRows && maxBatchRows <= maxQueuedRows)) {
      throw new RangeError(`writer needs 1 ≤ batchRows (${batchRows}) ≤ maxBatchRows (${maxBatchRows}) ≤ maxQueuedRows (${maxQueuedRows})`);
    }
  }

  /** Checks and queues one row; never waits and never throws for a disk problem. */
  append(row: Row): AppendResult {
    if (this.closed) {
      this.dropped++;
      return CLOSED;
    }
    try {
      this.sink.check(row);
    } catch (error) {
      if (!(error instanceof MemoryRowError)) throw error;
      this.rejected++;
      this.lastError = error.message;
      return { accepted: false, reason: 'invalid', error };
    }
    if (this.queue.length >= this.options.maxQueuedRows) {
      this.dropped++;
      this.dropping = true;
      return QUEUE_FULL;
    }
    this.queue.push(row);
    this.schedule();
    return ACCEPTED;
  }

  status(): WriterStatus {
    return {
      queued: this.queue.length,
      written: this.written,
      dropped: this.dropped,
      rejected: this.rejected,
      degraded: this.dropping || this.failing,
      lastError: this.lastError,
    };
  }

  /** Writes everything queued now; rejects if a write fails (the rows stay queued and are retried). */
  flush(): Promise<void> {
    const target = this.written + this.queue.length;
    return this.waitUntil(() => this.written >= target, true);
  }

  /** For bulk producers (imports, benches): resolves once the queue has drained to half its bound; rejects if a write fails. */
  waitForRoom(): Promise<void> {
    return this.waitUntil(() => this.queue.length <= this.options.maxQueuedRows / 2, false);
  }

  /** Stops taking rows and writes what is queued. Rejects, saying how many rows were lost, if that fails. */
  async close(): Promise<void> {
    this.closed = true;
    try {
      await this.flush();
    } catch (error) {
      const lost = this.queue.length;
      this.dropped += lost;
      this.queue.length = 0;
      throw new Error(`memory writer for ${this.sink.name} closed with ${lost} rows unwritten: ${(error as Error).message}`, { cause: error });
    } finally {
      this.clearTimer();
    }
  }

  private waitUntil(done: () => boolean, writeNow: boolean): Promise<void> {
    if (done()) return Promise.resolve();
    const settled = new Promise<void>((resolve, reject) => this.waiters.push({ done, resolve, reject }));
    if (writeNow) this.pump();
    return settled;
  }

  private schedule(): void {
    if (this.writing) return; // the pump looks at the queue again when the write in flight ends
    if (!this.failing && this.queue.length >= this.options.batchRows) {
      this.pump();
      return;
    }
    if (this.cancelTimer !== undefined || this.queue.length === 0) return;
    const delayMs = this.failing ? this.retryDelayMs : this.options.flushIntervalMs;
    // The wall schedule's timers never keep a finished program alive; close() is what writes the last rows.
    this.cancelTimer = this.clock.after(delayMs, () => {
      this.cancelTimer = undefined;
      this.pump();
    });
  }

  private clearTimer(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  private pump(): void {
    if (this.writing || this.queue.length === 0) return;
    this.clearTimer();
    this.writing = true;
    // The batch stays in the queue until it is written: a failure keeps it, and `queued` stays honest.
    const batch = this.queue.slice(0, this.options.maxBatchRows);
    Promise.resolve()
      .then(() => this.sink.write(batch))
      .then(
        () => this.succeeded(batch.length),
        (error: unknown) => this.failed(error),
      );
  }

  private succeeded(count: number): void {
    this.queue.splice(0, count);
    this.written += count;
    this.writing = false;
    this.failing = false;
    this.retryDelayMs = 0;
    if (this.dropping && this.queue.length <= this.options.maxQueuedRows / 2) this.dropping = false;
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.done()) return true;
      waiter.resolve();
      return false;
    });
    // A backlog is written at once, batch after batch; a few rows wait for their interval.
    if (this.queue.length >= this.options.batchRows || (this.waiters.length > 0 && this.queue.length > 0)) this.pump();
    else this.schedule();
  }

  private failed(error: unknown): void {
    this.writing = false;
    this.failing = true;
    this.lastError = `writing ${this.sink.name} failed: ${describeLanceError(error)}`;
    const failure = new Error(this.lastError, { cause: error });
    this.retryDelayMs = Math.min(Math.max(this.retryDelayMs * 2, this.options.flushIntervalMs), this.options.maxRetryDelayMs);
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(failure);
    this.schedule();
  }
}
