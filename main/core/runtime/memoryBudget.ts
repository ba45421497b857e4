// The core's resident memory against its budget (issue 31). A session of hours must not be ended by
// the system's OOM killer: the core's RSS is read on the core's schedule (never per tick), and when it
// passes `pressureFraction` of the budget the listeners are told (the session pauses the learners and
// shrinks its caches) and an alert says so; only once it is back under `reliefFraction` (lower, so the
// state does not flap around one threshold) are they told again and the alert cleared.
import type { CoreAlert } from '../alert.ts';
import type { Schedule } from './schedule.ts';

export const DEFAULT_MEMORY_BUDGET_MIB = 1536;
export const MEMORY_PRESSURE_ALERT_KEY = 'memory-pressure';
const MIB = 1024 * 1024;

export interface MemoryBudgetOptions {
  budgetBytes: number;
  /** Under pressure from this fraction of the budget on. */
  pressureFraction: number;
  /** Relieved again below this fraction (under `pressureFraction`). */
  reliefFraction: number;
  /** How often the resident memory is read, on the schedule's clock. */
  sampleEveryMs: number;
  schedule: Schedule;
}

export const DEFAULT_MEMORY_BUDGET_OPTIONS: Readonly<Omit<MemoryBudgetOptions, 'budgetBytes' | 'schedule'>> = Object.freeze({
  pressureFraction: 0.9,
  reliefFraction: 0.8,
  sampleEveryMs: 2000,
});

export interface MemoryBudgetStatus {
  budgetBytes: number;
  /** The last reading (bytes); undefined before the first. */
  rssBytes: number | undefined;
  underPressure: boolean;
  /** How many times the core has come under pressure so far. */
  pressureEpisodes: number;
}

/** What a change of state tells a listener; a listener's promise is awaited before the next one runs. */
export type PressureListener = (underPressure: boolean, rssBytes: number) => unknown;

/** The state after a reading: pressure from `pressureBytes` on, relief only below `reliefBytes`. */
export function pressureAfter(underPressure: boolean, rssBytes: number, thresholds: { pressureBytes: number; reliefBytes: number }): boolean {
  return underPressure ? rssBytes >= thresholds.reliefBytes : rssBytes >= thresholds.pressureBytes;
}

export class MemoryBudget {
  readonly options: MemoryBudgetOptions;
  private readonly listeners: PressureListener[] = [];
  private underPressure = false;
  private pressureEpisodes = 0;
  private rssBytes: number | undefined;
  private stopSampling: (() => void) | undefined;
  private sampling: Promise<void> | undefined;

  constructor(options: Pick<MemoryBudgetOptions, 'budgetBytes' | 'schedule'> & Partial<MemoryBudgetOptions>) {
    this.options = { ...DEFAULT_MEMORY_BUDGET_OPTIONS, ...options };
    const { budgetBytes, pressureFraction, reliefFraction, sampleEveryMs } = this.options;
    if (!(Number.isFinite(budgetBytes) && budgetBytes > 0)) throw new RangeError(`the memory budget must be a positive number of bytes, got ${budgetBytes}`);
    if (!(pressureFraction > 0 && pressureFraction <= 1)) throw new RangeError(`pressureFraction must be in (0, 1], got ${pressureFraction}`);
    if (!(reliefFraction > 0 && reliefFraction < pressureFraction))
      throw new RangeError(`reliefFraction must be above 0 and below pressureFraction (${pressureFraction}), got ${reliefFraction}`);
    if (!(Number.isFinite(sampleEveryMs) && sampleEveryMs > 0)) throw new RangeError(`sampleEveryMs must be a positive number, got ${sampleEveryMs}`);
  }

  /** Told of every change of state, in the order listeners were added. */
  onChange(listener: PressureListener): void {
    this.listeners.push(listener);
  }

  /** Reads the resident memory every `sampleEveryMs` from now on. */
  start(): void {
    this.stopSampling ??= this.options.schedule.every(this.options.sampleEveryMs, () => this.sample());
  }

  /**
   * Reads the resident memory now and acts on a change of state; resolves once every listener has.
   * A reading while listeners still act on the last change waits for them (a lockstep schedule awaits it).
   */
  sample(): Promise<void> {
    // A failed reading or listener is the caller's to see (this promise); the next reading still runs.
    this.sampling = (this.sampling ?? Promise.resolve()).catch(() => undefined).then(() => this.read());
    return this.sampling;
  }

  status(): MemoryBudgetStatus {
    return { budgetBytes: this.options.budgetBytes, rssBytes: this.rssBytes, underPressure: this.underPressure, pressureEpisodes: this.pressureEpisodes };
  }

  alerts(): CoreAlert[] {
    if (!this.underPressure) return [];
    const { budgetBytes, reliefFraction } = this.options;
    return [
      {
        key: MEMORY_PRESSURE_ALERT_KEY,
        severity: 'warn',
        message: `The core's memory is near its budget (${gib(this.rssBytes ?? 0)} of ${gib(budgetBytes)} GiB resident): learning is paused and caches were shrunk`,
        hint: `Driving, recording and memory go on, nothing is lost. Learning resumes below ${gib(budgetBytes * reliefFraction)} GiB; a larger budget: reins start --memory-budget-mib.`,
      },
    ];
  }

  /** Stops sampling; waits for listeners still acting on a change. */
  async stop(): Promise<void> {
    this.stopSampling?.();
    this.stopSampling = undefined;
    await this.sampling?.catch(() => undefined);
  }

  private async read(): Promise<void> {
    const rssBytes = process.memoryUsage.rss();
    this.rssBytes = rssBytes;
    const { budgetBytes, pressureFraction, reliefFraction } = this.options;
    const next = pressureAfter(this.underPressure, rssBytes, { pressureBytes: budgetBytes * pressureFraction, reliefBytes: budgetBytes * reliefFraction });
    if (next === this.underPressure) return;
    this.underPressure = next;
    if (next) this.pressureEpisodes++;
    for (const listener of this.listeners) await listener(next, rssBytes);
  }
}

/** Bytes from `--memory-budget-mib`. */
export function memoryBudgetBytes(mib: number): number {
  return mib * MIB;
}

function gib(bytes: number): string {
  return (bytes / (1024 * MIB)).toFixed(2);
}
