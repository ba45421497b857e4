// Reconnect delays: 250 ms doubling to a 5 s ceiling, reset once the core has greeted us.
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  factor: number;
}

export const CORE_RECONNECT_BACKOFF: Readonly<BackoffPolicy> = Object.freeze({ initialMs: 250, maxMs: 5000, factor: 2 });

export class ReconnectBackoff {
  #failures = 0;

  constructor(private readonly policy: Readonly<BackoffPolicy> = CORE_RECONNECT_BACKOFF) {}

  /** The delay before the next attempt; each call counts one more failure. */
  nextDelayMs(): number {
    const { initialMs, maxMs, factor } = this.policy;
    const delayMs = Math.min(maxMs, initialMs * factor ** this.#failures);
    this.#failures++;
    return delayMs;
  }

  /** Failures since the last success. */
  get failures(): number {
    return this.#failures;
  }

  reset(): void {
    this.#failures = 0;
  }
}
