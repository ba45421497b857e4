// Which keys drive, and the command a set of held keys asks for. Keys are matched by their physical
// position (KeyboardEvent.code), so W A S D sit under the same fingers on every keyboard layout.
import type { DriveValue } from './contract.ts';

export type DriveDirection = 'forward' | 'back' | 'left' | 'right';

const DIRECTION_BY_CODE: Readonly<Record<string, DriveDirection>> = {
  KeyW: 'forward',
  ArrowUp: 'forward',
  KeyS: 'back',
  ArrowDown: 'back',
  KeyA: 'left',
  ArrowLeft: 'left',
  KeyD: 'right',
  ArrowRight: 'right',
};

export function driveDirectionForCode(code: string): DriveDirection | undefined {
  return Object.hasOwn(DIRECTION_BY_CODE, code) ? DIRECTION_BY_CODE[code] : undefined;
}

export interface SpeedLimits {
  maxLinearMps: number;
  maxAngularRadps: number;
}

/** What a held key asks for before the speed limits cap it. */
export interface KeyboardDriveSpeeds {
  linearMps: number;
  angularRadps: number;
}

export const KEYBOARD_DRIVE_SPEEDS: Readonly<KeyboardDriveSpeeds> = Object.freeze({ linearMps: 0.5, angularRadps: 1.0 });

/**
 * The command for the held directions: forward/back at the keyboard speed and left/right at the
 * keyboard turn rate, each capped by the speed limits. Opposite keys cancel out. A turns left
 * (positive, counter-clockwise angular velocity, as in ROS).
 */
export function driveFromDirections(held: Iterable<DriveDirection>, limits: SpeedLimits, speeds: KeyboardDriveSpeeds = KEYBOARD_DRIVE_SPEEDS): DriveValue {
  const directions = new Set(held);
  const axis = (positive: DriveDirection, negative: DriveDirection): number => (directions.has(positive) ? 1 : 0) - (directions.has(negative) ? 1 : 0);
  const linearMps = axis('forward', 'back') * Math.min(speeds.linearMps, limits.maxLinearMps);
  const angularRadps = axis('left', 'right') * Math.min(speeds.angularRadps, limits.maxAngularRadps);
  // `+ 0` turns -0 into 0 so a cancelled axis serialises as a plain zero.
  return { linearMps: linearMps + 0, angularRadps: angularRadps + 0 };
}
