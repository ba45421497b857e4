// The link's keyed alerts. Raising a key again replaces its alert; a problem that repeats with every
// message (a topic sending malformed images at 30 Hz) is counted and re-announced at most once per
// interval, so the operator sees one alert with a count instead of a flood of events.
import type { LinkAlert } from '../link.ts';

interface RepeatCount {
  count: number;
  lastAnnouncedMs: number;
  lastSeenMs: number;
}

export class AlertBoard {
  private readonly current = new Map<string, LinkAlert>();
  private readonly repeats = new Map<string, RepeatCount>();

  constructor(
    private readonly announce: (alerts: readonly LinkAlert[]) => void,
    private readonly nowMs: () => number,
    private readonly repeatIntervalMs: number,
  ) {}

  all(): readonly LinkAlert[] {
    return [...this.current.values()];
  }

  has(key: string): boolean {
    return this.current.has(key);
  }

  /** Raises or replaces an alert; announces it only when something about it changed. */
  raise(alert: LinkAlert): void {
    const before = this.current.get(alert.key);
    this.current.set(alert.key, alert);
    if (before?.message !== alert.message || before.severity !== alert.severity || before.hint !== alert.hint) this.emit();
  }

  /** For a problem that may recur per message: counts it and announces at most once per interval. */
  raiseRepeating(alert: LinkAlert): void {
    const nowMs = this.nowMs();
    const repeat = this.repeats.get(alert.key);
    if (repeat === undefined) {
      this.repeats.set(alert.key, { count: 1, lastAnnouncedMs: nowMs, lastSeenMs: nowMs });
      this.current.set(alert.key, alert);
      this.emit();
      return;
    }
    repeat.count++;
    repeat.lastSeenMs = nowMs;
    this.current.set(alert.key, { ...alert, message: `${alert.message} (${repeat.count} times)` });
    if (nowMs - repeat.lastAnnouncedMs >= this.repeatIntervalMs) {
      repeat.lastAnnouncedMs = nowMs;
      this.emit();
    }
  }

  clear(key: string): void {
    this.repeats.delete(key);
    if (this.current.delete(key)) this.emit();
  }

  /** Clears a repeating alert once its problem has been quiet for a full interval. */
  clearIfQuiet(key: string): void {
    const repeat = this.repeats.get(key);
    if (repeat !== undefined && this.nowMs() - repeat.lastSeenMs >= this.repeatIntervalMs) this.clear(key);
  }

  private emit(): void {
    this.announce(this.all());
  }
}
