// How many requests one UI socket (or the HTTP request endpoint) may send: a token bucket, refilled
// continuously. A flood beyond it is refused with a `rate-limited` error (itself said at most once a
// second), never queued; the e-stop is never limited (DESIGN §1: sizes and rates limited, e-stop first).
export interface RateLimitOptions {
  /** Requests per second sustained. */
  perSecond: number;
  /** Requests allowed at once after a quiet spell. */
  burst: number;
}

/** Far above what the cockpit sends (drive at up to 30 Hz, heartbeat at 10 Hz, the operator's clicks). */
export const SOCKET_REQUEST_LIMIT: Readonly<RateLimitOptions> = Object.freeze({ perSecond: 200, burst: 200 });
export const HTTP_REQUEST_LIMIT: Readonly<RateLimitOptions> = Object.freeze({ perSecond: 50, burst: 50 });

export class RequestRateLimit {
  private tokens: number;
  private lastRefillMs: number;
  private lastRefusalToldMs = -Infinity;
  private refusedSinceTold = 0;

  constructor(
    private readonly options: RateLimitOptions,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.tokens = options.burst;
    this.lastRefillMs = clock();
  }

  /** Takes one request's token; false when the budget is spent. */
  take(): boolean {
    const nowMs = this.clock();
    this.tokens = Math.min(this.options.burst, this.tokens + ((nowMs - this.lastRefillMs) / 1000) * this.options.perSecond);
    this.lastRefillMs = nowMs;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.refusedSinceTold++;
    return false;
  }

  /** After a refusal: the message to send, or undefined when one went out less than a second ago. */
  refusalToTell(): string | undefined {
    const nowMs = this.clock();
    if (nowMs - this.lastRefusalToldMs < 1000) return undefined;
    const count = this.refusedSinceTold;
    this.lastRefusalToldMs = nowMs;
    this.refusedSinceTold = 0;
    return `too many requests: at most ${this.options.perSecond} a second (${count} refused); the e-stop is never limited`;
  }
}
