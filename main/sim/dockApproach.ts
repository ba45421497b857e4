// How a careful driver docks: get to a point straight out in front of the marker, turn to face it,
// creep in along the line through it (steering back onto the line on the way), slowing as the gap
// closes, and let go of the stick once there. If it comes in too far off the line, it backs out
// along it and tries again. The last stretch is slow enough that a late reaction still stops it in
// time. Positions here are measured in the dock's frame: `outM` straight out from the dock pose
// (positive in front of it), `leftM` across.
import type { DriveCommand } from '../core/messages.ts';
import { DIFF_DRIVE_SPEC } from './diffDrive.ts';
import { wrapAngleRad, type Pose2D } from './geometry.ts';
import type { PointM } from './navigationField.ts';

/** Where the line-up starts: this far straight out in front of the dock pose. */
export const PRE_DOCK_DISTANCE_M = 0.55;
/** Within this of the pre-dock point, the driver stops following its plan and lines up. */
const LINE_UP_RADIUS_M = 0.1;
/**
 * Steering back onto the line: heading offset (rad) per metre off it, capped, and capped harder
 * (per metre still to go) near the end, where the heading must come straight.
 */
const LINE_GAIN_PER_M = 4;
const MAX_LINE_OFFSET_RAD = 0.45;
const LINE_OFFSET_PER_M_TO_GO = 3;
/** A heading further off than this is turned to on the spot before creeping on. */
const TURN_ON_SPOT_RAD = 0.25;
const TURN_GAIN_PER_SEC = 2.5;
const MAX_TURN_RADPS = 1.2;
const HEADING_GAIN_PER_SEC = 2;
/** Creeping in: speed per metre still to go, capped; slow enough near the end that a 0.2 s late stop overshoots by millimetres. */
const CREEP_GAIN_PER_SEC = 1;
const MAX_CREEP_MPS = 0.2;
/** Hands off the stick when this close, straight and lined up; takes it again only if the robot drifts further. */
const HOLD = { outM: 0.012, leftM: 0.03, headingRad: 0.06 };
const RELEASE = { outM: 0.03, leftM: 0.045, headingRad: 0.12 };
/** Too far off the line for what is left of the way in: back out to this far and line up again. */
const BACK_OUT_TO_M = 0.45;
const BACK_OUT_MPS = 0.15;

type Phase = 'approach' | 'line-up' | 'backing-out' | 'holding';

/** A pose as the dock sees it: `outM` straight out in front of the dock pose, `leftM` across, and the heading's error. */
export interface DockFramePose {
  outM: number;
  leftM: number;
  /** The pose's heading less the dock pose's, wrapped to ±π: positive turned left of it. */
  headingErrorRad: number;
}

/** Where `pose` is in the frame of `dockPose` (forward, into the wall, is negative `outM`). */
export function dockFromWorld(dockPose: Pose2D, pose: Pose2D): DockFramePose {
  const forwardX = Math.cos(dockPose.yawRad);
  const forwardY = Math.sin(dockPose.yawRad);
  const dx = pose.xM - dockPose.xM;
  const dy = pose.yM - dockPose.yM;
  // Left is forward turned a quarter anticlockwise.
  return { outM: -(dx * forwardX + dy * forwardY), leftM: -dx * forwardY + dy * forwardX, headingErrorRad: wrapAngleRad(pose.yawRad - dockPose.yawRad) };
}

/** The world pose of a pose given in the frame of `dockPose`: the inverse of dockFromWorld. */
export function worldFromDock(dockPose: Pose2D, inDock: DockFramePose): Pose2D {
  const forwardX = Math.cos(dockPose.yawRad);
  const forwardY = Math.sin(dockPose.yawRad);
  return {
    xM: dockPose.xM - inDock.outM * forwardX - inDock.leftM * forwardY,
    yM: dockPose.yM - inDock.outM * forwardY + inDock.leftM * forwardX,
    yawRad: wrapAngleRad(dockPose.yawRad + inDock.headingErrorRad),
  };
}

export class DockApproach {
  private phase: Phase = 'approach';

  constructor(readonly dockPose: Pose2D) {}

  /** Where to plan to while the approach is still driving the plan. */
  preDockPoint(): PointM {
    const { xM, yM } = worldFromDock(this.dockPose, { outM: PRE_DOCK_DISTANCE_M, leftM: 0, headingErrorRad: 0 });
    return { xM, yM };
  }

  /**
   * The command to give from `pose`, or undefined while the robot is still on its way to the
   * pre-dock point (the caller follows its plan there).
   */
  command(pose: Pose2D): DriveCommand | undefined {
    const { outM, leftM, headingErrorRad } = dockFromWorld(this.dockPose, pose);
    this.phase = this.nextPhase(outM, leftM, headingErrorRad, pose);
    switch (this.phase) {
      case 'approach':
        return undefined;
      case 'holding':
        return { linearMps: 0, angularRadps: 0 };
      case 'backing-out':
        return { linearMps: -BACK_OUT_MPS, angularRadps: clamp(-HEADING_GAIN_PER_SEC * headingErrorRad, MAX_TURN_RADPS) };
      case 'line-up': {
        // Heading left of the line's direction moves the robot left as it creeps in: aim back across.
        const offsetCapRad = Math.min(MAX_LINE_OFFSET_RAD, LINE_OFFSET_PER_M_TO_GO * Math.max(0, outM));
        const wantedOffsetRad = clamp(-LINE_GAIN_PER_M * leftM, offsetCapRad);
        const steerErrorRad = wrapAngleRad(headingErrorRad - wantedOffsetRad);
        if (Math.abs(steerErrorRad) > TURN_ON_SPOT_RAD) return { linearMps: 0, angularRadps: clamp(-TURN_GAIN_PER_SEC * steerErrorRad, MAX_TURN_RADPS) };
        const linearMps = Math.min(MAX_CREEP_MPS, CREEP_GAIN_PER_SEC * Math.max(0, outM));
        return { linearMps, angularRadps: clamp(-HEADING_GAIN_PER_SEC * steerErrorRad, DIFF_DRIVE_SPEC.maxAngularRadps) };
      }
    }
  }

  private nextPhase(outM: number, leftM: number, headingErrorRad: number, pose: Pose2D): Phase {
    const within = (limits: typeof HOLD) => Math.abs(outM) <= limits.outM && Math.abs(leftM) <= limits.leftM && Math.abs(headingErrorRad) <= limits.headingRad;
    if (this.phase === 'approach') {
      const preDock = this.preDockPoint();
      return Math.hypot(pose.xM - preDock.xM, pose.yM - preDock.yM) <= LINE_UP_RADIUS_M ? 'line-up' : 'approach';
    }
    // Wherever it was in the manoeuvre (a policy may have driven in between), off the lane it plans its way back.
    if (outM > PRE_DOCK_DISTANCE_M + 2 * LINE_UP_RADIUS_M || Math.abs(leftM) > 2 * LINE_UP_RADIUS_M) return 'approach';
    switch (this.phase) {
      case 'holding':
        return within(RELEASE) ? 'holding' : 'line-up';
      case 'backing-out':
        return outM >= BACK_OUT_TO_M ? 'line-up' : 'backing-out';
      case 'line-up':
        if (within(HOLD)) return 'holding';
        // Off the line by more than the rest of the way in can steer out (with a little to spare), or past the pose.
        if (Math.abs(leftM) > HOLD.leftM + 0.3 * Math.max(0, outM) || outM < -RELEASE.outM) return 'backing-out';
        return 'line-up';
    }
  }
}

function clamp(value: number, limit: number): number {
  return Math.min(limit, Math.max(-limit, value));
}
