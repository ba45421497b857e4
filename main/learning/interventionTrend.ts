// How often the operator has had to take over, over the policy's driving time (DESIGN §3): the
// operator's answer to "is it needing me less?". A session adds a version every few seconds, so a
// version rarely drives long enough for a rate of its own; the trend cuts the policy's driving time
// into stretches of equal length instead, each with its interventions and the versions that drove in
// it. Equal stretches make their rates comparable; the newest `keep` are kept.

export interface AutonomyStretch {
  /** The versions that drove first and last in the stretch (equal when one version drove it all). */
  firstVersion: number;
  lastVersion: number;
  drivingMs: number;
  interventions: number;
}

export interface InterventionTrendOptions {
  /** Policy driving time per stretch. */
  stretchSecs: number;
  /** Completed stretches kept (the oldest go). */
  keep: number;
}

export const DEFAULT_INTERVENTION_TREND_OPTIONS: Readonly<InterventionTrendOptions> = Object.freeze({ stretchSecs: 60, keep: 30 });

export class InterventionTrend {
  readonly options: InterventionTrendOptions;
  private readonly completed: AutonomyStretch[] = [];
  private current: AutonomyStretch | undefined;

  constructor(options: Partial<InterventionTrendOptions> = {}) {
    this.options = { ...DEFAULT_INTERVENTION_TREND_OPTIONS, ...options };
    const { stretchSecs, keep } = this.options;
    if (!(Number.isFinite(stretchSecs) && stretchSecs > 0))
      throw new RangeError(`an intervention trend's stretch must be a positive number of seconds, got ${stretchSecs}`);
    if (!(Number.isInteger(keep) && keep >= 1)) throw new RangeError(`an intervention trend keeps a whole number ≥ 1 of stretches, got ${keep}`);
  }

  /** `drivenMs` more of policy driving by version `version`. */
  noteDriving(drivenMs: number, version: number): void {
    const lengthMs = this.options.stretchSecs * 1000;
    let left = drivenMs;
    // What runs past a stretch's end begins the next one: every completed stretch is exactly as long.
    while (left > 0) {
      const stretch = this.open(version);
      const taken = Math.min(left, lengthMs - stretch.drivingMs);
      stretch.drivingMs += taken;
      stretch.lastVersion = version;
      left -= taken;
      if (stretch.drivingMs < lengthMs) return;
      this.completed.push(stretch);
      if (this.completed.length > this.options.keep) this.completed.splice(0, this.completed.length - this.options.keep);
      this.current = undefined;
    }
  }

  /** A takeover from version `version`: it counts in the stretch under way. */
  noteIntervention(version: number): void {
    this.open(version).interventions++;
  }

  /** The completed stretches, oldest first. */
  stretches(): readonly AutonomyStretch[] {
    return this.completed;
  }

  private open(version: number): AutonomyStretch {
    this.current ??= { firstVersion: version, lastVersion: version, drivingMs: 0, interventions: 0 };
    return this.current;
  }
}

/** Interventions per minute of a stretch's driving. */
export function stretchRatePerMin(stretch: Pick<AutonomyStretch, 'drivingMs' | 'interventions'>): number {
  return stretch.interventions / (stretch.drivingMs / 60_000);
}
