// A stand-in for the human operator in benchmarks: it knows the true map and the robot's true state
// and drives well (plans around obstacles, follows the plan, slows near things), but like a person
// it reacts late, its hand is not steady, and it sometimes answers a question wrongly.
//
// Call it once per control tick, either driving alone (drive) or watching a policy (supervise): it
// takes over when the policy is about to hit something or has stopped making progress, drives for a
// while, then hands back. It also answers preference questions about two segments (prefer).
//
// It drives every task: to the goal pillar (reach), through the passage to it (corridor, with a
// narrow berth there), and into the dock (to the point in front of the marker by its plan, then
// lined up and crept in by DockApproach, letting go of the stick once there).
import type { DriveCommand } from '../core/messages.ts';
import { clearanceM, type Arena, type Footprints } from './arena.ts';
import { timeToCollisionSecs } from './collisionForecast.ts';
import { DIFF_DRIVE_SPEC } from './diffDrive.ts';
import { DockApproach } from './dockApproach.ts';
import { NavigationField } from './navigationField.ts';
import { DEFAULT_PATH_FOLLOWER_OPTIONS, followPath, type PathFollowerOptions } from './pathFollower.ts';
import { deriveSeed, SeededRandom } from './random.ts';
import type { GroundTruth } from './simRobot.ts';

export interface ScriptedOperatorOptions {
  seed: number;
  /** Control ticks between the world changing and the operator acting on it. */
  reactionDelayTicks: number;
  /** Standard deviation of the Gaussian noise on each command the operator gives. */
  linearNoiseMps: number;
  angularNoiseRadps: number;
  /** Chance that a preference answer is the wrong one. */
  wrongAnswerRate: number;
  /** Take over when the policy's command would hit something within this long. */
  takeoverTimeToCollisionSecs: number;
  /** Take over when the task's progress has not grown for this long. */
  stallSecs: number;
  /** Once it has taken over, drive this long before handing back. */
  driveSecs: number;
  /** Its plan never brings the rim closer than this to a solid: a wider berth is a larger margin. */
  planMarginM: number;
}

export const DEFAULT_SCRIPTED_OPERATOR_OPTIONS: Readonly<ScriptedOperatorOptions> = Object.freeze({
  seed: 1,
  reactionDelayTicks: 2,
  linearNoiseMps: 0.03,
  angularNoiseRadps: 0.1,
  wrongAnswerRate: 0.1,
  takeoverTimeToCollisionSecs: 1,
  stallSecs: 4,
  driveSecs: 3,
  planMarginM: 0.05,
});

export type TakeoverReason = 'imminent-collision' | 'no-progress';

export interface OperatorDecision {
  driver: 'policy' | 'operator';
  /** What goes to the robot: the policy's proposal untouched, or the operator's own command. */
  command: DriveCommand;
  /** Why the operator holds control; undefined while the policy drives. */
  reason: TakeoverReason | undefined;
}

/** The truth about a stretch of driving, as a preference question needs it. */
export interface SegmentTruth {
  /** Task progress (0–1) at the segment's first and last tick. */
  startProgress: number;
  endProgress: number;
  collided: boolean;
}

/** Progress must grow by this much to count as progress (noise in the measure is smaller). */
const PROGRESS_STEP = 0.02;
const PLAN_CELL_M = 0.05;
/** The plan ends this close to the goal's surface (rim to surface), well inside reach's success gap. */
const PLAN_GOAL_GAP_M = 0.15;
/** The plan keeps this far (rim) from solids where it can, and never closer than the margin (planMarginM). */
const PLAN_PREFERRED_CLEARANCE_M = 0.5;
const PLAN_CLEARANCE_PENALTY = 4;
/** The operator brakes its own command when that would hit something sooner than this. */
const SELF_BRAKE_TIME_TO_COLLISION_SECS = 0.5;
const PATH_HORIZON_M = 2;
/** The corridor's pinch leaves 9 cm a side at least: there the plan's margin is at most this, and its cells finer. */
const CORRIDOR_PLAN_MARGIN_M = 0.03;
const CORRIDOR_PLAN_CELL_M = 0.025;
/** Through the corridor's chicane and round its mouths (near things) a shorter look ahead cuts the corners less. */
const CORRIDOR_FOLLOWER_OPTIONS: Readonly<PathFollowerOptions> = Object.freeze({ ...DEFAULT_PATH_FOLLOWER_OPTIONS, lookaheadM: 0.25 });
const CORRIDOR_NEAR_M = 0.35;
/** dock: the plan ends this close to the pre-dock point, and the speed falls toward it so that lining up starts slow. */
const PRE_DOCK_PLAN_WITHIN_M = 0.05;
const PRE_DOCK_SLOWING = { floorMps: 0.12, perMetreMps: 0.8 };

