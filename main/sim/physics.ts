// The boundary between the robot and whatever moves its body: the drive train asks for a body
// velocity, the physics says what the body actually did once solids and shoves had their say.
import type { SolidPillar } from './arena.ts';
import type { Pose2D } from './geometry.ts';

/** A planar body velocity in the robot frame. */
export interface BodyVelocity {
  linearMps: number;
  angularRadps: number;
}

export interface BodyStepOutcome {
  /** The body's velocity after the step, in the robot frame (x forward, y leftward). */
  forwardMps: number;
  leftwardMps: number;
  angularRadps: number;
  /** A solid pushed back on the body during the step (a real contact force, not mere proximity). */
  contact: boolean;
}

export interface RobotBodyPhysics {
  pose(): Pose2D;
  /** Teleports the body and brings it to rest; the caller makes sure the pose is clear. */
  place(pose: Pose2D): void;
  /** Runs one fixed physics step with the wheels driving toward `wheels`; solids stop or deflect it. */
  step(wheels: BodyVelocity): BodyStepOutcome;
  /** Changes the body's velocity at once by this much, in the robot frame (a shove). */
  kick(forwardMps: number, leftwardMps: number): void;
  /** Adds a fixed upright cylinder to the world (an obstacle dropped in mid-episode). */
  addPillar(pillar: SolidPillar): void;
  /** Releases the engine's memory; the body cannot be used afterwards. */
  free(): void;
}
