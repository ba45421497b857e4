// The floor every learned policy must beat: commands drawn uniformly over the robot's whole action
// range and held for a fixed time, blind to everything. Seeded, so a benchmark row is reproducible.
import type { DriveCommand } from '../core/messages.ts';
import { DIFF_DRIVE_SPEC } from './diffDrive.ts';
import { deriveSeed, SeededRandom } from './random.ts';

export const RANDOM_POLICY_RESAMPLE_SECS = 0.5;

export class RandomPolicy {
  private readonly random: SeededRandom;
  private current: DriveCommand = { linearMps: 0, angularRadps: 0 };
  private nextDrawSecs = -Infinity;

  constructor(
    seed: number,
    private readonly resampleSecs = RANDOM_POLICY_RESAMPLE_SECS,
  ) {
    if (!(resampleSecs > 0)) throw new RangeError(`resampleSecs must be > 0, got ${resampleSecs}`);
    this.random = new SeededRandom(deriveSeed('random-policy', seed));
  }

  /** The command at this simulated time: a fresh uniform draw once the last one has been held long enough. */
  command(simTimeSecs: number): DriveCommand {
    if (simTimeSecs >= this.nextDrawSecs - 1e-9) {
      const { maxLinearMps, maxAngularRadps } = DIFF_DRIVE_SPEC;
      this.current = {
        linearMps: this.random.uniform(-maxLinearMps, maxLinearMps),
        angularRadps: this.random.uniform(-maxAngularRadps, maxAngularRadps),
      };
      this.nextDrawSecs = simTimeSecs + this.resampleSecs;
    }
    return this.current;
  }
}
