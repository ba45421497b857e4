// The control tick: synchroniser → perception → world model → policy → arbiter → safety → link. Operator input and
// e-stop do not wait for the tick: they pass the arbiter and the safety filter the moment they arrive,
// also while a tick is waiting for its encoders.
import type { Policy } from '../core/policy.ts';
import type { Driver, SentCommand, TickEpisode, TickReport } from '../core/tickReport.ts';
import type { ObservationFrame } from '../core/frame.ts';
import type { CoreAlert } from '../core/alert.ts';
import type { Link, TopicMap } from '../core/link.ts';
import { ZERO_DRIVE, type DriveCommand } from '../core/messages.ts';
import type { Embedding, Perception, PerceptionStatus } from '../core/perception.ts';
import { CommandWatchdog, type WatchdogLapse } from '../safety/commandWatchdog.ts';
import type { SafetyFilter } from '../safety/safetyFilter.ts';
import type { Belief, BeliefFilter } from '../core/belief.ts';
import { Arbiter } from './arbiter.ts';
import { CommandPath } from './commandPath.ts';
import { LatencyWindow } from '../core/util/latencyWindow.ts';
import { Synchroniser } from './synchroniser.ts';

export interface ControlLoopParts {
  link: Link;
  topics: TopicMap;
  perception: Perception;
  policy: Policy;
  safety: SafetyFilter;
  /** The world model's filter; absent, ticks carry no latent state or surprise. */
  worldModel?: BeliefFilter;
}

export interface ControlLoopOptions {
  rateHz: number;
  watchdogTimeoutMs: number;
  /** Wall clock in ms; injectable so tests and lockstep benches drive time themselves. */
  clock: () => number;
}

export const MAX_CONTROL_RATE_HZ = 30;
const WATCHDOG_CHECK_PERIOD_MS = 10;

export class ControlLoop {
  readonly arbiter = new Arbiter();
  readonly synchroniser: Synchroniser;
  private readonly path: CommandPath;
  private readonly watchdog: CommandWatchdog;
  private readonly latency = new LatencyWindow();
  private readonly coreAlerts = new Map<string, CoreAlert>();
  private readonly tickListeners = new Set<(report: Readonly<TickReport>) => void>();
  private readonly alertSources = new Set<() => CoreAlert[]>();
  private readonly options: ControlLoopOptions;
  private clippedCount = 0;
  private skippedCount = 0;
  private lateCount = 0;
  /** The lateness of the tick the timer is about to start, handed to tick() as it begins. */
  private timerLatenessMs: number | undefined;
  private tickTimer: NodeJS.Timeout | undefined;
  private watchdogTimer: NodeJS.Timeout | undefined;
  /** The timer's tick while it runs: the next one is skipped, never started beside it. */
  private tickInFlight: Promise<void> | undefined;
  private closed = false;
  /** The driving policy; swapped between ticks by `setPolicy` (a new version from the learner). */
  private policy: Policy;
  /** The episode the next tick belongs to, and its step there. */
  private episode: TickEpisode = { index: 0, step: 0 };

  constructor(
    private readonly parts: ControlLoopParts,
    options: Partial<ControlLoopOptions> = {},
  ) {
    this.options = { rateHz: 10, watchdogTimeoutMs: 300, clock: Date.now, ...options };
    this.policy = parts.policy;
    if (!(this.options.rateHz > 0 && this.options.rateHz <= MAX_CONTROL_RATE_HZ)) {
      throw new RangeError(`control rate must be in (0, ${MAX_CONTROL_RATE_HZ}] Hz, got ${this.options.rateHz}`);
    }
    this.synchroniser = new Synchroniser(parts.link, parts.topics);
    this.synchroniser.onKindMismatch((role, topic, kind) =>
      this.raise({
        key: `topic-kind-${role}`,
        severity: 'warn',
        message: `${topic} delivers ${kind}, not the ${role} stream`,
        hint: 'Check the topic map: this topic is wired to the wrong role.',
      }),
    );
    this.path = new CommandPath(parts.link, parts.topics.command, parts.safety);
    this.path.onSent((sent) => {
      if (sent.clipped) this.clippedCount++;
    });
    this.watchdog = new CommandWatchdog({
      timeoutMs: this.options.watchdogTimeoutMs,
      onLapse: (lapse, silentMs) => this.onWatchdogLapse(lapse, silentMs),
      onRecover: (lapse) => this.coreAlerts.delete(`watchdog-${lapse}`),
    });
  }

