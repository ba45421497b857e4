// Following a planned path the way a careful driver does: pure pursuit toward a point a little way
// along the path, turning on the spot when that point is well off to the side, and slowing down
// when an obstacle is close.
import type { DriveCommand } from '../core/messages.ts';
import { DIFF_DRIVE_SPEC } from './diffDrive.ts';
import { wrapAngleRad, type Pose2D } from './geometry.ts';
import type { PointM } from './navigationField.ts';

export interface PathFollowerOptions {
  /** How far along the path the pursued point lies: longer is smoother, shorter hugs the path. */
  lookaheadM: number;
  /** A pursued point further off the heading than this is turned toward on the spot. */
  turnOnSpotRad: number;
  /** Full speed only with at least this much rim clearance; slower, down to minSpeedFraction, nearer. */
  fullSpeedClearanceM: number;
  minSpeedFraction: number;
}

export const DEFAULT_PATH_FOLLOWER_OPTIONS: Readonly<PathFollowerOptions> = Object.freeze({
  lookaheadM: 0.45,
  turnOnSpotRad: Math.PI / 3,
  fullSpeedClearanceM: 0.35,
  minSpeedFraction: 0.3,
});

/** Clearance the speed ramp treats as none at all. */
const HIT_MARGIN_M = 0.03;
/** Gain of the on-the-spot turn: rad/s per rad of bearing, capped by the drive's limit. */
const TURN_GAIN_PER_SEC = 2.5;

/** The command that follows `path` (nearest point first) from `pose`; zero when there is no path. */
export function followPath(pose: Pose2D, path: readonly PointM[], rimClearanceM: number, options: PathFollowerOptions): DriveCommand {
  const target = pursuedPoint(pose, path, options.lookaheadM);
  if (target === undefined) return { linearMps: 0, angularRadps: 0 };
  const { maxLinearMps, maxAngularRadps } = DIFF_DRIVE_SPEC;
  const bearingRad = wrapAngleRad(Math.atan2(target.yM - pose.yM, target.xM - pose.xM) - pose.yawRad);
  if (Math.abs(bearingRad) > options.turnOnSpotRad) {
    return { linearMps: 0, angularRadps: clamp(TURN_GAIN_PER_SEC * bearingRad, maxAngularRadps) };
  }
  const clearanceFraction = (rimClearanceM - HIT_MARGIN_M) / options.fullSpeedClearanceM;
  const linearMps = maxLinearMps * Math.min(1, Math.max(options.minSpeedFraction, clearanceFraction));
  // Pure pursuit: the arc through the pursued point has curvature 2·sin(bearing) / distance.
  const distanceM = Math.max(Math.hypot(target.xM - pose.xM, target.yM - pose.yM), 1e-6);
  const curvaturePerM = (2 * Math.sin(bearingRad)) / distanceM;
  const angularRadps = clamp(linearMps * curvaturePerM, maxAngularRadps);
  // Keep to the arc: if the turn rate had to be capped, slow down so the curvature still holds.
  const arcLinearMps = Math.abs(curvaturePerM) > 1e-9 ? Math.min(linearMps, Math.abs(angularRadps / curvaturePerM)) : linearMps;
  return { linearMps: arcLinearMps, angularRadps };
}

/** The first path point at least lookaheadM away, or the path's end if it is nearer than that. */
function pursuedPoint(pose: Pose2D, path: readonly PointM[], lookaheadM: number): PointM | undefined {
  for (const point of path) {
    if (Math.hypot(point.xM - pose.xM, point.yM - pose.yM) >= lookaheadM) return point;
  }
  return path.at(-1);
}

function clamp(value: number, limit: number): number {
  return Math.min(limit, Math.max(-limit, value));
}
