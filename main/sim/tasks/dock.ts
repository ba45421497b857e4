// The `dock` task: come to rest at a marked pose against a wall, within a small distance and angle
// of it, without touching anything, within a time limit. Progress is the planned path distance
// covered to the dock's approach area, then how close the pose is to the marked one.
import type { Solids } from '../arena.ts';
import { DIFF_DRIVE_SPEC } from '../diffDrive.ts';
import { wrapAngleRad, type Pose2D } from '../geometry.ts';
import { NavigationField } from '../navigationField.ts';
import type { SimTask, TaskStep, TaskVerdict } from './task.ts';

export interface DockOptions {
  timeLimitSecs: number;
  /** Docked when the robot's centre is this close to the marked pose's position… */
  positionToleranceM: number;
  /** …its heading this close to the marked pose's… */
  headingToleranceRad: number;
  /** …and its speed over the ground below this… */
  restSpeedMps: number;
  /** …all at once, without a break, for this long. */
  restSecs: number;
}

export const DEFAULT_DOCK_OPTIONS: Readonly<DockOptions> = Object.freeze({
  timeLimitSecs: 60,
  positionToleranceM: 0.05,
  headingToleranceRad: (10 * Math.PI) / 180,
  restSpeedMps: 0.02,
  restSecs: 0.5,
});

/** Within this of the marked position the path is done and progress measures the pose error instead. */
export const DOCK_APPROACH_RADIUS_M = 0.35;
/** The shares of progress: the path to the approach area, then the pose within it; the rest is for coming to rest. */
const PATH_SHARE = 0.8;
const POSE_SHARE = 0.19;
const PROGRESS_CELL_M = 0.05;

export class DockTask implements SimTask {
  private field: NavigationField;
  private readonly startCostM: number;
  /** When the robot last came to rest within tolerance; undefined while it is not. */
  private restingSinceSecs: number | undefined;

  constructor(
    private readonly arenaSizeM: number,
    solids: Solids,
    private readonly dockPose: Pose2D,
    startPose: Pose2D,
    private readonly options: DockOptions,
  ) {
    const { timeLimitSecs, positionToleranceM, headingToleranceRad, restSpeedMps, restSecs } = options;
    if (!(timeLimitSecs > 0) || !(positionToleranceM > 0) || !(headingToleranceRad > 0) || !(restSpeedMps > 0) || !(restSecs >= 0)) {
      throw new RangeError(`dock needs a positive time limit, tolerances and rest speed, and a rest time ≥ 0; got ${JSON.stringify(options)}`);
    }
    this.field = this.plan(solids);
    this.startCostM = this.field.costToGoM(startPose.xM, startPose.yM);
  }

  judge(step: TaskStep): TaskVerdict {
    const { pose, elapsedSecs } = step;
    const progress = this.progress(pose);
    if (step.contact) return { status: 'failed', reason: 'collision', progress };
    const { positionToleranceM, headingToleranceRad, restSpeedMps, restSecs, timeLimitSecs } = this.options;
    const positionErrorM = Math.hypot(pose.xM - this.dockPose.xM, pose.yM - this.dockPose.yM);
    const headingErrorRad = Math.abs(wrapAngleRad(pose.yawRad - this.dockPose.yawRad));
    const resting = step.speedMps !== undefined && step.speedMps < restSpeedMps;
    if (positionErrorM <= positionToleranceM && headingErrorRad <= headingToleranceRad && resting) {
      this.restingSinceSecs ??= elapsedSecs;
      if (elapsedSecs - this.restingSinceSecs >= restSecs - 1e-9) return { status: 'succeeded', reason: 'docked', progress: 1 };
    } else {
      this.restingSinceSecs = undefined;
    }
    if (elapsedSecs >= timeLimitSecs - 1e-9) return { status: 'failed', reason: 'timeout', progress };
    return { status: 'running', reason: undefined, progress };
  }

  solidsChanged(solids: Solids): void {
    this.field = this.plan(solids);
  }

  /** 0.8 for the path to the approach area, then up to 0.19 for the pose within it; 1 only once docked. */
  private progress(pose: Pose2D): number {
    const positionErrorM = Math.hypot(pose.xM - this.dockPose.xM, pose.yM - this.dockPose.yM);
    const pathFraction = positionErrorM <= DOCK_APPROACH_RADIUS_M ? 1 : this.pathFraction(pose);
    const headingErrorRad = Math.abs(wrapAngleRad(pose.yawRad - this.dockPose.yawRad));
    const poseScore = Math.max(0, 1 - positionErrorM / DOCK_APPROACH_RADIUS_M) * (1 - headingErrorRad / Math.PI);
    return PATH_SHARE * pathFraction + POSE_SHARE * poseScore;
  }

  private pathFraction(pose: Pose2D): number {
    if (!(this.startCostM > 0 && Number.isFinite(this.startCostM))) return 0;
    const remainingM = this.field.costToGoM(pose.xM, pose.yM);
    return Math.min(1, Math.max(0, 1 - remainingM / this.startCostM));
  }

  private plan(solids: Solids): NavigationField {
    return new NavigationField(
      this.arenaSizeM,
      solids,
      { xM: this.dockPose.xM, yM: this.dockPose.yM, radiusM: 0 },
      {
        cellM: PROGRESS_CELL_M,
        blockedWithinM: DIFF_DRIVE_SPEC.bodyRadiusM,
        goalWithinM: DOCK_APPROACH_RADIUS_M,
        preferredClearanceM: 0,
        clearancePenalty: 0,
      },
    );
  }
}
