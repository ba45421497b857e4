// A tick's surprise held at its peak for a moment, whichever measure it is given: the cockpit's
// `surpriseRatio`, and in the world-model bench also `surpriseNats` and the raw error. At 10 Hz one
// tick lasts 100 ms — a shove or a sudden obstacle that surprises the model for a tick or two would
// be gone before an operator's eye got to it — so the meter shows the highest value of the last
// `holdMs`, as a level meter holds its peaks.
export const DEFAULT_SURPRISE_HOLD_MS = 1000;

export class SurpriseMeter {
  private readonly recent: { timeMs: number; value: number }[] = [];

  constructor(private readonly holdMs = DEFAULT_SURPRISE_HOLD_MS) {
    if (!(holdMs >= 0 && Number.isFinite(holdMs))) throw new RangeError(`the surprise hold must be a finite time ≥ 0 ms, got ${holdMs}`);
  }

  /** Takes the tick's value (ignored when not finite) and returns the peak of the last `holdMs`. */
  update(value: number, timeMs: number): number {
    if (Number.isFinite(value)) {
      // Values below the new one can never be the peak again: the list stays short and descending.
      while (this.recent.length > 0 && this.recent[this.recent.length - 1]!.value <= value) this.recent.pop();
      this.recent.push({ timeMs, value });
    }
    while (this.recent.length > 0 && this.recent[0]!.timeMs < timeMs - this.holdMs) this.recent.shift();
    return this.recent[0]?.value ?? 0;
  }

  reset(): void {
    this.recent.length = 0;
  }
}
