// The robot's body on the Rapier engine: the arena's walls, obstacles and goal pillar are fixed
// colliders, the robot a dynamic upright cylinder that can only slide and turn in the floor plane.
// The wheels are modelled by their grip: each step they pull the body's velocity toward what the
// drive train asks, by no more than tyre friction allows, so a shove makes the robot skid and a wall
// stops it through Rapier's own contact solver.
//
// Rapier is WebAssembly and must be initialised once per process before any world exists. This
// module does that at load (top-level await), so importing main/sim/ is all a caller needs to do.
import RAPIER from '@dimforge/rapier3d-compat';
import type { SolidBox, SolidPillar, Solids } from './arena.ts';
import { wrapAngleRad, type Pose2D } from './geometry.ts';
import type { BodyStepOutcome, BodyVelocity, RobotBodyPhysics } from './physics.ts';

await RAPIER.init();

export interface RobotBodySpec {
  radiusM: number;
  heightM: number;
  massKg: number;
  /** Half the distance between the wheels: the lever arm their grip has on a turn. */
  halfTrackM: number;
}

const GRAVITY_MPS2 = 9.81;
/** Rubber on a smooth floor. */
const TYRE_GRIP_COEFFICIENT = 0.8;
/** The bumper against walls: hard plastic, so the robot slides along what it meets at an angle. */
const BUMPER_FRICTION = 0.1;
/** Contact impulses below this are solver round-off, not a push. */
const CONTACT_IMPULSE_EPSILON_NS = 1e-6;
/** A quarter turn about x: Rapier's cylinders stand along y, the arena's along z. */
const UPRIGHT: RAPIER.Rotation = { x: Math.SQRT1_2, y: 0, z: 0, w: Math.SQRT1_2 };

export class RapierPhysics implements RobotBodyPhysics {
  private readonly world: RAPIER.World;
  private readonly body: RAPIER.RigidBody;
  private readonly collider: RAPIER.Collider;
  private readonly maxLinearChangeMps: number;
  private readonly maxAngularChangeRadps: number;

  constructor(solids: Solids, spec: RobotBodySpec, startPose: Pose2D, stepSecs: number) {
    // The floor is implicit: the body is held in the plane, and gravity only sets the wheels' grip.
    this.world = new RAPIER.World({ x: 0, y: 0, z: 0 });
    this.world.timestep = stepSecs;
    for (const box of solids.boxes) this.addBox(box);
    for (const pillar of solids.pillars) this.addPillar(pillar);
    this.body = this.world.createRigidBody(
      RAPIER.RigidBodyDesc.dynamic()
        .setTranslation(startPose.xM, startPose.yM, spec.heightM / 2)
        .enabledTranslations(true, true, false)
        .enabledRotations(false, false, true)
        .setCanSleep(false),
    );
    this.collider = this.world.createCollider(
      RAPIER.ColliderDesc.cylinder(spec.heightM / 2, spec.radiusM)
        .setRotation(UPRIGHT)
        .setMass(spec.massKg)
        .setRestitution(0)
        .setFriction(BUMPER_FRICTION)
        .setFrictionCombineRule(RAPIER.CoefficientCombineRule.Min),
      this.body,
    );
    const gripAccelMps2 = TYRE_GRIP_COEFFICIENT * GRAVITY_MPS2;
    this.maxLinearChangeMps = gripAccelMps2 * stepSecs;
    // Grip force m·μg at the wheels, over the moment of inertia of a solid disc, ½·m·r².
    this.maxAngularChangeRadps = ((gripAccelMps2 * spec.halfTrackM) / (0.5 * spec.radiusM ** 2)) * stepSecs;
    this.place(startPose);
  }

  pose(): Pose2D {
    const { x, y } = this.body.translation();
    const rotation = this.body.rotation();
    // Rotation about z only (the others are locked): q = ±(0, 0, sin(yaw/2), cos(yaw/2)).
    return { xM: x, yM: y, yawRad: wrapAngleRad(2 * Math.atan2(rotation.z, rotation.w)) };
  }