  get rateHz(): number {
    return this.options.rateHz;
  }

  get periodMs(): number {
    return 1000 / this.options.rateHz;
  }

  get policyVersion(): string {
    return this.policy.version;
  }

  /** Swaps the driving policy between ticks: the next policy action comes from it. Safety still applies to everything it says. */
  setPolicy(policy: Policy): void {
    this.policy = policy;
  }

  /** The operator ended the episode (the robot was reset, or put back): the next tick starts the next one at step 0. */
  endEpisode(): TickEpisode {
    const ended = { ...this.episode };
    this.episode = { index: this.episode.index + 1, step: 0 };
    return ended;
  }

  /** The episode the next tick belongs to. */
  currentEpisode(): TickEpisode {
    return { ...this.episode };
  }

  lastSent(): SentCommand | undefined {
    return this.path.lastSent();
  }

  onSent(listener: (sent: SentCommand) => void): () => void {
    return this.path.onSent(listener);
  }

  /** How many commands the safety filter has changed since the loop started. */
  commandsClipped(): number {
    return this.clippedCount;
  }

  tickLatency() {
    return this.latency.percentiles();
  }

  /** Ticks the timer skipped since the loop started: one still running, or the loop stalled past them. */
  ticksSkipped(): number {
    return this.skippedCount;
  }

  /** Ticks the timer started more than one period after they were due (a busy event loop held them up). */
  ticksStartedLate(): number {
    return this.lateCount;
  }

  perceptionStatus(): PerceptionStatus {
    return this.parts.perception.status();
  }

  alerts(): CoreAlert[] {
    return [
      ...this.parts.link.alerts(),
      ...this.coreAlerts.values(),
      ...this.parts.perception.alerts(),
      ...[...this.alertSources].flatMap((source) => source()),
    ];
  }

  driver(nowMs = this.options.clock()): Driver {
    return this.arbiter.driver(nowMs, this.watchdog.operatorPresent(nowMs));
  }

  // ── Operator input: acted on at once ──────────────────────────────────────────────────────────

  operatorDrive(command: DriveCommand, nowMs = this.options.clock()): SentCommand | undefined {
    this.arbiter.operatorDrive(command, nowMs);
    return this.act(nowMs, undefined);
  }

  estop(nowMs = this.options.clock()): SentCommand | undefined {
    this.arbiter.estop();
    return this.act(nowMs, undefined);
  }

  releaseEStop(nowMs = this.options.clock()): void {
    this.arbiter.releaseEStop();
    this.act(nowMs, undefined);
  }

  takeOver(nowMs = this.options.clock()): void {
    this.arbiter.takeOver();
    this.act(nowMs, undefined);
  }

  handBack(nowMs = this.options.clock()): void {
    this.arbiter.handBack();
    this.act(nowMs, undefined);
  }

  setAutonomy(enabled: boolean, nowMs = this.options.clock()): void {
    this.arbiter.setAutonomy(enabled);
    this.act(nowMs, undefined);
  }

  heartbeat(nowMs = this.options.clock()): void {
    this.watchdog.heartbeat(nowMs);
  }

  setSpeedLimits(maxLinearMps: number, maxAngularRadps: number) {
    return this.parts.safety.setSpeedLimits(maxLinearMps, maxAngularRadps);
  }

  speedLimits() {
    return this.parts.safety.speedLimits();
  }

  // ── The tick ──────────────────────────────────────────────────────────────────────────────────

