// When the slow path runs (DESIGN §3): a retrain from the whole memory soon after the session starts
// (so what earlier sessions taught counts at once), then every `everyMs` when the operator has driven
// or taught something since the last one, and whenever the operator asks. One retrain at a time: a
// request during one joins it. A failed retrain is kept in the status and tried again next period.
import { wallSchedule, type Schedule } from '../core/runtime/schedule.ts';
import type { RetrainOutcome } from './policyImprover.ts';

export interface SlowPathOptions {
  /** The first retrain, this long after start. */
  firstAfterMs: number;
  /** Later retrains at most this often, and only when something new was taught. */
  everyMs: number;
  /** The clock its times are read on and its retrains scheduled on (the loop's: simulated time in lockstep). */
  schedule: Schedule;
  /** Told how each retrain ended (a failure as an outcome with its reason), e.g. for the log. */
  onOutcome?: (outcome: RetrainOutcome) => void;
}

export const DEFAULT_SLOW_PATH_OPTIONS: Readonly<Omit<SlowPathOptions, 'schedule' | 'onOutcome'>> = Object.freeze({
  firstAfterMs: 10_000,
  everyMs: 15 * 60_000,
});

export interface SlowPathStatus {
  running: boolean;
  everySecs: number;
  /** The last retrain that ended: when, and what it did in words. */
  last?: { atMs: number; ok: boolean; message: string };
}

export class SlowPath {
  private readonly options: SlowPathOptions;
  private cancelTimer: (() => void) | undefined;
  private running: Promise<RetrainOutcome> | undefined;
  private somethingNew = true;
  private last: SlowPathStatus['last'];
  private closed = false;

  constructor(
    private readonly retrain: () => Promise<RetrainOutcome>,
    options: Partial<SlowPathOptions> = {},
  ) {
    this.options = { ...DEFAULT_SLOW_PATH_OPTIONS, ...options, schedule: options.schedule ?? wallSchedule() };
    for (const key of ['firstAfterMs', 'everyMs'] as const) {
      if (!(Number.isFinite(this.options[key]) && this.options[key] >= 0))
        throw new RangeError(`slow path ${key} must be a finite number ≥ 0, got ${this.options[key]}`);
    }
  }

  /** Schedules the retrains (an `everyMs` of 0 leaves only the first and the operator's). */
  start(): void {
    if (this.closed || this.cancelTimer !== undefined) return;
    this.cancelTimer = this.options.schedule.after(this.options.firstAfterMs, () => this.scheduled());
  }

  /** The operator drove or taught something: the next period retrains. */
  noteNew(): void {
    this.somethingNew = true;
  }

  /** Retrains now, or joins the retrain in progress. */
  runNow(): Promise<RetrainOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, reason: 'the learning session has closed', ticks: 0 });
    if (this.running) return this.running;
    this.somethingNew = false;
    const running = this.retrain()
      .catch((error: unknown): RetrainOutcome => ({ ok: false, reason: (error as Error).message, ticks: 0 }))
      .then((outcome) => {
        this.last = { atMs: this.options.schedule.now(), ok: outcome.ok, message: describeOutcome(outcome) };
        this.options.onOutcome?.(outcome);
        return outcome;
      })
      .finally(() => (this.running = undefined));
    this.running = running;
    return running;
  }

  status(): SlowPathStatus {
    return { running: this.running !== undefined, everySecs: this.options.everyMs / 1000, ...(this.last ? { last: { ...this.last } } : {}) };
  }

  /** Stops the schedule and waits for a retrain in progress. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelTimer?.();
    await this.running;
  }

  /** A scheduled retrain (when something is new), and the next one armed when it has ended; resolves then. */
  private async scheduled(): Promise<void> {
    if (this.closed) return;
    if (this.somethingNew) await this.runNow();
    if (this.closed || this.options.everyMs === 0) return;
    this.cancelTimer = this.options.schedule.after(this.options.everyMs, () => this.scheduled());
  }
}

/** What a retrain did, as the operator reads it. */
export function describeOutcome(outcome: RetrainOutcome): string {
  if (!outcome.ok) return `Retraining from memory gave no version: ${outcome.reason}`;
  const { trainedOn } = outcome;
  return `Retrained from memory as ${outcome.version}: ${outcome.ticks} ticks, ${trainedOn.operatorTicks} of them the operator's; ${count(trainedOn.interventions, 'intervention')}, ${count(trainedOn.preferences, 'answer')}, ${count(trainedOn.ratings, 'rating')}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
