// The robot's drive train as its motor controller sees it: a body command is clamped to the speed
// limits, ramped within the acceleration limits, and split into two wheel speeds. The real wheels
// are slightly off their nominal radius, which is why odometry (which assumes nominal) drifts.
import type { DriveCommand, JointState } from '../core/messages.ts';
import type { BodyStepOutcome, BodyVelocity } from './physics.ts';

export const DIFF_DRIVE_SPEC = Object.freeze({
  bodyRadiusM: 0.175,
  bodyHeightM: 0.2,
  /** Nominal radius: what the controller and odometry assume. */
  wheelRadiusM: 0.05,
  trackM: 0.3,
  maxLinearMps: 0.6,
  maxAngularRadps: 2,
  maxLinearAccelMps2: 1.5,
  maxAngularAccelRadps2: 6,
  massKg: 3.5,
});

export const WHEEL_JOINT_NAMES: readonly string[] = ['left_wheel_joint', 'right_wheel_joint'];

/** Both true radii are a little under nominal so the true speed never exceeds the limit. */
const TRUE_LEFT_WHEEL_RADIUS_M = 0.0499;
const TRUE_RIGHT_WHEEL_RADIUS_M = 0.0497;
/** Rolling and gearbox losses, as a force per wheel proportional to wheel speed. */
const ROLLING_DRAG_NSPM = 1.2;
/** What a motor delivers when the wheel is held still against a wall. */
const STALL_TORQUE_NM = 0.6;

interface Wheel {
  /** -1 for the left wheel, +1 for the right: which way a turn to the left moves it. */
  side: -1 | 1;
  trueRadiusM: number;
  positionRad: number;
  velocityRadps: number;
  effortNm: number;
}

export class DiffDriveBase {
  /** The controller's ramped body speeds: what it is currently asking the wheels for. */
  private rampedLinearMps = 0;
  private rampedAngularRadps = 0;
  private readonly left: Wheel = newWheel(-1, TRUE_LEFT_WHEEL_RADIUS_M);
  private readonly right: Wheel = newWheel(1, TRUE_RIGHT_WHEEL_RADIUS_M);

  /** Advances the controller one step toward the command; returns the velocity the real wheels give. */
  drive(command: DriveCommand, dtSecs: number): BodyVelocity {
    const spec = DIFF_DRIVE_SPEC;
    const previousLinearMps = this.rampedLinearMps;
    const previousAngularRadps = this.rampedAngularRadps;
    this.rampedLinearMps = approach(previousLinearMps, clamp(command.linearMps, spec.maxLinearMps), spec.maxLinearAccelMps2 * dtSecs);
    this.rampedAngularRadps = approach(previousAngularRadps, clamp(command.angularRadps, spec.maxAngularRadps), spec.maxAngularAccelRadps2 * dtSecs);
    this.setWheelsFromRamp();

    const linearAccelMps2 = (this.rampedLinearMps - previousLinearMps) / dtSecs;
    const angularAccelRadps2 = (this.rampedAngularRadps - previousAngularRadps) / dtSecs;
    for (const wheel of this.wheels()) {
      const accelMps2 = linearAccelMps2 + (wheel.side * spec.trackM * angularAccelRadps2) / 2;
      const forceN = (spec.massKg / 2) * accelMps2 + ROLLING_DRAG_NSPM * wheel.velocityRadps * spec.wheelRadiusM;
      wheel.effortNm = forceN * spec.wheelRadiusM;
    }

    const leftMps = this.left.velocityRadps * this.left.trueRadiusM;
    const rightMps = this.right.velocityRadps * this.right.trueRadiusM;
    return { linearMps: (leftMps + rightMps) / 2, angularRadps: (rightMps - leftMps) / spec.trackM };
  }

  /**
   * Takes in what the body actually did. When a solid held the body back the wheels turned only as
   * far as it moved and the motors pushed at stall torque; a shove, by contrast, makes the tyres skid
   * while the motors hold their speed, which is why odometry does not see it.
   */
  settle(outcome: BodyStepOutcome, dtSecs: number): void {
    if (outcome.contact) {
      const pushDirections = this.wheels().map((wheel) => Math.sign(wheel.velocityRadps));
      const meanTrueRadiusM = (this.left.trueRadiusM + this.right.trueRadiusM) / 2;
      this.rampedLinearMps = (outcome.forwardMps * DIFF_DRIVE_SPEC.wheelRadiusM) / meanTrueRadiusM;
      this.setWheelsFromRamp();
      this.wheels().forEach((wheel, index) => {
        wheel.effortNm = (pushDirections[index] ?? 0) * STALL_TORQUE_NM;
      });
    }
    for (const wheel of this.wheels()) wheel.positionRad += wheel.velocityRadps * dtSecs;
  }

  wheelVelocities(): { leftRadps: number; rightRadps: number } {
    return { leftRadps: this.left.velocityRadps, rightRadps: this.right.velocityRadps };
  }

  jointState(): JointState {
    const wheels = this.wheels();
    return {
      kind: 'JointState',
      names: [...WHEEL_JOINT_NAMES],
      positionsRad: Float64Array.from(wheels, (wheel) => wheel.positionRad),
      velocitiesRadps: Float64Array.from(wheels, (wheel) => wheel.velocityRadps),
      effortsNm: Float64Array.from(wheels, (wheel) => wheel.effortNm),
    };
  }

  private wheels(): readonly [Wheel, Wheel] {
    return [this.left, this.right];
  }

  private setWheelsFromRamp(): void {
    for (const wheel of this.wheels()) {
      const speedMps = this.rampedLinearMps + (wheel.side * this.rampedAngularRadps * DIFF_DRIVE_SPEC.trackM) / 2;
      wheel.velocityRadps = speedMps / DIFF_DRIVE_SPEC.wheelRadiusM;
    }
  }
}

function newWheel(side: -1 | 1, trueRadiusM: number): Wheel {
  return { side, trueRadiusM, positionRad: 0, velocityRadps: 0, effortNm: 0 };
}

function clamp(value: number, limit: number): number {
  return Math.min(limit, Math.max(-limit, value));
}

function approach(current: number, target: number, maxChange: number): number {
  return current + Math.min(maxChange, Math.max(-maxChange, target - current));
}
