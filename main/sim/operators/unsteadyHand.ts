// A person's hand on the stick: it follows what the person means through a short lag, turns harder
// than the path needs (so a heading correction overshoots and is corrected back), and shakes more the
// harder it pushes.
import type { DriveCommand } from '../../core/messages.ts';
import { DIFF_DRIVE_SPEC } from '../diffDrive.ts';
import type { SeededRandom } from '../random.ts';
import type { RealisticOperatorParameters } from './realisticParameters.ts';

export type HandParameters = Pick<
  RealisticOperatorParameters,
  'steeringLagSecs' | 'steeringOvershootGain' | 'linearNoiseFloorMps' | 'angularNoiseFloorRadps' | 'noiseShareOfCommand'
>;

export class UnsteadyHand {
  /** Where the stick is, before the tremor: the lagged intention. */
  private held: DriveCommand = { linearMps: 0, angularRadps: 0 };

  constructor(
    private readonly parameters: HandParameters,
    private readonly random: SeededRandom,
  ) {}

  /** Takes the stick where it is: the command the robot was last given. */
  grab(current: DriveCommand): void {
    this.held = { ...current };
  }

  /** One tick of `dtSecs` toward `intended`: the command the hand actually gives. */
  move(intended: DriveCommand, dtSecs: number): DriveCommand {
    if (intended.linearMps === 0 && intended.angularRadps === 0) {
      // Nothing meant (docked, or no way on): the hand lets go, and a released stick sends exactly nothing.
      this.held = { linearMps: 0, angularRadps: 0 };
      return { linearMps: 0, angularRadps: 0 };
    }
    const { steeringLagSecs, steeringOvershootGain, linearNoiseFloorMps, angularNoiseFloorRadps, noiseShareOfCommand } = this.parameters;
    const follow = steeringLagSecs > 0 ? 1 - Math.exp(-dtSecs / steeringLagSecs) : 1;
    this.held = {
      linearMps: this.held.linearMps + follow * (intended.linearMps - this.held.linearMps),
      angularRadps: this.held.angularRadps + follow * (steeringOvershootGain * intended.angularRadps - this.held.angularRadps),
    };
    const { linearMps, angularRadps } = this.held;
    const { maxLinearMps, maxAngularRadps } = DIFF_DRIVE_SPEC;
    return {
      linearMps: clamp(linearMps + (linearNoiseFloorMps + noiseShareOfCommand * Math.abs(linearMps)) * this.random.gaussian(), maxLinearMps),
      angularRadps: clamp(angularRadps + (angularNoiseFloorRadps + noiseShareOfCommand * Math.abs(angularRadps)) * this.random.gaussian(), maxAngularRadps),
    };
  }
}

function clamp(value: number, limit: number): number {
  return Math.min(limit, Math.max(-limit, value));
}
