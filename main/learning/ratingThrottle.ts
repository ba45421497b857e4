// A token bucket for the operator's ratings: a short burst passes, a held-down key or a script does
// not. Refused ratings cost nothing and are told to the operator by the caller.
export class RatingThrottle {
  private tokens: number;
  private lastMs: number | undefined;

  constructor(
    private readonly perSec: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /** Takes one token if there is one at `nowMs`. */
  take(nowMs: number): boolean {
    if (this.lastMs !== undefined) this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, nowMs - this.lastMs) / 1000) * this.perSec);
    this.lastMs = nowMs;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
