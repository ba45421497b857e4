// Turns "someone is asking to drive" into the stream the core expects: a drive command right away,
// the same command again at the control rate while it is held, and exactly one zero when the last
// source lets go. The keyboard outranks the gamepad when both ask at once.
import type { Clock, TimerId } from './clock.ts';
import type { DriveValue } from './contract.ts';

export type DriveSource = 'keyboard' | 'gamepad';

const SOURCES_BY_PRIORITY: readonly DriveSource[] = ['keyboard', 'gamepad'];
export const ZERO_DRIVE: Readonly<DriveValue> = Object.freeze({ linearMps: 0, angularRadps: 0 });
export const DEFAULT_CONTROL_RATE_HZ = 10;
const MIN_RATE_HZ = 1;
const MAX_RATE_HZ = 50;

export type SendTiming = 'now' | 'next-tick';

export class DriveCommander {
  readonly #commands = new Map<DriveSource, DriveValue>();
  #repeatTimer: TimerId | undefined;
  #periodMs = 1000 / DEFAULT_CONTROL_RATE_HZ;

  constructor(
    private readonly sendDrive: (command: DriveValue) => void,
    private readonly clock: Clock,
  ) {}

  /** The command going out now, or undefined when nobody drives. */
  get active(): DriveValue | undefined {
    for (const source of SOURCES_BY_PRIORITY) {
      const command = this.#commands.get(source);
      if (command) return command;
    }
    return undefined;
  }

  get periodMs(): number {
    return this.#periodMs;
  }

  setRateHz(rateHz: number): void {
    const clamped = Number.isFinite(rateHz) ? Math.min(MAX_RATE_HZ, Math.max(MIN_RATE_HZ, rateHz)) : DEFAULT_CONTROL_RATE_HZ;
    const periodMs = 1000 / clamped;
    if (periodMs === this.#periodMs) return;
    this.#periodMs = periodMs;
    if (this.#repeatTimer !== undefined) this.#startRepeating();
  }

  /**
   * Sets (or, with undefined, withdraws) what one source asks for. A source starting to drive always
   * sends at once; a change while driving sends at once only with `now` (key presses), otherwise on
   * the next tick (analogue sticks, which change every frame).
   */
  set(source: DriveSource, command: DriveValue | undefined, timing: SendTiming): void {
    const wasDriving = this.active !== undefined;
    if (command) this.#commands.set(source, command);
    else this.#commands.delete(source);
    const active = this.active;
    if (!active) {
      if (wasDriving) this.#stop();
      return;
    }
    if (!wasDriving || timing === 'now') {
      this.sendDrive(active);
      this.#startRepeating();
    }
  }

  /** Every source lets go at once (connection lost, window hidden). */
  releaseAll(): void {
    const wasDriving = this.active !== undefined;
    this.#commands.clear();
    if (wasDriving) this.#stop();
  }

  #stop(): void {
    this.#stopRepeating();
    this.sendDrive({ ...ZERO_DRIVE });
  }

  #startRepeating(): void {
    this.#stopRepeating();
    this.#repeatTimer = this.clock.setInterval(() => {
      const active = this.active;
      if (active) this.sendDrive(active);
    }, this.#periodMs);
  }

  #stopRepeating(): void {
    if (this.#repeatTimer === undefined) return;
    this.clock.clearInterval(this.#repeatTimer);
    this.#repeatTimer = undefined;
  }
}
