import type { CoreAlert } from '../core/alert.ts';
// A link's keyed alerts, for every transport. Raising a key again replaces its alert. An event that
// can recur with every frame or message (a burst of bad CRCs, a topic sending malformed images at
// 30 Hz) is counted into one alert whose count is announced at most once per interval, so the
// operator sees one alert with a count instead of a flood; once it has been quiet long enough it
// clears itself. list() always shows the latest count; only the announcements are rate-limited.

/** An event that is counted: its key, and its alert for a given count. */
export interface CountedAlertSpec {
  key: string;
  describe: (count: number) => CoreAlert;
}

export interface AlertBoardOptions {
  /** A counted alert's new count is announced at most this often. */
  minUpdateIntervalMs: number;
  /** A counted alert with no new occurrence for this long is cleared (by sweep() or clearIfQuiet()). */
  clearAfterQuietMs: number;
  nowMs: () => number;
}

export const DEFAULT_ALERT_BOARD_OPTIONS: Readonly<AlertBoardOptions> = Object.freeze({
  minUpdateIntervalMs: 1000,
  clearAfterQuietMs: 10_000,
  nowMs: () => Date.now(),
});

interface CountedAlert {
  count: number;
  lastMs: number;
  lastAnnouncedMs: number;
  /** Counted since the last announcement. */
  unannounced: boolean;
  describe: (count: number) => CoreAlert;
}

/** The alert as it is, then with "(N times)" once it has recurred: for problems with one wording. */
export function repeatingAlert(alert: CoreAlert): CountedAlertSpec {
  return { key: alert.key, describe: (count) => (count === 1 ? alert : { ...alert, message: `${alert.message} (${count} times)` }) };
}

export class AlertBoard {
  private readonly options: AlertBoardOptions;
  private readonly current = new Map<string, CoreAlert>();
  private readonly counted = new Map<string, CountedAlert>();

  constructor(
    private readonly onChange: (alerts: readonly CoreAlert[]) => void,
    options: Partial<AlertBoardOptions> = {},
  ) {
    this.options = { ...DEFAULT_ALERT_BOARD_OPTIONS, ...options };
  }

  list(): readonly CoreAlert[] {
    return [...this.current.values()];
  }

  has(key: string): boolean {
    return this.current.has(key);
  }

  /** Raises or replaces a standing alert (a condition, not an event count); announced only if it changed. */
  raise(alert: CoreAlert): void {
    const before = this.current.get(alert.key);
    if (before && before.message === alert.message && before.severity === alert.severity && before.hint === alert.hint) return;
    this.current.set(alert.key, alert);
    this.announce();
  }

  clear(key: string): void {
    this.counted.delete(key);
    if (this.current.delete(key)) this.announce();
  }

  /** Counts occurrences of an event; the alert shows the count and is announced at a limited rate. */
  count({ key, describe }: CountedAlertSpec, occurrences = 1): void {
    const nowMs = this.options.nowMs();
    const entry = this.counted.get(key) ?? { count: 0, lastMs: nowMs, lastAnnouncedMs: -Infinity, unannounced: false, describe };
    entry.count += occurrences;
    entry.lastMs = nowMs;
    entry.describe = describe;
    entry.unannounced = true;
    this.counted.set(key, entry);
    this.current.set(key, { ...describe(entry.count), key });
    if (nowMs - entry.lastAnnouncedMs >= this.options.minUpdateIntervalMs) this.announceCount(entry, nowMs);
  }

  /** Clears a counted alert once its event has been quiet for clearAfterQuietMs (e.g. on a good message). */
  clearIfQuiet(key: string): void {
    const entry = this.counted.get(key);
    if (entry !== undefined && this.options.nowMs() - entry.lastMs >= this.options.clearAfterQuietMs) this.clear(key);
  }

  /** Announces held-back counts and clears quiet alerts; for a link with a maintenance timer. */
  sweep(): void {
    const nowMs = this.options.nowMs();
    for (const [key, entry] of this.counted) {
      if (nowMs - entry.lastMs >= this.options.clearAfterQuietMs) {
        this.clear(key);
      } else if (entry.unannounced && nowMs - entry.lastAnnouncedMs >= this.options.minUpdateIntervalMs) {
        this.announceCount(entry, nowMs);
      }
    }
  }

  private announceCount(entry: CountedAlert, nowMs: number): void {
    entry.unannounced = false;
    entry.lastAnnouncedMs = nowMs;
    this.announce();
  }

  private announce(): void {
    this.onChange(this.list());
  }
}
