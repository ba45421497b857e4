// Time as an injected dependency, so the timing logic (repeat rates, hold timers, reconnects) is
// tested by advancing a manual clock instead of sleeping.
export type TimerId = number;

export interface Clock {
  /** Monotonic milliseconds, for measuring durations. */
  nowMs(): number;
  /** Wall-clock milliseconds since the epoch, for timestamps the core reads. */
  epochMs(): number;
  setTimeout(callback: () => void, delayMs: number): TimerId;
  clearTimeout(id: TimerId): void;
  setInterval(callback: () => void, periodMs: number): TimerId;
  clearInterval(id: TimerId): void;
}

export const systemClock: Clock = {
  nowMs: () => performance.now(),
  epochMs: () => Date.now(),
  setTimeout: (callback, delayMs) => window.setTimeout(callback, delayMs),
  clearTimeout: (id) => window.clearTimeout(id),
  setInterval: (callback, periodMs) => window.setInterval(callback, periodMs),
  clearInterval: (id) => window.clearInterval(id),
};