interface Observation {
  truth: GroundTruth;
  proposed: DriveCommand;
}

interface Plan {
  key: string;
  field: NavigationField;
  obstacles: Footprints;
  /** dock only: the line-up and creep in, which takes over from the plan near the pre-dock point. */
  dock: DockApproach | undefined;
}

export class ScriptedOperator {
  private readonly options: ScriptedOperatorOptions;
  private readonly random: SeededRandom;
  private readonly pending: Observation[] = [];
  private plan: Plan | undefined;
  private episodeIndex: number | undefined;
  private bestProgress = 0;
  private lastProgressSecs = 0;
  private takeover: { reason: TakeoverReason; untilSecs: number } | undefined;

  constructor(
    private readonly arena: Arena,
    options: Partial<ScriptedOperatorOptions> = {},
  ) {
    this.options = { ...DEFAULT_SCRIPTED_OPERATOR_OPTIONS, ...options };
    if (!Number.isInteger(this.options.reactionDelayTicks) || this.options.reactionDelayTicks < 0) {
      throw new RangeError(`reactionDelayTicks must be a whole number ≥ 0, got ${this.options.reactionDelayTicks}`);
    }
    this.random = new SeededRandom(deriveSeed('scripted-operator', this.options.seed));
  }

  /** One control tick of driving alone: the command the operator gives, seeing the world late. */
  drive(truth: GroundTruth): DriveCommand {
    const seen = this.see({ truth, proposed: { linearMps: 0, angularRadps: 0 } });
    return seen === undefined ? { linearMps: 0, angularRadps: 0 } : this.command(seen.truth);
  }

  /** One control tick of watching a policy that proposes `proposed`: who drives, and with what. */
  supervise(truth: GroundTruth, proposed: DriveCommand): OperatorDecision {
    const seen = this.see({ truth, proposed });
    if (seen === undefined) return { driver: 'policy', command: proposed, reason: undefined };
    const nowSecs = seen.truth.simTimeSecs;
    this.trackProgress(seen.truth);
    if (this.takeover !== undefined && nowSecs >= this.takeover.untilSecs) {
      this.takeover = undefined;
      this.lastProgressSecs = nowSecs;
    }
    if (this.takeover === undefined) {
      const reason = this.takeoverReason(seen);
      if (reason !== undefined) this.takeover = { reason, untilSecs: nowSecs + this.options.driveSecs };
    }
    if (this.takeover === undefined) return { driver: 'policy', command: proposed, reason: undefined };
    return { driver: 'operator', command: this.command(seen.truth), reason: this.takeover.reason };
  }

  /** Which of two segments is better: no collision beats a collision, then more progress wins. */
  prefer(a: SegmentTruth, b: SegmentTruth): 'a' | 'b' {
    const score = (segment: SegmentTruth): number => (segment.collided ? -1 : 0) + segment.endProgress - segment.startProgress;
    const better = score(a) >= score(b) ? 'a' : 'b';
    if (this.random.next() >= this.options.wrongAnswerRate) return better;
    return better === 'a' ? 'b' : 'a';
  }

  /** Queues what is happening now and returns what the operator has only now taken in. */
  private see(observation: Observation): Observation | undefined {
    this.pending.push(observation);
    if (this.pending.length <= this.options.reactionDelayTicks) return undefined;
    const seen = this.pending.shift();
    if (seen !== undefined && seen.truth.episode.index !== this.episodeIndex) {
      // A new episode: a fresh start for the progress clock, and nothing to take over from.
      this.episodeIndex = seen.truth.episode.index;
      this.bestProgress = seen.truth.episode.progress;
      this.lastProgressSecs = seen.truth.simTimeSecs;
      this.takeover = undefined;
    }
    return seen;
  }

  private trackProgress(truth: GroundTruth): void {
    if (truth.episode.progress < this.bestProgress + PROGRESS_STEP) return;
    this.bestProgress = truth.episode.progress;
    this.lastProgressSecs = truth.simTimeSecs;
  }

  private takeoverReason(seen: Observation): TakeoverReason | undefined {
    const { truth, proposed } = seen;
    if (truth.episode.status !== 'running') return undefined;
    const horizonSecs = this.options.takeoverTimeToCollisionSecs;
    if (timeToCollisionSecs(truth, proposed, this.planFor(truth).obstacles, horizonSecs) < horizonSecs) return 'imminent-collision';
    if (truth.simTimeSecs - this.lastProgressSecs >= this.options.stallSecs) return 'no-progress';
    return undefined;
  }

