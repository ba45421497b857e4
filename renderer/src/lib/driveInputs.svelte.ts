// Everything that drives by hand: the drive pad's keyboard and the gamepad, through one
// DriveCommander so the core sees a single, well-formed stream of drive commands.
import type { Cockpit } from './cockpit.svelte.ts';
import { systemClock } from './clock.ts';
import type { DriveValue } from './contract.ts';
import { DriveCommander } from './driveCommander.ts';
import { driveDirectionForCode, type DriveDirection, type SpeedLimits } from './driveKeys.ts';
import { GamepadDrive, type GamepadSnapshot } from './gamepadDrive.ts';
import { KeyboardDrive } from './keyboardDrive.ts';

/** Used only until the core's first state says what the limits are. */
const FALLBACK_LIMITS: SpeedLimits = { maxLinearMps: 0.5, maxAngularRadps: 1 };

export class DriveInputs {
  held = $state.raw<ReadonlySet<DriveDirection>>(new Set());
  /** The command going out at the control rate, undefined when nobody drives. */
  sending = $state.raw<DriveValue | undefined>(undefined);
  gamepadName = $state<string | undefined>(undefined);
  deadmanHeld = $state(false);

  readonly commander: DriveCommander;
  readonly keyboard: KeyboardDrive;
  readonly gamepad: GamepadDrive;

  constructor(private readonly cockpit: Cockpit) {
    const limits = (): SpeedLimits => cockpit.state?.speedLimits ?? FALLBACK_LIMITS;
    this.commander = new DriveCommander((command) => {
      cockpit.drive(command);
      this.sending = this.commander.active;
    }, systemClock);
    this.keyboard = new KeyboardDrive(this.commander, limits, (held) => (this.held = held));
    this.gamepad = new GamepadDrive(this.commander, limits, (action) => {
      this.deadmanHeld = action === 'take-over';
      if (action === 'take-over') cockpit.takeOver();
      else cockpit.handBack();
    });
  }

  #enabled = false;

  /**
   * Driving needs a live connection. Disabling releases everything, and keys held through the outage
   * stay ignored until pressed again, so the robot never starts moving on its own when the core returns.
   */
  setEnabled(enabled: boolean): void {
    this.#enabled = enabled;
    if (!enabled) this.releaseAll();
  }

  /** Returns true when the key is a drive key (the caller keeps it from scrolling the page). */
  keyDown(code: string, repeat: boolean): boolean {
    if (!this.#enabled) return driveDirectionForCode(code) !== undefined;
    return this.keyboard.keyDown(code, repeat);
  }

  keyUp(code: string): boolean {
    return this.keyboard.keyUp(code);
  }

  /** Focus left the pad, the window was hidden, or the connection dropped: every key and the stick let go. */
  releaseAll(): void {
    this.keyboard.releaseAll();
    this.commander.releaseAll();
  }

  /** Polls the first connected gamepad every animation frame while one is connected. */
  pollGamepads(): () => void {
    let frame: number | undefined;
    const poll = (): void => {
      frame = undefined;
      const pad = firstConnectedGamepad();
      this.gamepadName = pad?.id;
      this.gamepad.poll(pad, this.#enabled);
      if (pad || this.gamepad.deadmanHeld) frame = requestAnimationFrame(poll);
    };
    const start = (): void => {
      if (frame === undefined) frame = requestAnimationFrame(poll);
    };
    window.addEventListener('gamepadconnected', start);
    window.addEventListener('gamepaddisconnected', start);
    start();
    return () => {
      window.removeEventListener('gamepadconnected', start);
      window.removeEventListener('gamepaddisconnected', start);
      if (frame !== undefined) cancelAnimationFrame(frame);
    };
  }
}

function firstConnectedGamepad(): GamepadSnapshot | undefined {
  if (typeof navigator.getGamepads !== 'function') return undefined;
  for (const pad of navigator.getGamepads()) if (pad?.connected) return pad;
  return undefined;
}
