// When a periodic sensor is due. Due times are counted, not accumulated, so a 15 Hz camera fires
// exactly 15 times per simulated second however the physics steps fall.

/** Step times that land within this of a due time count as on time (float rounding only). */
const DUE_TOLERANCE_SECS = 1e-9;

export class RateSchedule {
  readonly periodSecs: number;
  private nextIndex = 1;

  constructor(readonly rateHz: number) {
    if (!(rateHz > 0 && Number.isFinite(rateHz))) throw new RangeError(`sensor rate must be a positive number of Hz, got ${rateHz}`);
    this.periodSecs = 1 / rateHz;
  }

  /** Whether a sample is due at this time; each due time answers true once. Skips missed ones. */
  takeDue(simTimeSecs: number): boolean {
    if (simTimeSecs + DUE_TOLERANCE_SECS < this.dueSecs()) return false;
    // A step longer than the period (a low physics rate) yields one sample, not a burst.
    while (this.dueSecs() <= simTimeSecs + DUE_TOLERANCE_SECS) this.nextIndex++;
    return true;
  }

  private dueSecs(): number {
    return this.nextIndex * this.periodSecs;
  }
}
