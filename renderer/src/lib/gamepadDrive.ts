// The gamepad: the left stick drives (with a radial deadzone), the right trigger is a deadman that
// takes over while held and hands back on release. Reads a plain snapshot of the pad, so it is tested
// without a browser.
import type { DriveCommander } from './driveCommander.ts';
import type { DriveValue } from './contract.ts';
import type { SpeedLimits } from './driveKeys.ts';

/** The parts of the browser's Gamepad this reads. */
export interface GamepadSnapshot {
  readonly id: string;
  readonly axes: readonly number[];
  readonly buttons: readonly { readonly value: number }[];
}

// Standard mapping (https://w3c.github.io/gamepad/#remapping).
const LEFT_STICK_X = 0;
const LEFT_STICK_Y = 1;
const RIGHT_TRIGGER = 7;

export const STICK_DEADZONE = 0.15;
export const TRIGGER_PRESS = 0.5;
/** Lower than the press threshold so a trigger resting near 0.5 does not chatter. */
export const TRIGGER_RELEASE = 0.4;

/**
 * The stick's command: full deflection asks for the speed limit. Up is forward, left turns left.
 * Undefined inside the deadzone, so a resting stick never drives.
 */
export function driveFromStick(x: number, y: number, limits: SpeedLimits, deadzone = STICK_DEADZONE): DriveValue | undefined {
  const magnitude = Math.hypot(x, y);
  if (!Number.isFinite(magnitude) || magnitude <= deadzone) return undefined;
  // Rescale so motion starts from zero at the deadzone's edge instead of jumping.
  const scaled = Math.min(1, (magnitude - deadzone) / (1 - deadzone));
  const forward = (-y / magnitude) * scaled;
  const left = (-x / magnitude) * scaled;
  return { linearMps: forward * limits.maxLinearMps + 0, angularRadps: left * limits.maxAngularRadps + 0 };
}

export type DeadmanAction = 'take-over' | 'hand-back';

export class TriggerDeadman {
  #held = false;

  get held(): boolean {
    return this.#held;
  }

  /** Feeds the trigger's value; returns the action on a press or a release edge. */
  update(value: number): DeadmanAction | undefined {
    if (!this.#held && value > TRIGGER_PRESS) {
      this.#held = true;
      return 'take-over';
    }
    if (this.#held && !(value > TRIGGER_RELEASE)) {
      this.#held = false;
      return 'hand-back';
    }
    return undefined;
  }
}

export class GamepadDrive {
  readonly #deadman = new TriggerDeadman();

  constructor(
    private readonly commander: DriveCommander,
    private readonly limits: () => SpeedLimits,
    private readonly onDeadman: (action: DeadmanAction) => void,
  ) {}

  get deadmanHeld(): boolean {
    return this.#deadman.held;
  }

  /**
   * One poll; undefined when no pad is connected, which releases the stick and the trigger. With
   * `stickDrives` false the stick is read as centred (no connection to drive through).
   */
  poll(pad: GamepadSnapshot | undefined, stickDrives = true): void {
    const x = stickDrives ? (pad?.axes[LEFT_STICK_X] ?? 0) : 0;
    const y = stickDrives ? (pad?.axes[LEFT_STICK_Y] ?? 0) : 0;
    this.commander.set('gamepad', driveFromStick(x, y, this.limits()), 'next-tick');
    const action = this.#deadman.update(pad?.buttons[RIGHT_TRIGGER]?.value ?? 0);
    if (action) this.onDeadman(action);
  }
}