  place(pose: Pose2D): void {
    const z = this.body.translation().z;
    this.body.setTranslation({ x: pose.xM, y: pose.yM, z }, true);
    this.body.setRotation({ x: 0, y: 0, z: Math.sin(pose.yawRad / 2), w: Math.cos(pose.yawRad / 2) }, true);
    this.body.setLinvel({ x: 0, y: 0, z: 0 }, true);
    this.body.setAngvel({ x: 0, y: 0, z: 0 }, true);
  }

  step(wheels: BodyVelocity): BodyStepOutcome {
    const { yawRad } = this.pose();
    const cosYaw = Math.cos(yawRad);
    const sinYaw = Math.sin(yawRad);
    const velocity = this.body.linvel();
    const wantedXMps = wheels.linearMps * cosYaw;
    const wantedYMps = wheels.linearMps * sinYaw;
    // Forward and sideways slip share one friction budget, so a skid is a vector clamp.
    let changeXMps = wantedXMps - velocity.x;
    let changeYMps = wantedYMps - velocity.y;
    const changeMps = Math.hypot(changeXMps, changeYMps);
    if (changeMps > this.maxLinearChangeMps) {
      changeXMps *= this.maxLinearChangeMps / changeMps;
      changeYMps *= this.maxLinearChangeMps / changeMps;
    }
    this.body.setLinvel({ x: velocity.x + changeXMps, y: velocity.y + changeYMps, z: 0 }, true);
    const spinRadps = this.body.angvel().z;
    const spinChangeRadps = clamp(wheels.angularRadps - spinRadps, this.maxAngularChangeRadps);
    this.body.setAngvel({ x: 0, y: 0, z: spinRadps + spinChangeRadps }, true);

    this.world.step();

    const after = this.body.linvel();
    const { yawRad: newYawRad } = this.pose();
    const cosNew = Math.cos(newYawRad);
    const sinNew = Math.sin(newYawRad);
    return {
      forwardMps: after.x * cosNew + after.y * sinNew,
      leftwardMps: -after.x * sinNew + after.y * cosNew,
      angularRadps: this.body.angvel().z,
      contact: this.pushedBySolid(),
    };
  }

  kick(forwardMps: number, leftwardMps: number): void {
    const { yawRad } = this.pose();
    const velocity = this.body.linvel();
    const cosYaw = Math.cos(yawRad);
    const sinYaw = Math.sin(yawRad);
    this.body.setLinvel(
      {
        x: velocity.x + forwardMps * cosYaw - leftwardMps * sinYaw,
        y: velocity.y + forwardMps * sinYaw + leftwardMps * cosYaw,
        z: 0,
      },
      true,
    );
  }

  addPillar(pillar: SolidPillar): void {
    this.world.createCollider(
      RAPIER.ColliderDesc.cylinder(pillar.heightM / 2, pillar.radiusM)
        .setRotation(UPRIGHT)
        .setTranslation(pillar.xM, pillar.yM, pillar.heightM / 2),
    );
  }

  free(): void {
    this.world.free();
  }

  private addBox(box: SolidBox): void {
    this.world.createCollider(
      RAPIER.ColliderDesc.cuboid((box.maxXM - box.minXM) / 2, (box.maxYM - box.minYM) / 2, box.heightM / 2).setTranslation(
        (box.minXM + box.maxXM) / 2,
        (box.minYM + box.maxYM) / 2,
        box.heightM / 2,
      ),
    );
  }

  /**
   * Whether the contact solver had to push the body away from a solid this step. Rapier keeps
   * speculative contacts a little before surfaces meet, so a pair alone does not mean a touch;
   * the impulse the solver applied does.
   */
  private pushedBySolid(): boolean {
    let pushed = false;
    this.world.contactPairsWith(this.collider, (other) => {
      if (pushed) return;
      this.world.contactPair(this.collider, other, (manifold) => {
        for (let i = 0; i < manifold.numContacts() && !pushed; i++) {
          if (manifold.contactImpulse(i) > CONTACT_IMPULSE_EPSILON_NS) pushed = true;
        }
      });
    });
    return pushed;
  }
}

function clamp(value: number, limit: number): number {
  return Math.min(limit, Math.max(-limit, value));
}
