// Runs the simulation against the wall clock for the rosbridge server, after the idea of
// ../realtime.ts: a timer advances simulated time by the real time that passed, in whole steps. After
// a stall (a debugger, a swapped-out laptop) it skips ahead instead of racing to catch up, and moves
// the clock that maps simulated time to the wall clock, so stamps stay on the wall clock.

export interface RealtimeStepperOptions {
  /** Timer period, and the simulated time of one step. */
  stepSecs: number;
  /** More lag than this is dropped rather than simulated, so a long stall cannot snowball. */
  maxLagSecs: number;
  /** Monotonic clock in ms; injectable so tests can play the passing of time. */
  nowMs: () => number;
}

export const DEFAULT_REALTIME_OPTIONS: Readonly<RealtimeStepperOptions> = Object.freeze({
  stepSecs: 0.01,
  maxLagSecs: 0.25,
  nowMs: () => performance.now(),
});

export interface RealtimeEvents {
  /** Runs one step of stepSecs of simulated time. */
  step(stepSecs: number): void;
  /** The simulation fell this far behind real time and skipped it. */
  skipped(skippedSecs: number): void;
  /** A step threw: stepping has stopped. */
  failed(error: unknown): void;
}

export class RealtimeStepper {
  private readonly options: RealtimeStepperOptions;
  /** Wall-clock ms of simulated time 0. */
  private epochMs: number;
  private timer: NodeJS.Timeout | undefined;
  private lastMs = 0;
  private owedSecs = 0;

  constructor(
    private readonly events: RealtimeEvents,
    simTimeSecs: number,
    options: Partial<RealtimeStepperOptions> = {},
    epochWallMs: number = Date.now(),
  ) {
    this.options = { ...DEFAULT_REALTIME_OPTIONS, ...options };
    const { stepSecs, maxLagSecs } = this.options;
    if (!(stepSecs > 0) || !(maxLagSecs >= stepSecs)) {
      throw new RangeError(`realtime needs stepSecs > 0 and maxLagSecs ≥ stepSecs, got ${stepSecs} and ${maxLagSecs}`);
    }
    this.epochMs = epochWallMs - simTimeSecs * 1000;
  }

  /** A simulated time on the wall clock, in ms since the epoch. */
  wallMsAt(simTimeSecs: number): number {
    return this.epochMs + simTimeSecs * 1000;
  }

  /**
   * The robot's clock now (what `/rosapi/get_time` answers), given the simulated time stepped so
   * far: the steps lag the wall clock by up to a step, and longer while the process is busy, so the
   * time owed since is added. A clock that read only the last step would bias the cockpit's
   * clock-offset estimate by that lag, which its round-trip uncertainty does not cover.
   */
  clockMsNow(simTimeSecs: number): number {
    if (this.timer === undefined) return this.wallMsAt(simTimeSecs);
    return this.wallMsAt(simTimeSecs) + this.owedSecs * 1000 + (this.options.nowMs() - this.lastMs);
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.lastMs = this.options.nowMs();
    this.owedSecs = 0;
    this.timer = setInterval(() => this.onTimer(), this.options.stepSecs * 1000);
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private onTimer(): void {
    const { stepSecs, maxLagSecs, nowMs } = this.options;
    const now = nowMs();
    this.owedSecs += (now - this.lastMs) / 1000;
    this.lastMs = now;
    if (this.owedSecs > maxLagSecs) {
      const skippedSecs = this.owedSecs - stepSecs;
      this.epochMs += skippedSecs * 1000;
      this.owedSecs = stepSecs;
      this.events.skipped(skippedSecs);
    }
    const steps = Math.floor(this.owedSecs / stepSecs + 1e-9);
    this.owedSecs -= steps * stepSecs;
    try {
      for (let i = 0; i < steps; i++) this.events.step(stepSecs);
    } catch (error) {
      // A timer has no caller to pass this to: stop, and tell whoever runs the simulation.
      this.stop();
      this.events.failed(error);
    }
  }
}
