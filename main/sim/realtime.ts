// Runs a lockstep link against the wall clock, for `reins start`: a timer advances the simulated
// robot by the real time that passed, in whole physics steps. After a stall (a debugger, a swapped-
// out laptop) it skips ahead instead of racing to catch up, and tells the operator it did.
import type { CoreAlert } from '../core/alert.ts';
import type { LinkPresence } from '../core/link.ts';

/**
 * The calls startRealtime makes on the link it drives, a LockstepLink. Named here rather than imported
 * from lockstepLink.ts, which re-exports startRealtime for its callers and so imports this file.
 */
export interface RealtimeLink {
  presence(): LinkPresence;
  advance(dtSecs: number): void;
  skipClock(skippedSecs: number): void;
  raiseAlert(alert: CoreAlert): void;
  clearAlert(key: string): void;
  fail(alert: CoreAlert): void;
}

export interface RealtimeOptions {
  /** Timer period and the granularity of each advance. */
  stepSecs: number;
  /** More lag than this is dropped rather than simulated, so a long stall cannot snowball. */
  maxLagSecs: number;
  /** Monotonic clock in ms; injectable so tests can play the passing of time. */
  nowMs: () => number;
}

const BEHIND_ALERT_KEY = 'sim-behind';
/** The behind-real-time warning stays up this long after the last skip. */
const BEHIND_ALERT_HOLD_MS = 10_000;

/** Starts advancing the link in real time; returns the function that stops it. */
export function startRealtime(link: RealtimeLink, options: Partial<RealtimeOptions> = {}): () => void {
  const stepSecs = options.stepSecs ?? 0.01;
  const maxLagSecs = options.maxLagSecs ?? 0.25;
  const nowMs = options.nowMs ?? (() => performance.now());
  if (!(stepSecs > 0) || !(maxLagSecs >= stepSecs)) {
    throw new RangeError(`realtime needs stepSecs > 0 and maxLagSecs ≥ stepSecs, got ${stepSecs} and ${maxLagSecs}`);
  }
  let lastMs = nowMs();
  let owedSecs = 0;
  let lastSkipMs: number | undefined;

  const onTimer = (): void => {
    if (link.presence() !== 'present') {
      stop();
      return;
    }
    const now = nowMs();
    owedSecs += (now - lastMs) / 1000;
    lastMs = now;
    if (owedSecs > maxLagSecs) {
      const skippedSecs = owedSecs - stepSecs;
      link.skipClock(skippedSecs);
      owedSecs = stepSecs;
      lastSkipMs = now;
      link.raiseAlert({
        key: BEHIND_ALERT_KEY,
        severity: 'warn',
        message: `The simulated robot fell ${skippedSecs.toFixed(2)} s behind real time and skipped ahead.`,
        hint: 'Close other heavy programs, or lower the simulated camera resolution.',
      });
    } else if (lastSkipMs !== undefined && now - lastSkipMs > BEHIND_ALERT_HOLD_MS) {
      link.clearAlert(BEHIND_ALERT_KEY);
      lastSkipMs = undefined;
    }
    const steps = Math.floor(owedSecs / stepSecs + 1e-9);
    if (steps === 0) return;
    owedSecs -= steps * stepSecs;
    try {
      link.advance(steps * stepSecs);
    } catch (error) {
      // A timer has no caller to pass this to: stop, and let the link tell the operator.
      stop();
      link.fail({
        key: 'sim-failed',
        severity: 'error',
        message: `The simulated robot stopped: ${error instanceof Error ? error.message : String(error)}`,
        hint: 'Restart Reins; if it happens again, report it with the log.',
      });
    }
  };

  const timer = setInterval(onTimer, stepSecs * 1000);
  const stop = (): void => clearInterval(timer);
  return stop;
}
