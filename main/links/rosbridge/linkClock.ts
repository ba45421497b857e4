// Time as an injected dependency of the rosbridge link, so tests can move it by hand (a ManualClock
// from test/fakes fits this shape) and the link's timing logic never needs sleeps to test.
export type TimerHandle = ReturnType<typeof setTimeout> | number;

export interface LinkClock {
  /** Wall-clock ms since the epoch: receive stamps and the robot clock offset are on this clock. */
  epochMs(): number;
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(id: TimerHandle): void;
}

export const systemLinkClock: LinkClock = Object.freeze({
  epochMs: () => Date.now(),
  setTimeout: (callback: () => void, delayMs: number) => setTimeout(callback, delayMs),
  clearTimeout: (id: TimerHandle) => clearTimeout(id),
});
