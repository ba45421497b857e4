// Wheel odometry as the robot's own firmware computes it: integrate the encoders' wheel speeds with
// the nominal wheel radius and track. The real wheels differ slightly and the encoders are a little
// noisy, so the estimate drifts away from the true pose, as on any real base.
import type { Odometry } from '../core/messages.ts';
import { DIFF_DRIVE_SPEC } from './diffDrive.ts';
import { wrapAngleRad } from './geometry.ts';
import type { SeededRandom } from './random.ts';

/** The odometry's fixed frame (where the robot started) and the robot's own frame, on the floor under its centre. */
export const ODOM_FRAME_ID = 'odom';
export const BASE_FRAME_ID = 'base_link';

/** Relative error of each encoder reading: proportional, so a wheel at rest reads exactly zero. */
const ENCODER_NOISE_FRACTION = 0.01;

export class WheelOdometry {
  private xM = 0;
  private yM = 0;
  private yawRad = 0;
  private linearMps = 0;
  private angularRadps = 0;

  constructor(private readonly random: SeededRandom) {}

  /** Integrates one physics step of measured wheel speeds. The odom frame starts where the robot did. */
  integrate(leftWheelRadps: number, rightWheelRadps: number, dtSecs: number): void {
    const { wheelRadiusM, trackM } = DIFF_DRIVE_SPEC;
    const leftMps = leftWheelRadps * (1 + ENCODER_NOISE_FRACTION * this.random.gaussian()) * wheelRadiusM;
    const rightMps = rightWheelRadps * (1 + ENCODER_NOISE_FRACTION * this.random.gaussian()) * wheelRadiusM;
    this.linearMps = (leftMps + rightMps) / 2;
    this.angularRadps = (rightMps - leftMps) / trackM;
    const headingRad = this.yawRad + (this.angularRadps * dtSecs) / 2;
    this.xM += Math.cos(headingRad) * this.linearMps * dtSecs;
    this.yM += Math.sin(headingRad) * this.linearMps * dtSecs;
    this.yawRad = wrapAngleRad(this.yawRad + this.angularRadps * dtSecs);
  }

  message(): Odometry {
    return {
      kind: 'Odometry',
      frameId: ODOM_FRAME_ID,
      childFrameId: BASE_FRAME_ID,
      odomFromBaseXM: this.xM,
      odomFromBaseYM: this.yM,
      odomFromBaseYawRad: this.yawRad,
      linearMps: this.linearMps,
      angularRadps: this.angularRadps,
    };
  }
}
