import { describe, expect, it } from 'vitest';
import { createSimLink } from '../lockstepLink.ts';
import type { GroundTruth } from '../simRobot.ts';
import { TakeoverTally } from './takeoverTally.ts';

const BASE = createSimLink({ arenaSeed: 1, episodeSeed: 1, epochMs: 0 }).robot.groundTruth();
const truthAt = (simTimeSecs: number, collisionCount: number): GroundTruth => ({ ...BASE, simTimeSecs, collisionCount });

/** Plays `drivers` one tick (0.1 s) each, with a collision showing in the truth from tick `collisionTick` on. */
function tally(drivers: string, collisionTick: number | undefined): ReturnType<TakeoverTally['snapshot']> {
  const counter = new TakeoverTally();
  [...drivers].forEach((driver, tick) => {
    const collisions = collisionTick !== undefined && tick >= collisionTick ? 1 : 0;
    counter.observe(truthAt(tick / 10, collisions), driver === 'o' ? 'operator' : 'policy');
  });
  return counter.snapshot();
}

describe('TakeoverTally', () => {
  it('counts a takeover followed by a collision while the operator drives or within 2 s of handing back', () => {
    const drivers = `pp${'o'.repeat(10)}${'p'.repeat(40)}`;
    expect(tally(drivers, undefined)).toEqual({ takeovers: 1, followedByCollision: 0 });
    expect(tally(drivers, 5)).toEqual({ takeovers: 1, followedByCollision: 1 });
    // Handed back at tick 12: a collision showing by tick 32 still counts, one at tick 34 does not.
    expect(tally(drivers, 32)).toEqual({ takeovers: 1, followedByCollision: 1 });
    expect(tally(drivers, 34)).toEqual({ takeovers: 1, followedByCollision: 0 });
    // A collision before the takeover is not its fault.
    expect(tally(drivers, 1)).toEqual({ takeovers: 1, followedByCollision: 0 });
  });

  it('charges a collision to the latest takeover only, once', () => {
    expect(tally('pooppoooppppp', 10)).toEqual({ takeovers: 2, followedByCollision: 1 });
  });
});
