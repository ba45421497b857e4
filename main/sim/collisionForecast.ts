// How soon the robot would hit something if it did what it is told: the drive train's ramp rolled
// forward from the robot's true state, checked against the true map. The scripted operator uses it
// to see a crash coming, as a watching human does.
import type { DriveCommand } from '../core/messages.ts';
import { clearanceM, type Footprints } from './arena.ts';
import { DIFF_DRIVE_SPEC } from './diffDrive.ts';
import type { Pose2D } from './geometry.ts';

export interface MotionTruth {
  pose: Pose2D;
  linearMps: number;
  angularRadps: number;
}

/** Rim clearance at which a forecast counts as a hit: closer than this is a crash in all but name. */
const HIT_CLEARANCE_M = 0.01;
const FORECAST_STEP_SECS = 0.05;

/**
 * Seconds until the robot's rim meets an obstacle if it follows `command` from `now` (speeds ramping
 * within the drive's limits); Infinity if not within horizonSecs. Only closing in counts: a robot
 * already near a wall and moving away from it is not about to collide.
 */
export function timeToCollisionSecs(now: MotionTruth, command: DriveCommand, obstacles: Footprints, horizonSecs: number): number {
  const spec = DIFF_DRIVE_SPEC;
  const targetLinearMps = clamp(command.linearMps, spec.maxLinearMps);
  const targetAngularRadps = clamp(command.angularRadps, spec.maxAngularRadps);
  let { xM, yM, yawRad } = now.pose;
  let linearMps = now.linearMps;
  let angularRadps = now.angularRadps;
  let previousClearanceM = clearanceM(obstacles, xM, yM) - spec.bodyRadiusM;
  for (let elapsedSecs = FORECAST_STEP_SECS; elapsedSecs <= horizonSecs + 1e-9; elapsedSecs += FORECAST_STEP_SECS) {
    linearMps = approach(linearMps, targetLinearMps, spec.maxLinearAccelMps2 * FORECAST_STEP_SECS);
    angularRadps = approach(angularRadps, targetAngularRadps, spec.maxAngularAccelRadps2 * FORECAST_STEP_SECS);
    const headingRad = yawRad + (angularRadps * FORECAST_STEP_SECS) / 2;
    xM += Math.cos(headingRad) * linearMps * FORECAST_STEP_SECS;
    yM += Math.sin(headingRad) * linearMps * FORECAST_STEP_SECS;
    yawRad += angularRadps * FORECAST_STEP_SECS;
    const clearance = clearanceM(obstacles, xM, yM) - spec.bodyRadiusM;
    if (clearance <= HIT_CLEARANCE_M && clearance < previousClearanceM) return elapsedSecs;
    previousClearanceM = clearance;
  }
  return Infinity;
}

function clamp(value: number, limit: number): number {
  return Math.min(limit, Math.max(-limit, value));
}

function approach(current: number, target: number, maxChange: number): number {
  return current + Math.min(maxChange, Math.max(-maxChange, target - current));
}
