// The safety filter a session runs as the loop's last step, and its speed limits: what an action of
// magnitude 1 means to the world model and to the policy's actor, so that both scale actions alike.
import type { DriveCommand } from '../core/messages.ts';
import { DEFAULT_SAFETY_LIMITS, SafetyFilter, withinSpeedLimits } from '../safety/safetyFilter.ts';

export type { SafetyFilter };

/** [forward m/s, turn rad/s]: the safety filter's default limits. */
export const SESSION_SPEED_LIMITS: readonly [number, number] = Object.freeze([
  DEFAULT_SAFETY_LIMITS.maxLinearMps,
  DEFAULT_SAFETY_LIMITS.maxAngularRadps,
] as const);

/** The safety filter at its default limits. */
export function createSafetyFilter(): SafetyFilter {
  return new SafetyFilter();
}

/** A command clamped to the session's speed limits as the safety filter clamps it (no acceleration ramp). */
export function withinSessionSpeedLimits(command: DriveCommand): DriveCommand {
  return withinSpeedLimits(command, DEFAULT_SAFETY_LIMITS);
}
