// Reconnect delays: exponential from 250 ms to a 5 s ceiling, each shortened by up to 20% at random
// so that several cockpits (or a cockpit and its probes) that lost the same robot do not all knock
// on it at the same instant.
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** Fraction (0…1) by which a delay may be shortened at random. */
  jitter: number;
}

export const ROSBRIDGE_RECONNECT_BACKOFF: Readonly<BackoffPolicy> = Object.freeze({ initialMs: 250, maxMs: 5000, factor: 2, jitter: 0.2 });

export class JitteredBackoff {
  private failures = 0;

  constructor(
    private readonly policy: Readonly<BackoffPolicy> = ROSBRIDGE_RECONNECT_BACKOFF,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next attempt; each call counts one more failure. */
  nextDelayMs(): number {
    const { initialMs, maxMs, factor, jitter } = this.policy;
    const ceilingMs = Math.min(maxMs, initialMs * factor ** this.failures);
    this.failures++;
    return Math.round(ceilingMs * (1 - jitter * this.random()));
  }

  /** Attempts since the last success. */
  get attempts(): number {
    return this.failures;
  }

  reset(): void {
    this.failures = 0;
  }
}
