// The soak's operator: the scripted operator of the learning bench (it knows the true map and pose,
// reacts late, has an unsteady hand) sitting at the cockpit. It sends what the UI sends, through the
// same CockpitService: a heartbeat every 100 ms, autonomy on, and — while it watches the policy —
// a takeover when a collision is imminent or progress stalls, driving a while, then a hand-back.
// It acts on the core's clock: the wall clock in real time, the simulated one in the accelerated soak.
import type { Request } from '../../core/contract.ts';
import type { DriveCommand } from '../../core/messages.ts';
import type { CoreSession } from '../../session/coreSession.ts';
import type { ControlLoop } from '../../session/loopWiring.ts';
import { wallSchedule, type Schedule } from '../../core/runtime/schedule.ts';
import type { Arena } from '../../sim/arena.ts';
import { ScriptedOperator } from '../../sim/scriptedOperator.ts';
import type { GroundTruth } from '../../sim/simRobot.ts';

/** The UI's heartbeat period (DESIGN §2 step 7); the operator also looks and acts this often. */
export const OPERATOR_PERIOD_MS = 100;
const STILL: DriveCommand = { linearMps: 0, angularRadps: 0 };

export interface OperatorCounts {
  takeovers: number;
  handBacks: number;
  driveRequests: number;
  /** Requests the cockpit refused (none expected), with the last reason. */
  refused: number;
  lastRefusal: string | undefined;
}

export class SoakOperator {
  readonly counts: OperatorCounts = { takeovers: 0, handBacks: 0, driveRequests: 0, refused: 0, lastRefusal: undefined };
  private readonly scripted: ScriptedOperator;
  private stopTimer: (() => void) | undefined;
  private heartbeating = true;
  private supervising = true;
  private holding = false;
  private lastHeartbeatMs = 0;

  constructor(
    private readonly cockpit: Pick<CoreSession['cockpit'], 'handle'>,
    private readonly loop: ControlLoop,
    /** What it sees of the world: the sim's ground truth feed, or the lockstep robot's own. */
    private readonly truth: { latest(): GroundTruth | undefined },
    arena: Arena,
    seed: number,
    private readonly schedule: Schedule = wallSchedule(),
  ) {
    this.scripted = new ScriptedOperator(arena, { seed });
  }

  /** Heartbeat, autonomy on, and the watching begins. */
  start(): void {
    this.heartbeat();
    this.request({ type: 'set-autonomy', enabled: true });
    this.stopTimer = this.schedule.every(OPERATOR_PERIOD_MS, () => this.step());
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  /** Ms of the last heartbeat sent, on the schedule's clock. */
  get lastHeartbeatAtMs(): number {
    return this.lastHeartbeatMs;
  }

  /** Stops watching the policy (and releases nothing): the stop checks take the controls. */
  stopSupervising(): void {
    this.supervising = false;
  }

  /** The cockpit goes silent: no more heartbeats (a closed laptop, a lost network). */
  stopHeartbeats(): void {
    this.heartbeating = false;
  }

  resumeHeartbeats(): void {
    this.heartbeating = true;
    this.heartbeat();
  }

  takeOver(): void {
    if (this.holding) return;
    this.request({ type: 'take-over' });
    this.holding = true;
    this.counts.takeovers++;
  }

  drive(command: DriveCommand): void {
    this.request({ type: 'drive', linearMps: command.linearMps, angularRadps: command.angularRadps });
    this.counts.driveRequests++;
  }

  handBack(): void {
    if (!this.holding) return;
    this.request({ type: 'hand-back' });
    this.holding = false;
    this.counts.handBacks++;
  }

  setAutonomy(enabled: boolean): void {
    this.request({ type: 'set-autonomy', enabled });
  }

  private step(): void {
    if (this.heartbeating) this.heartbeat();
    if (!this.supervising) return;
    const truth = this.truth.latest();
    if (truth === undefined) return;
    const proposed = this.loop.driver() === 'policy' ? (this.loop.lastSent()?.command ?? STILL) : STILL;
    const decision = this.scripted.supervise(truth, proposed);
    if (decision.driver === 'operator') {
      this.takeOver();
      this.drive(decision.command);
    } else {
      this.handBack();
    }
  }

  private heartbeat(): void {
    this.lastHeartbeatMs = this.schedule.now();
    this.request({ type: 'heartbeat', sentAtMs: this.lastHeartbeatMs });
  }

  private request(request: Request): void {
    const result = this.cockpit.handle(request);
    if (result.ok) return;
    this.counts.refused++;
    this.counts.lastRefusal = `${request.type}: ${result.error.message}`;
  }
}
