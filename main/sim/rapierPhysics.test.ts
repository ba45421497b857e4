import { describe, it, expect } from 'vitest';
import { GOAL_COLOUR, WALL_COLOUR, type Solids } from './arena.ts';
import { DIFF_DRIVE_SPEC } from './diffDrive.ts';
import type { Pose2D } from './geometry.ts';
import { RapierPhysics } from './rapierPhysics.ts';

const STEP_SECS = 0.01;
const SPEC = { radiusM: DIFF_DRIVE_SPEC.bodyRadiusM, heightM: 0.2, massKg: 3.5, halfTrackM: 0.15 };
/** One wall whose west face is at x = 1, and nothing else. */
const ONE_WALL: Solids = {
  boxes: [{ minXM: 1, minYM: -5, maxXM: 1.2, maxYM: 5, heightM: 0.5, colour: WALL_COLOUR }],
  pillars: [],
};

function physicsAt(pose: Pose2D, solids: Solids = ONE_WALL): RapierPhysics {
  return new RapierPhysics(solids, SPEC, pose, STEP_SECS);
}

function run(physics: RapierPhysics, linearMps: number, angularRadps: number, steps: number): boolean {
  let contact = false;
  for (let i = 0; i < steps; i++) contact = physics.step({ linearMps, angularRadps }).contact;
  return contact;
}

describe('RapierPhysics', () => {
  it('moves the body at the wheels’ speed on open floor, with no contact', () => {
    const physics = physicsAt({ xM: -2, yM: 0, yawRad: Math.PI / 2 });
    expect(run(physics, 0.5, 0, 100)).toBe(false);
    const pose = physics.pose();
    // The tyres' grip takes a few steps to bring the body up to speed.
    expect(pose.yM).toBeGreaterThan(0.48);
    expect(pose.yM).toBeLessThanOrEqual(0.5);
    expect(pose.xM).toBeCloseTo(-2, 4);
  });

  it('stops the body at a wall through a real contact, and reports the push while it lasts', () => {
    const physics = physicsAt({ xM: 0, yM: 0, yawRad: 0 });
    expect(run(physics, 0.5, 0, 300)).toBe(true);
    expect(physics.pose().xM).toBeCloseTo(1 - SPEC.radiusM, 2);
    const pressing = physics.step({ linearMps: 0.5, angularRadps: 0 });
    expect(pressing.forwardMps).toBeLessThan(0.05);
    // Resting against the wall without driving into it is not a collision.
    expect(run(physics, 0, 0, 10)).toBe(false);
    expect(run(physics, -0.3, 0, 50)).toBe(false);
    expect(physics.pose().xM).toBeLessThan(1 - SPEC.radiusM - 0.1);
  });

  it('lets a shove move the body, then the tyres’ grip brings it back to the wheels’ speed', () => {
    const physics = physicsAt({ xM: -2, yM: 0, yawRad: 0 });
    physics.kick(0, 1);
    const right = physics.step({ linearMps: 0, angularRadps: 0 });
    expect(right.leftwardMps).toBeGreaterThan(0.9);
    run(physics, 0, 0, 50);
    const after = physics.pose();
    // 1 m/s shed at μg ≈ 7.8 m/s² slides about v²/2a ≈ 6 cm.
    expect(after.yM).toBeGreaterThan(0.04);
    expect(after.yM).toBeLessThan(0.1);
    const still = physics.step({ linearMps: 0, angularRadps: 0 });
    expect(Math.hypot(still.forwardMps, still.leftwardMps)).toBe(0);
  });

  it('shoved into a wall, the body stops there with a contact', () => {
    const physics = physicsAt({ xM: 0.7, yM: 0, yawRad: Math.PI / 2 });
    physics.kick(0, -3);
    let contact = false;
    for (let i = 0; i < 10; i++) contact ||= physics.step({ linearMps: 0, angularRadps: 0 }).contact;
    expect(contact).toBe(true);
    expect(physics.pose().xM).toBeLessThan(1 - SPEC.radiusM + 0.002);
  });

  it('blocks the body with a pillar added mid-run', () => {
    const physics = physicsAt({ xM: -2, yM: 0, yawRad: 0 });
    physics.addPillar({ xM: -1, yM: 0, radiusM: 0.2, heightM: 0.5, colour: GOAL_COLOUR });
    expect(run(physics, 0.5, 0, 300)).toBe(true);
    expect(physics.pose().xM).toBeCloseTo(-1 - 0.2 - SPEC.radiusM, 2);
  });

  it('turns on the spot and teleports to rest', () => {
    const physics = physicsAt({ xM: -2, yM: 0, yawRad: 0 });
    run(physics, 0, 1, 100);
    expect(physics.pose().yawRad).toBeGreaterThan(0.98);
    expect(physics.pose().yawRad).toBeLessThanOrEqual(1);
    expect(Math.hypot(physics.pose().xM + 2, physics.pose().yM)).toBeLessThan(1e-4);
    run(physics, 0, 2, 300);
    expect(Math.abs(physics.pose().yawRad), 'yaw stays within ±π however far it turns').toBeLessThanOrEqual(Math.PI);
    physics.place({ xM: 0.5, yM: 0.5, yawRad: -2 });
    expect(physics.pose().xM).toBeCloseTo(0.5, 6);
    expect(physics.pose().yawRad).toBeCloseTo(-2, 6);
    const outcome = physics.step({ linearMps: 0, angularRadps: 0 });
    expect(Math.abs(outcome.forwardMps) + Math.abs(outcome.leftwardMps) + Math.abs(outcome.angularRadps)).toBe(0);
  });
});
