// Matches each ACK to the VELOCITY it answers (by sequence number) and keeps the recent round-trip
// times, so the link can report command latency and notice commands the device never answered.

export interface RoundTripStats {
  count: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export class CommandRoundTrip {
  private readonly sentAtMs = new Map<number, number>();
  private readonly samplesMs: number[] = [];

  constructor(private readonly keepSamples = 1000) {}

  sent(seq: number, nowMs: number): void {
    this.sentAtMs.set(seq, nowMs);
  }

  /** The round trip of the acknowledged command, or undefined for an ACK nobody is waiting for. */
  acknowledged(seq: number, nowMs: number): number | undefined {
    const sentAtMs = this.sentAtMs.get(seq);
    if (sentAtMs === undefined) return undefined;
    this.sentAtMs.delete(seq);
    const roundTripMs = nowMs - sentAtMs;
    this.samplesMs.push(roundTripMs);
    if (this.samplesMs.length > this.keepSamples) this.samplesMs.shift();
    return roundTripMs;
  }

  /** Forgets commands older than `timeoutMs`; returns how many were never acknowledged. */
  expire(nowMs: number, timeoutMs: number): number {
    let expired = 0;
    for (const [seq, sentAtMs] of this.sentAtMs) {
      if (nowMs - sentAtMs <= timeoutMs) continue;
      this.sentAtMs.delete(seq);
      expired++;
    }
    return expired;
  }

  /** Commands in flight are not answered after a reconnect: the device never saw them. */
  forgetPending(): void {
    this.sentAtMs.clear();
  }

  stats(): RoundTripStats | undefined {
    if (this.samplesMs.length === 0) return undefined;
    const sorted = [...this.samplesMs].sort((a, b) => a - b);
    const at = (fraction: number): number => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
    return { count: sorted.length, p50Ms: at(0.5), p95Ms: at(0.95), maxMs: sorted.at(-1)! };
  }
}
