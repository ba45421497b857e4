// What reaches the robot when a policy misbehaves: a policy that answers NaN, infinities or huge
// speeds drives the simulated robot in lockstep through the real control loop, and every command on
// the wire must be a finite number within the safety filter's speed and acceleration limits.
import type { Policy } from '../../main/core/policy.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { actorShape } from '../../main/learning/actor.ts';
import { LearnedPolicy } from '../../main/learning/learnedPolicy.ts';
import { mlpWeightShapes } from '../../main/learning/networks.ts';
import type { DriveCommand } from '../../main/core/messages.ts';
import type { ControlLoop } from '../../main/loop/controlLoop.ts';
import { DEFAULT_SAFETY_LIMITS } from '../../main/safety/safetyFilter.ts';
import { lockstepLoop, type PublishedCommand } from '../support/lockstepLoop.ts';

const openLoops: ControlLoop[] = [];
afterEach(async () => {
  await Promise.all(openLoops.splice(0).map((loop) => loop.close()));
});

/** A policy that says whatever it is told, tick after tick. */
class ScriptedPolicy implements Policy {
  readonly version = 'hostile-1';
  private index = 0;
  constructor(private readonly commands: readonly DriveCommand[]) {}
  act(): DriveCommand {
    return this.commands[this.index++ % this.commands.length]!;
  }
}

async function drive(policy: Policy, ticks: number) {
  const rig = await lockstepLoop({ policy });
  openLoops.push(rig.loop);
  rig.loop.heartbeat();
  rig.loop.setAutonomy(true);
  await rig.ticks(ticks);
  return { published: rig.published, truth: rig.link.robot.groundTruth() };
}

function expectWithinLimits(published: readonly PublishedCommand[]) {
  const limits = DEFAULT_SAFETY_LIMITS;
  expect(published.length).toBeGreaterThan(0);
  let previous = { atMs: -Infinity, linearMps: 0, angularRadps: 0 };
  for (const command of published) {
    expect(Number.isFinite(command.linearMps) && Number.isFinite(command.angularRadps)).toBe(true);
    expect(Math.abs(command.linearMps)).toBeLessThanOrEqual(limits.maxLinearMps + 1e-9);
    expect(Math.abs(command.angularRadps)).toBeLessThanOrEqual(limits.maxAngularRadps + 1e-9);
    // Braking is never limited; speeding up (away from zero) is, by the acceleration limits.
    const dtSecs = Math.min(0.1, (command.atMs - previous.atMs) / 1000);
    expect(speedUp(previous.linearMps, command.linearMps)).toBeLessThanOrEqual(limits.maxLinearAccelMps2 * dtSecs + 1e-9);
    expect(speedUp(previous.angularRadps, command.angularRadps)).toBeLessThanOrEqual(limits.maxAngularAccelRadps2 * dtSecs + 1e-9);
    previous = command;
  }
}

/** How much further from zero a speed went (a reversal counts from zero). */
function speedUp(from: number, to: number): number {
  const start = Math.sign(from) * Math.sign(to) < 0 ? 0 : Math.abs(from);
  return Math.abs(to) - start;
}

describe('a misbehaving policy', () => {
  it('never gets NaN, infinities or huge speeds to the robot', async () => {
    const hostile = new ScriptedPolicy([
      { linearMps: Number.NaN, angularRadps: Number.NaN },
      { linearMps: 1e9, angularRadps: -1e9 },
      { linearMps: Number.POSITIVE_INFINITY, angularRadps: Number.NEGATIVE_INFINITY },
      { linearMps: -1e300, angularRadps: 1e300 },
      { linearMps: 0.2, angularRadps: Number.NaN },
    ]);
    const { published, truth } = await drive(hostile, 40);
    expectWithinLimits(published);
    expect(Math.abs(truth.linearMps)).toBeLessThanOrEqual(DEFAULT_SAFETY_LIMITS.maxLinearMps + 0.05);
  });

  it('holds a learned policy whose network gives NaN at zero, and counts it', () => {
    const shape = actorShape(4, 8, 1);
    const weights = mlpWeightShapes(shape).map((dims) => new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(1e30));
    const policy = new LearnedPolicy({
      version: 'huge-1',
      shape,
      weights,
      norm: { mean: new Float32Array(4), scale: new Float32Array(4).fill(1) },
      limits: [0.5, 1.5],
    });
    const embedding = { values: Float32Array.of(1, -1, Number.NaN, 1e30), mask: { camera: true, lidar: true, proprio: true } };
    const command = policy.act({ embedding, frame: { timeMs: 0, missing: [] } } as never);
    expect(Number.isFinite(command.linearMps) && Number.isFinite(command.angularRadps)).toBe(true);
    expect(Math.abs(command.linearMps)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(command.angularRadps)).toBeLessThanOrEqual(1.5);
    policy.dispose();
  });

  it('refuses a learned policy whose weights are not finite', () => {
    const shape = actorShape(4, 8, 1);
    const weights = mlpWeightShapes(shape).map((dims) => new Float32Array(dims.reduce((a, b) => a * b, 1)));
    weights[0]![3] = Number.NaN;
    expect(
      () =>
        new LearnedPolicy({ version: 'nan-1', shape, weights, norm: { mean: new Float32Array(4), scale: new Float32Array(4).fill(1) }, limits: [0.5, 1.5] }),
    ).toThrow(/not finite/);
  });
});
