// The last word on every command before it reaches the robot: speed limits and acceleration limits.
// It lives outside every learned component; nothing the policy does can turn it off.
import type { DriveCommand } from '../core/messages.ts';

export interface SafetyLimits {
  maxLinearMps: number;
  maxAngularRadps: number;
  maxLinearAccelMps2: number;
  maxAngularAccelRadps2: number;
}

export const DEFAULT_SAFETY_LIMITS: Readonly<SafetyLimits> = Object.freeze({
  maxLinearMps: 0.5,
  maxAngularRadps: 1.5,
  maxLinearAccelMps2: 1.0,
  maxAngularAccelRadps2: 4.0,
});

/** Above this gap between commands the robot has stopped on its own command timeout: ramp from rest. */
const MAX_RAMP_GAP_MS = 500;
/** The most time one step may claim for acceleration, so a long gap never permits a jump. */
const MAX_RAMP_STEP_MS = 100;

export class SafetyFilter {
  private limits: SafetyLimits;
  private last: DriveCommand = { linearMps: 0, angularRadps: 0 };
  private lastAtMs: number | undefined;

  /** `hardLimits` cap whatever the operator sets later; the operator can only lower speeds below them. */
  constructor(private readonly hardLimits: SafetyLimits = DEFAULT_SAFETY_LIMITS) {
    this.limits = { ...hardLimits };
  }

  speedLimits(): { maxLinearMps: number; maxAngularRadps: number } {
    return { maxLinearMps: this.limits.maxLinearMps, maxAngularRadps: this.limits.maxAngularRadps };
  }

  /** Sets the operator's speed limits, never above the hard limits. Returns what was applied. */
  setSpeedLimits(maxLinearMps: number, maxAngularRadps: number): { maxLinearMps: number; maxAngularRadps: number } {
    this.limits.maxLinearMps = Math.min(Math.abs(maxLinearMps), this.hardLimits.maxLinearMps);
    this.limits.maxAngularRadps = Math.min(Math.abs(maxAngularRadps), this.hardLimits.maxAngularRadps);
    return this.speedLimits();
  }

  /** Returns the command that may actually be sent now, given the one requested. */
  filter(requested: DriveCommand, nowMs: number): DriveCommand {
    const gapMs = this.lastAtMs === undefined ? Infinity : Math.max(0, nowMs - this.lastAtMs);
    const from = gapMs > MAX_RAMP_GAP_MS ? { linearMps: 0, angularRadps: 0 } : this.last;
    const dtSecs = Math.min(gapMs, MAX_RAMP_STEP_MS) / 1000;
    const target = withinSpeedLimits(requested, this.limits);
    const linearMps = rampAxis(from.linearMps, target.linearMps, this.limits.maxLinearAccelMps2 * dtSecs);
    const angularRadps = rampAxis(from.angularRadps, target.angularRadps, this.limits.maxAngularAccelRadps2 * dtSecs);
    return this.record({ linearMps, angularRadps }, nowMs);
  }

  /** A stop is always allowed at once: braking is never rate-limited. */
  stop(nowMs: number): DriveCommand {
    return this.record({ linearMps: 0, angularRadps: 0 }, nowMs);
  }

  private record(command: DriveCommand, nowMs: number): DriveCommand {
    this.last = command;
    this.lastAtMs = nowMs;
    return { ...command };
  }
}

/** The command within the speed limits, each axis clamped (a value that is not a number reads 0); no ramp. */
export function withinSpeedLimits(command: DriveCommand, limits: Pick<SafetyLimits, 'maxLinearMps' | 'maxAngularRadps'>): DriveCommand {
  return {
    linearMps: clamp(finiteOrZero(command.linearMps), limits.maxLinearMps),
    angularRadps: clamp(finiteOrZero(command.angularRadps), limits.maxAngularRadps),
  };
}

function clamp(value: number, limit: number): number {
  return Math.max(-limit, Math.min(limit, value));
}

function finiteOrZero(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

/**
 * Moves from `from` toward `target`. Slowing down (toward zero) happens at once; speeding up, or
 * reversing past zero, is limited to `maxStep`.
 */
function rampAxis(from: number, target: number, maxStep: number): number {
  const start = Math.sign(from) * Math.sign(target) < 0 ? 0 : from;
  if (Math.abs(target) <= Math.abs(start)) return target;
  return clamp(target - start, maxStep) + start;
}