  /** The operator's own command: follow the plan, brake rather than hit anything, with a shaky hand. */
  private command(truth: GroundTruth): DriveCommand {
    const plan = this.planFor(truth);
    const { pose } = truth;
    const docking = plan.dock?.command(pose);
    let command = docking ?? this.followPlan(plan, truth);
    if (timeToCollisionSecs(truth, command, plan.obstacles, SELF_BRAKE_TIME_TO_COLLISION_SECS) < SELF_BRAKE_TIME_TO_COLLISION_SECS) {
      command = { linearMps: 0, angularRadps: command.angularRadps };
    }
    const { maxLinearMps, maxAngularRadps } = DIFF_DRIVE_SPEC;
    const linearNoiseMps = this.options.linearNoiseMps * this.random.gaussian();
    const angularNoiseRadps = this.options.angularNoiseRadps * this.random.gaussian();
    // Docked, the hand lets go of the stick, and a released stick sends exactly nothing.
    if (docking !== undefined && docking.linearMps === 0 && docking.angularRadps === 0) return { linearMps: 0, angularRadps: 0 };
    return {
      linearMps: clamp(command.linearMps + linearNoiseMps, maxLinearMps),
      angularRadps: clamp(command.angularRadps + angularNoiseRadps, maxAngularRadps),
    };
  }

  /** Following the plan's path; toward the dock's pre-dock point, slowing as it nears it. */
  private followPlan(plan: Plan, truth: GroundTruth): DriveCommand {
    const { pose } = truth;
    const path = plan.field.pathFrom(pose.xM, pose.yM, PATH_HORIZON_M);
    const rimClearanceM = clearanceM(plan.obstacles, pose.xM, pose.yM) - DIFF_DRIVE_SPEC.bodyRadiusM;
    const threading = truth.task === 'corridor' && rimClearanceM < CORRIDOR_NEAR_M;
    const command = followPath(pose, path, rimClearanceM, threading ? CORRIDOR_FOLLOWER_OPTIONS : DEFAULT_PATH_FOLLOWER_OPTIONS);
    if (plan.dock === undefined) return command;
    const preDock = plan.dock.preDockPoint();
    const distanceM = Math.hypot(preDock.xM - pose.xM, preDock.yM - pose.yM);
    return capSpeed(command, PRE_DOCK_SLOWING.floorMps + PRE_DOCK_SLOWING.perMetreMps * distanceM);
  }

  /** The plan for the world the truth describes, rebuilt when the episode or its obstacles change. */
  private planFor(truth: GroundTruth): Plan {
    const key = `${truth.episode.index}/${truth.droppedObstacles.length}`;
    if (this.plan?.key === key) return this.plan;
    const obstacles: Footprints = {
      boxes: [...this.arena.walls, ...this.arena.obstacles, ...truth.taskObstacles.boxes],
      pillars: [...truth.taskObstacles.pillars, ...truth.droppedObstacles],
    };
    const corridor = truth.task === 'corridor';
    const dock = truth.dockPose === undefined ? undefined : new DockApproach(truth.dockPose);
    // The goal pillar is a solid to plan around; the dock's goal is a point on the floor, planned to via the point in front of it.
    const field = new NavigationField(
      this.arena.sizeM,
      dock === undefined ? { boxes: obstacles.boxes, pillars: [...obstacles.pillars, truth.goal] } : obstacles,
      dock === undefined ? truth.goal : { ...dock.preDockPoint(), radiusM: 0 },
      {
        cellM: corridor ? CORRIDOR_PLAN_CELL_M : PLAN_CELL_M,
        blockedWithinM: DIFF_DRIVE_SPEC.bodyRadiusM + (corridor ? Math.min(this.options.planMarginM, CORRIDOR_PLAN_MARGIN_M) : this.options.planMarginM),
        goalWithinM: dock === undefined ? truth.goal.radiusM + DIFF_DRIVE_SPEC.bodyRadiusM + PLAN_GOAL_GAP_M : PRE_DOCK_PLAN_WITHIN_M,
        preferredClearanceM: DIFF_DRIVE_SPEC.bodyRadiusM + PLAN_PREFERRED_CLEARANCE_M,
        clearancePenalty: PLAN_CLEARANCE_PENALTY,
      },
    );
    this.plan = { key, field, obstacles, dock };
    return this.plan;
  }
}

/** Slower along the same arc: the speed capped, the turn rate scaled with it. */
function capSpeed(command: DriveCommand, maxLinearMps: number): DriveCommand {
  if (command.linearMps <= maxLinearMps) return command;
  const scale = maxLinearMps / command.linearMps;
  return { linearMps: maxLinearMps, angularRadps: command.angularRadps * scale };
}

function clamp(value: number, limit: number): number {
  return Math.min(limit, Math.max(-limit, value));
}
