// What one subscriber saw of a stream during a fixed measurement window: how late each message
// arrived (decoded, against its source stamp) and how many arrived. Messages outside the window
// (warm-up, stragglers after it) count for neither, so the rate is messages per window second.
import { percentiles } from '../../core/util/latencyWindow.ts';
import type { BenchRow } from './report.ts';

export class StreamWindow {
  private readonly latenciesMs: number[] = [];

  constructor(
    /** Start of the window, on the clock that `decodedAtMs` is given on. */
    private readonly startMs: number,
    private readonly durationMs: number,
  ) {
    if (!(durationMs > 0)) throw new RangeError(`a measurement window needs a positive duration, got ${durationMs} ms`);
  }

  /** Notes one message: decoded at `decodedAtMs`, stamped by its source at `sourceTimeMs` (same clock). */
  record(decodedAtMs: number, sourceTimeMs: number): void {
    if (decodedAtMs < this.startMs || decodedAtMs >= this.startMs + this.durationMs) return;
    this.latenciesMs.push(decodedAtMs - sourceTimeMs);
  }

  get count(): number {
    return this.latenciesMs.length;
  }

  /** `NAME-latency` (ms: percentiles, value the mean) and `NAME-hz` (value: messages per second). */
  rows(name: string): BenchRow[] {
    const received = this.latenciesMs.length;
    if (received === 0) throw new Error(`${name}: no message arrived in the ${this.durationMs} ms window`);
    const meanMs = this.latenciesMs.reduce((sum, ms) => sum + ms, 0) / received;
    return [
      { name: `${name}-latency`, unit: 'ms', ...percentiles(this.latenciesMs), value: meanMs },
      { name: `${name}-hz`, unit: 'Hz', p50: null, p95: null, p99: null, value: received / (this.durationMs / 1000) },
    ];
  }
}
