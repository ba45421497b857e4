// The drive pad's keyboard: tracks which drive keys are physically held (auto-repeat ignored) and
// feeds the resulting command to the DriveCommander.
import type { DriveCommander } from './driveCommander.ts';
import { driveDirectionForCode, driveFromDirections, type DriveDirection, type SpeedLimits } from './driveKeys.ts';

export class KeyboardDrive {
  readonly #heldCodes = new Set<string>();

  constructor(
    private readonly commander: DriveCommander,
    private readonly limits: () => SpeedLimits,
    private readonly onHeldChange: (held: ReadonlySet<DriveDirection>) => void = () => {},
  ) {}

  get held(): ReadonlySet<DriveDirection> {
    const directions = new Set<DriveDirection>();
    for (const code of this.#heldCodes) {
      const direction = driveDirectionForCode(code);
      if (direction) directions.add(direction);
    }
    return directions;
  }

  /** Returns true when the key is a drive key, so the caller can keep it from scrolling the page. */
  keyDown(code: string, repeat: boolean): boolean {
    if (!driveDirectionForCode(code)) return false;
    if (repeat || this.#heldCodes.has(code)) return true;
    this.#heldCodes.add(code);
    this.#apply();
    return true;
  }

  keyUp(code: string): boolean {
    if (!driveDirectionForCode(code)) return false;
    if (this.#heldCodes.delete(code)) this.#apply();
    return true;
  }

  /** Focus left the pad or the window was hidden: every key counts as released. */
  releaseAll(): void {
    if (this.#heldCodes.size === 0) return;
    this.#heldCodes.clear();
    this.#apply();
  }

  /** The speed limits changed: the next repeat carries the new command. */
  limitsChanged(): void {
    if (this.#heldCodes.size === 0) return;
    this.commander.set('keyboard', driveFromDirections(this.held, this.limits()), 'next-tick');
  }

  #apply(): void {
    const held = this.held;
    this.commander.set('keyboard', held.size > 0 ? driveFromDirections(held, this.limits()) : undefined, 'now');
    this.onHeldChange(held);
  }
}
