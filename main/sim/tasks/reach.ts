// The `reach` task: drive to the goal pillar without touching anything, within a time limit.
// Progress is how much of the planned path distance from the start the robot has covered, so it
// rewards going around an obstacle, not just closing the straight-line gap.
import type { Solids } from '../arena.ts';
import { DIFF_DRIVE_SPEC } from '../diffDrive.ts';
import type { Circle, Pose2D } from '../geometry.ts';
import { NavigationField } from '../navigationField.ts';
import type { SimTask, TaskStep, TaskVerdict } from './task.ts';

export interface ReachOptions {
  timeLimitSecs: number;
  /** Success when the robot's rim is this close to the goal pillar's surface. */
  successGapM: number;
}

export const DEFAULT_REACH_OPTIONS: Readonly<ReachOptions> = Object.freeze({ timeLimitSecs: 30, successGapM: 0.25 });

/** Fine enough that a 0.6 m passage is several cells wide; coarse enough to plan in milliseconds. */
const PROGRESS_CELL_M = 0.05;

export class ReachTask implements SimTask {
  private readonly successCentreDistanceM: number;
  private field: NavigationField;
  private readonly startCostM: number;

  constructor(
    private readonly arenaSizeM: number,
    solids: Solids,
    private readonly goal: Circle,
    startPose: Pose2D,
    private readonly options: ReachOptions,
  ) {
    if (!(options.timeLimitSecs > 0) || !(options.successGapM >= 0)) {
      throw new RangeError(`reach needs timeLimitSecs > 0 and successGapM ≥ 0, got ${options.timeLimitSecs} and ${options.successGapM}`);
    }
    this.successCentreDistanceM = goal.radiusM + DIFF_DRIVE_SPEC.bodyRadiusM + options.successGapM;
    this.field = this.plan(solids);
    this.startCostM = this.field.costToGoM(startPose.xM, startPose.yM);
  }

  judge(step: TaskStep): TaskVerdict {
    const { pose } = step;
    // The goal is checked first: the robot is within reach of it before it can touch it.
    if (Math.hypot(pose.xM - this.goal.xM, pose.yM - this.goal.yM) <= this.successCentreDistanceM) {
      return { status: 'succeeded', reason: 'reached-goal', progress: 1 };
    }
    const progress = this.progress(pose);
    if (step.contact) return { status: 'failed', reason: 'collision', progress };
    if (step.elapsedSecs >= this.options.timeLimitSecs - 1e-9) return { status: 'failed', reason: 'timeout', progress };
    return { status: 'running', reason: undefined, progress };
  }

  solidsChanged(solids: Solids): void {
    this.field = this.plan(solids);
  }

  private progress(pose: Pose2D): number {
    if (!(this.startCostM > 0 && Number.isFinite(this.startCostM))) return 0;
    const remaining = this.field.costToGoM(pose.xM, pose.yM);
    return Math.min(1, Math.max(0, 1 - remaining / this.startCostM));
  }

  private plan(solids: Solids): NavigationField {
    return new NavigationField(this.arenaSizeM, solids, this.goal, {
      cellM: PROGRESS_CELL_M,
      blockedWithinM: DIFF_DRIVE_SPEC.bodyRadiusM,
      goalWithinM: this.successCentreDistanceM,
      preferredClearanceM: 0,
      clearancePenalty: 0,
    });
  }
}
