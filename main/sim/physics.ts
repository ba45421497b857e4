// The boundary between the robot and whatever moves its body. Today a kinematic disc that slides
// along contacts; a rigid-body engine (Rapier) can take its place behind the same interface.
import type { Solids } from './arena.ts';
import { pushDiscOutOfAabb, pushDiscOutOfCircle, wrapAngleRad, type Pose2D } from './geometry.ts';

export interface BodyStepOutcome {
  /** Speed along the robot's heading that the body actually achieved this step. */
  achievedLinearMps: number;
  achievedAngularRadps: number;
  /** The body pressed against a solid during the step. */
  contact: boolean;
}

export interface RobotBodyPhysics {
  pose(): Pose2D;
  /** Teleports the body; throws if the pose overlaps a solid. */
  place(pose: Pose2D): void;
  /** Moves the body for one step at the given velocities (robot frame); solids stop or deflect it. */
  step(linearMps: number, angularRadps: number, dtSecs: number): BodyStepOutcome;
}

/** Passes of contact resolution per step: a disc wedged in a corner needs two, the rest are margin. */
const RESOLUTION_PASSES = 4;

export class KinematicDiscPhysics implements RobotBodyPhysics {
  private current: Pose2D;

  constructor(
    private readonly solids: Solids,
    private readonly radiusM: number,
    startPose: Pose2D,
  ) {
    this.current = { ...startPose };
    this.place(startPose);
  }

  pose(): Pose2D {
    return { ...this.current };
  }

  place(pose: Pose2D): void {
    const resolved = this.resolveContacts(pose.xM, pose.yM);
    if (resolved.contact) {
      throw new RangeError(
        `pose (${pose.xM.toFixed(3)}, ${pose.yM.toFixed(3)}) puts the robot inside a wall or obstacle`,
      );
    }
    this.current = { xM: pose.xM, yM: pose.yM, yawRad: wrapAngleRad(pose.yawRad) };
  }

  step(linearMps: number, angularRadps: number, dtSecs: number): BodyStepOutcome {
    const { xM, yM, yawRad } = this.current;
    // Translate along the mid-step heading: exact for straight lines, second-order on arcs.
    const headingRad = yawRad + (angularRadps * dtSecs) / 2;
    const wantedXM = xM + Math.cos(headingRad) * linearMps * dtSecs;
    const wantedYM = yM + Math.sin(headingRad) * linearMps * dtSecs;
    const resolved = this.resolveContacts(wantedXM, wantedYM);
    // A disc turns freely in place, so only translation is ever blocked.
    const newYawRad = wrapAngleRad(yawRad + angularRadps * dtSecs);
    const achievedLinearMps =
      ((resolved.xM - xM) * Math.cos(headingRad) + (resolved.yM - yM) * Math.sin(headingRad)) / dtSecs;
    this.current = { xM: resolved.xM, yM: resolved.yM, yawRad: newYawRad };
    return { achievedLinearMps, achievedAngularRadps: angularRadps, contact: resolved.contact };
  }

  private resolveContacts(startXM: number, startYM: number): { xM: number; yM: number; contact: boolean } {
    let xM = startXM;
    let yM = startYM;
    let contact = false;
    for (let pass = 0; pass < RESOLUTION_PASSES; pass++) {
      let pushed = false;
      for (const box of this.solids.boxes) {
        const push = pushDiscOutOfAabb(xM, yM, this.radiusM, box);
        if (push === undefined) continue;
        xM += push.xM;
        yM += push.yM;
        pushed = true;
      }
      for (const pillar of this.solids.pillars) {
        const push = pushDiscOutOfCircle(xM, yM, this.radiusM, pillar);
        if (push === undefined) continue;
        xM += push.xM;
        yM += push.yM;
        pushed = true;
      }
      if (!pushed) break;
      contact = true;
    }
    return { xM, yM, contact };
  }
}
