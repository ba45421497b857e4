// Keeps the most recent durations and reports their percentiles (the status bar's tick latency).

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

export class LatencyWindow {
  private readonly samplesMs: Float64Array;
  private count = 0;
  private next = 0;

  constructor(capacity = 300) {
    this.samplesMs = new Float64Array(capacity);
  }

  add(durationMs: number): void {
    this.samplesMs[this.next] = durationMs;
    this.next = (this.next + 1) % this.samplesMs.length;
    this.count = Math.min(this.count + 1, this.samplesMs.length);
  }

  percentiles(): Percentiles {
    return percentiles(this.samplesMs.subarray(0, this.count));
  }
}

/** Nearest-rank percentiles; zeros for an empty set. */
export function percentiles(values: ArrayLike<number>): Percentiles {
  if (values.length === 0) return { p50: 0, p95: 0, p99: 0 };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}
