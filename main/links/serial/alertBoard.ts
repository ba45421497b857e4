// Keyed alerts for a link, rate-limited: a burst of bad frames becomes one alert whose count
// updates at most once a second, and an alert about something that stopped happening clears
// itself after a quiet spell. Raising a key again replaces its alert.
import type { LinkAlert } from '../link.ts';

/** An event that is counted: its key, and its alert for a given count. */
export interface CountedAlertSpec {
  key: string;
  describe: (count: number) => LinkAlert;
}

export interface AlertBoardOptions {
  minUpdateIntervalMs: number;
  /** A counted alert with no new occurrence for this long is cleared. */
  clearAfterQuietMs: number;
  nowMs: () => number;
}

interface CountedAlert {
  count: number;
  firstMs: number;
  lastMs: number;
  lastEmittedMs: number;
  dirty: boolean;
  describe: (count: number) => LinkAlert;
}

export class AlertBoard {
  private readonly options: AlertBoardOptions;
  private readonly current = new Map<string, LinkAlert>();
  private readonly counted = new Map<string, CountedAlert>();

  constructor(
    private readonly onChange: (alerts: readonly LinkAlert[]) => void,
    options: Partial<AlertBoardOptions> = {},
  ) {
    this.options = { minUpdateIntervalMs: 1000, clearAfterQuietMs: 10_000, nowMs: () => Date.now(), ...options };
  }

  list(): readonly LinkAlert[] {
    return [...this.current.values()];
  }

  /** Raises or replaces a standing alert (a condition, not an event count). */
  raise(alert: LinkAlert): void {
    const before = this.current.get(alert.key);
    if (before && before.message === alert.message && before.severity === alert.severity && before.hint === alert.hint) return;
    this.current.set(alert.key, alert);
    this.onChange(this.list());
  }

  clear(key: string): void {
    this.counted.delete(key);
    if (this.current.delete(key)) this.onChange(this.list());
  }

  /** Counts occurrences of an event; the alert shows the count and updates at a limited rate. */
  count({ key, describe }: CountedAlertSpec, occurrences = 1): void {
    const nowMs = this.options.nowMs();
    const entry = this.counted.get(key) ?? { count: 0, firstMs: nowMs, lastMs: nowMs, lastEmittedMs: -Infinity, dirty: false, describe };
    entry.count += occurrences;
    entry.lastMs = nowMs;
    entry.describe = describe;
    entry.dirty = true;
    this.counted.set(key, entry);
    if (nowMs - entry.lastEmittedMs >= this.options.minUpdateIntervalMs) this.emitCounted(key, entry, nowMs);
  }

  /** Publishes held-back counts and clears quiet alerts; the link calls this on its maintenance timer. */
  sweep(): void {
    const nowMs = this.options.nowMs();
    for (const [key, entry] of this.counted) {
      if (nowMs - entry.lastMs >= this.options.clearAfterQuietMs) {
        this.clear(key);
      } else if (entry.dirty && nowMs - entry.lastEmittedMs >= this.options.minUpdateIntervalMs) {
        this.emitCounted(key, entry, nowMs);
      }
    }
  }

  private emitCounted(key: string, entry: CountedAlert, nowMs: number): void {
    entry.dirty = false;
    entry.lastEmittedMs = nowMs;
    this.current.set(key, { ...entry.describe(entry.count), key });
    this.onChange(this.list());
  }
}