  async tick(nowMs = this.options.clock()): Promise<Readonly<TickReport>> {
    if (this.closed) throw new Error('the control loop is closed');
    const startedMs = performance.now();
    const startLatenessMs = this.timerLatenessMs;
    this.timerLatenessMs = undefined;
    this.watchdog.loopTicked(nowMs);
    const frame = this.synchroniser.frame(nowMs);
    const last = this.path.lastSent()?.command ?? { linearMps: 0, angularRadps: 0 };
    const embedding = await this.parts.perception.encode(frame, last);
    const belief = this.filterBelief(last, embedding);
    // Read after the encoders: an e-stop or a takeover that arrived meanwhile has already acted and wins.
    const driver = this.driver(nowMs);
    const policy = this.policy;
    let sent: SentCommand | undefined;
    if (this.closed) {
      // Closed while encoding: the robot got its last zero; the policy must not speak after it.
    } else if (driver === 'policy') {
      sent = this.act(nowMs, policy.act({ embedding, frame, belief }));
    } else if (driver !== 'operator' || this.operatorNeedsRepeat(nowMs)) {
      sent = this.act(nowMs, undefined);
    }
    const durationMs = performance.now() - startedMs;
    this.latency.add(durationMs);
    const report: Readonly<TickReport> = Object.freeze({
      frame,
      embedding,
      belief,
      driver,
      sent,
      durationMs,
      ...(startLatenessMs === undefined ? {} : { startLatenessMs }),
      policyVersion: policy.version,
      autonomous: this.arbiter.isAutonomous(),
      commandInEffect: this.path.lastSent(),
      worldModelVersion: belief?.version,
      episode: Object.freeze({ ...this.episode }),
    });
    this.episode.step++;
    // Listeners (the memory's writer) only enqueue; none may hold up or break the tick. Each gets the
    // same frozen report and reads the tick's facts from it, never the loop's state, so their order cannot matter.
    for (const listener of this.tickListeners) {
      try {
        listener(report);
      } catch (error) {
        this.raise({
          key: 'tick-listener',
          severity: 'warn',
          message: `A tick listener failed: ${(error as Error).message}`,
          hint: 'The robot is unaffected; this tick may be missing from memory.',
        });
      }
    }
    return report;
  }

  /** The world model's step; a failure is the operator's to know about, never the tick's end. */
  private filterBelief(previousCommand: DriveCommand, embedding: Embedding): Belief | undefined {
    const model = this.parts.worldModel;
    if (model === undefined) return undefined;
    try {
      const belief = model.step(previousCommand, embedding.values);
      this.coreAlerts.delete('world-model');
      return belief;
    } catch (error) {
      this.raise({
        key: 'world-model',
        severity: 'warn',
        message: `The world model failed this tick: ${(error as Error).message}`,
        hint: 'Driving is unaffected; surprise and the latent state are missing until it recovers.',
      });
      return undefined;
    }
  }

  /** Adds the alerts of a part beside the loop (the recorder, the memory) to what the operator sees. */
  addAlertSource(source: () => CoreAlert[]): () => void {
    this.alertSources.add(source);
    return () => this.alertSources.delete(source);
  }

  /** Called after every tick with its report; returns a function that stops the calls. */
  onTick(listener: (report: Readonly<TickReport>) => void): () => void {
    this.tickListeners.add(listener);
    return () => this.tickListeners.delete(listener);
  }

