// Stops the robot when the operator's heartbeat or the control loop goes quiet. Both are checked on
// a timer of their own, so a stalled tick cannot hide a lost operator.

export type WatchdogLapse = 'heartbeat' | 'loop';

export interface CommandWatchdogOptions {
  timeoutMs: number;
  /** Called once when a lapse starts; not again until that signal has recovered and lapsed anew. */
  onLapse: (lapse: WatchdogLapse, silentMs: number) => void;
  onRecover: (lapse: WatchdogLapse) => void;
}

export class CommandWatchdog {
  private lastHeartbeatMs: number | undefined;
  private lastLoopMs: number | undefined;
  private readonly lapsed = new Set<WatchdogLapse>();

  constructor(private readonly options: CommandWatchdogOptions) {}

  heartbeat(nowMs: number): void {
    this.lastHeartbeatMs = nowMs;
    this.recover('heartbeat');
  }

  loopTicked(nowMs: number): void {
    this.lastLoopMs = nowMs;
    this.recover('loop');
  }

  /** True while the operator's heartbeat is fresh: nothing may move the robot otherwise. */
  operatorPresent(nowMs: number): boolean {
    return this.lastHeartbeatMs !== undefined && nowMs - this.lastHeartbeatMs <= this.options.timeoutMs;
  }

  check(nowMs: number): void {
    this.checkOne('heartbeat', this.lastHeartbeatMs, nowMs);
    this.checkOne('loop', this.lastLoopMs, nowMs);
  }

  isLapsed(lapse: WatchdogLapse): boolean {
    return this.lapsed.has(lapse);
  }

  private checkOne(lapse: WatchdogLapse, lastMs: number | undefined, nowMs: number): void {
    // A signal that never started (no operator has connected yet) has nothing to lapse.
    if (lastMs === undefined || this.lapsed.has(lapse)) return;
    const silentMs = nowMs - lastMs;
    if (silentMs > this.options.timeoutMs) {
      this.lapsed.add(lapse);
      this.options.onLapse(lapse, silentMs);
    }
  }

  private recover(lapse: WatchdogLapse): void {
    if (this.lapsed.delete(lapse)) this.options.onRecover(lapse);
  }
}
