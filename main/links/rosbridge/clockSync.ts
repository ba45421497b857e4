// Feeds the clock-offset estimator with round trips to the robot's `/rosapi/get_time`: a few at once
// when a connection opens (so the first latency figures already mean something), then one per
// period (clocks drift; NTP or chrony may step either one).
import type { ClockOffsetEstimator } from './clockOffset.ts';
import type { LinkClock, TimerHandle } from './linkClock.ts';
import { ServiceCallError } from './serviceCallError.ts';

export interface ClockSyncTimings {
  periodMs: number;
  /** Round trips made back to back when a connection opens. */
  burst: number;
}

export class ClockSync {
  private timer: TimerHandle | undefined;
  private running = false;

  constructor(
    private readonly estimator: ClockOffsetEstimator,
    /** Asks the robot for its time, in ms on its own clock. */
    private readonly askRobotMs: () => Promise<number>,
    private readonly clock: LinkClock,
    private readonly timings: Readonly<ClockSyncTimings>,
    /** The robot cannot be asked (no rosapi, or no answer): the estimate falls back to stamps. */
    private readonly onUnavailable: (problem: string) => void,
  ) {}

  start(): void {
    this.running = true;
    void this.run(this.timings.burst);
  }

  stop(): void {
    this.running = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async run(samples: number): Promise<void> {
    for (let i = 0; i < samples && this.running; i++) {
      if (!(await this.sample())) return;
    }
    if (this.running) this.timer = this.clock.setTimeout(() => void this.run(1), this.timings.periodMs);
  }

  /** One round trip; false when syncing should stop for this connection. */
  private async sample(): Promise<boolean> {
    const sentMs = this.clock.epochMs();
    try {
      const robotMs = await this.askRobotMs();
      this.estimator.addRoundTrip({ sentMs, robotMs, receivedMs: this.clock.epochMs() });
      return true;
    } catch (error) {
      if (!this.running) return false;
      if (error instanceof ServiceCallError && (error.failure === 'not-connected' || error.failure === 'disconnected')) return false;
      this.onUnavailable(error instanceof Error ? error.message : String(error));
      // A slow answer may come next time; a missing service or a malformed answer will not.
      return error instanceof ServiceCallError && error.failure === 'timeout';
    }
  }
}