  /**
   * Runs the tick on the wall clock at the control rate, and the watchdog beside it. A tick never
   * starts while the last one runs: it is skipped and counted, as are ticks a stall went past.
   */
  start(): void {
    if (this.tickTimer || this.closed) return;
    const periodMs = this.periodMs;
    let dueMs = this.options.clock() + periodMs;
    const schedule = () => {
      this.tickTimer = setTimeout(
        () => {
          const latenessMs = Math.max(0, this.options.clock() - dueMs);
          if (this.tickInFlight) this.skippedCount++;
          else {
            if (latenessMs > periodMs) this.lateCount++;
            this.timerLatenessMs = latenessMs;
            this.tickInFlight = this.timedTick().finally(() => (this.tickInFlight = undefined));
          }
          const nowMs = this.options.clock();
          dueMs += periodMs;
          // After a stall, skip the missed ticks rather than running them back to back.
          if (dueMs < nowMs) {
            this.skippedCount += Math.floor((nowMs - dueMs) / periodMs) + 1;
            dueMs = nowMs + periodMs;
          }
          schedule();
        },
        Math.max(0, dueMs - this.options.clock()),
      );
    };
    schedule();
    this.watchdog.loopTicked(this.options.clock());
    // Checked often enough that a lapse is acted on within a few per cent of the timeout.
    this.watchdogTimer = setInterval(() => this.watchdog.check(this.options.clock()), Math.min(WATCHDOG_CHECK_PERIOD_MS, this.options.watchdogTimeoutMs / 10));
  }

  stop(): void {
    clearTimeout(this.tickTimer);
    clearInterval(this.watchdogTimer);
    this.tickTimer = undefined;
    this.watchdogTimer = undefined;
  }

  /**
   * Stops the loop and sends the robot one last zero if anyone was driving, at once (before the
   * first await); then waits for a tick still encoding and releases the encoders.
   */
  async close(nowMs = this.options.clock()): Promise<void> {
    if (this.closed) return;
    this.stop();
    this.closed = true;
    this.path.idle(nowMs);
    this.synchroniser.close();
    await this.tickInFlight;
    await this.parts.perception.close();
  }

  /** Checks the watchdog now (the timer does this on its own once started). */
  checkWatchdog(nowMs = this.options.clock()): void {
    this.watchdog.check(nowMs);
  }

  /** The timer's tick. A failed tick holds the policy at zero and tells the operator; the next tick tries again. */
  private async timedTick(): Promise<void> {
    try {
      await this.tick();
      this.coreAlerts.delete('tick-failed');
    } catch (error) {
      const nowMs = this.options.clock();
      if (this.driver(nowMs) === 'policy') this.act(nowMs, ZERO_DRIVE);
      this.raise({
        key: 'tick-failed',
        severity: 'error',
        message: `A control tick failed: ${(error as Error).message}`,
        hint: 'The policy is held at zero while ticks fail; you can still drive. Restart the core if this persists.',
      });
    }
  }

  private operatorNeedsRepeat(nowMs: number): boolean {
    const last = this.path.lastSent();
    return last === undefined || last.driver !== 'operator' || nowMs - last.atMs >= this.periodMs * 0.5;
  }

  private act(nowMs: number, policyCommand: DriveCommand | undefined): SentCommand | undefined {
    switch (this.driver(nowMs)) {
      case 'estopped':
        return this.path.holdStopped(nowMs);
      case 'operator':
        return this.path.drive('operator', this.arbiter.operatorCommandAt(nowMs), nowMs);
      case 'policy':
        // The policy speaks only at the tick; between ticks its last command stands.
        return policyCommand ? this.path.drive('policy', policyCommand, nowMs) : undefined;
      case 'idle':
        return this.path.idle(nowMs);
    }
  }

  private onWatchdogLapse(lapse: WatchdogLapse, silentMs: number): void {
    const nowMs = this.options.clock();
    if (lapse === 'heartbeat') {
      // Nobody is watching: the policy must not keep driving, and it stays off when they return.
      this.arbiter.setAutonomy(false);
      this.raise({
        key: 'watchdog-heartbeat',
        severity: 'error',
        message: `Operator heartbeat lost for ${Math.round(silentMs)} ms: the robot was stopped`,
        hint: 'Reconnect the cockpit; autonomy stays off until you turn it on again.',
      });
    } else {
      this.raise({
        key: 'watchdog-loop',
        severity: 'error',
        message: `Control loop stalled for ${Math.round(silentMs)} ms: the robot was stopped`,
        hint: 'The machine is overloaded; close other programs or lower the control rate.',
      });
    }
    this.path.idle(nowMs);
  }

  private raise(alert: CoreAlert): void {
    this.coreAlerts.set(alert.key, alert);
  }
}
