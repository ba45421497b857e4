import type { Driver } from '../core/tickReport.ts';
// Tells the operator when the policy drives where the reward model does not know what is good
// (DESIGN §3: the ensemble's spread is its uncertainty). Each tick the policy drives, the ensemble's
// spread on that tick is averaged over the last couple of seconds and compared with its spread where
// the operator's feedback taught it. Far above that, the learned reward — and so what the learner
// makes of these ticks — is a guess, and a rating or an answer here teaches the most. It says nothing
// about safety: on the learning bench the spread does not foretell takeovers (docs/learning.md), and
// it holds nothing back; the safety layer does not rest on a learned model.

export interface RewardDriftOptions {
  /** The policy's ticks averaged (2 s at 10 Hz); no warning before this many. */
  windowTicks: number;
  /** The warning starts when the recent spread passes this multiple of the taught spread… */
  warnAboveRatio: number;
  /** …and ends when it falls below this one (or the policy stops driving). */
  clearBelowRatio: number;
}

// Chosen on the learning bench's stream (docs/learning.md): against the upper quartile of the taught
// spread, 1.5× is passed on about a tenth of the policy's driving; 2× against the median was on 40%.
export const DEFAULT_REWARD_DRIFT_OPTIONS: Readonly<RewardDriftOptions> = Object.freeze({ windowTicks: 20, warnAboveRatio: 1.5, clearBelowRatio: 1.2 });

export interface RewardDriftTick {
  driver: Driver;
  timeMs: number;
  /** The ensemble's spread on this tick; undefined when it cannot score it. */
  spread: number | undefined;
  /** Its spread where the feedback taught it; undefined until measured. */
  taughtSpread: number | undefined;
}

export interface RewardDriftState {
  /** Mean spread over the policy's latest ticks (up to windowTicks of them). */
  recentSpread: number;
  taughtSpread: number;
  drifting: boolean;
  /** The tick time at which the warning started. */
  sinceMs?: number;
}

export class RewardDriftWatch {
  readonly options: RewardDriftOptions;
  private readonly window: Float64Array;
  private count = 0;
  private next = 0;
  private sum = 0;
  private taughtSpread: number | undefined;
  private sinceMs: number | undefined;

  constructor(options: Partial<RewardDriftOptions> = {}) {
    this.options = { ...DEFAULT_REWARD_DRIFT_OPTIONS, ...options };
    const { windowTicks, warnAboveRatio, clearBelowRatio } = this.options;
    if (!(Number.isInteger(windowTicks) && windowTicks >= 1))
      throw new RangeError(`the reward drift window is a whole number of ticks ≥ 1, got ${windowTicks}`);
    if (!(clearBelowRatio > 0 && warnAboveRatio >= clearBelowRatio))
      throw new RangeError(`reward drift ratios need 0 < clearBelowRatio ≤ warnAboveRatio, got ${clearBelowRatio} and ${warnAboveRatio}`);
    this.window = new Float64Array(windowTicks);
  }

  noteTick({ driver, timeMs, spread, taughtSpread }: RewardDriftTick): void {
    const usable =
      driver === 'policy' &&
      spread !== undefined &&
      Number.isFinite(spread) &&
      spread >= 0 &&
      taughtSpread !== undefined &&
      Number.isFinite(taughtSpread) &&
      taughtSpread > 0;
    if (!usable) {
      // Anyone else driving, or nothing to compare: the next stretch of policy driving starts afresh.
      this.reset();
      return;
    }
    this.taughtSpread = taughtSpread;
    if (this.count === this.window.length) this.sum -= this.window[this.next]!;
    else this.count++;
    this.window[this.next] = spread;
    this.sum += spread;
    this.next = (this.next + 1) % this.window.length;
    if (this.count < this.window.length) return;
    const ratio = this.recentSpread() / taughtSpread;
    if (this.sinceMs === undefined && ratio > this.options.warnAboveRatio) this.sinceMs = timeMs;
    else if (this.sinceMs !== undefined && ratio < this.options.clearBelowRatio) this.sinceMs = undefined;
  }

  /** Undefined unless the policy is driving and the ensemble's spread can be compared. */
  state(): RewardDriftState | undefined {
    if (this.count === 0 || this.taughtSpread === undefined) return undefined;
    return {
      recentSpread: this.recentSpread(),
      taughtSpread: this.taughtSpread,
      drifting: this.sinceMs !== undefined,
      ...(this.sinceMs === undefined ? {} : { sinceMs: this.sinceMs }),
    };
  }

  private recentSpread(): number {
    // A running sum in float64: what it loses to rounding over hours is far below any spread.
    return Math.max(0, this.sum / this.count);
  }

  private reset(): void {
    this.count = 0;
    this.next = 0;
    this.sum = 0;
    this.taughtSpread = undefined;
    this.sinceMs = undefined;
  }
}
