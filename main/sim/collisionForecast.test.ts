import { describe, it, expect } from 'vitest';
import type { Footprints } from './arena.ts';
import { timeToCollisionSecs } from './collisionForecast.ts';

/** A wall whose west face is at x = 1. */
const WALL: Footprints = { boxes: [{ minXM: 1, minYM: -5, maxXM: 1.2, maxYM: 5 }], pillars: [] };

describe('timeToCollisionSecs', () => {
  it('sees a crash coming when the command drives into a wall', () => {
    // At 0.5 m/s, the rim (0.175 m) closes the 0.5 m gap to within 1 cm in about 0.98 s.
    const secs = timeToCollisionSecs({ pose: { xM: 0.325, yM: 0, yawRad: 0 }, linearMps: 0.5, angularRadps: 0 }, { linearMps: 0.5, angularRadps: 0 }, WALL, 2);
    expect(secs).toBeGreaterThan(0.9);
    expect(secs).toBeLessThan(1.05);
  });

  it('allows for the ramp: a stop command from cruising speed still travels its braking distance', () => {
    // From 0.6 m/s at 1.5 m/s², braking takes 0.4 s and about 0.12 m.
    const cruising = (rimGapM: number) => ({ pose: { xM: 1 - 0.175 - rimGapM, yM: 0, yawRad: 0 }, linearMps: 0.6, angularRadps: 0 });
    const stop = { linearMps: 0, angularRadps: 0 };
    expect(timeToCollisionSecs(cruising(0.3), stop, WALL, 2)).toBe(Infinity);
    expect(timeToCollisionSecs(cruising(0.05), stop, WALL, 2)).toBeLessThan(0.4);
  });

  it('is not alarmed by moving away from, or turning beside, a wall it is close to', () => {
    const touching = { pose: { xM: 0.82, yM: 0, yawRad: 0 }, linearMps: 0, angularRadps: 0 };
    expect(timeToCollisionSecs(touching, { linearMps: -0.5, angularRadps: 0 }, WALL, 2)).toBe(Infinity);
    expect(timeToCollisionSecs(touching, { linearMps: 0, angularRadps: 2 }, WALL, 2)).toBe(Infinity);
    expect(timeToCollisionSecs({ ...touching, pose: { xM: 0.82, yM: 0, yawRad: Math.PI / 2 } }, { linearMps: 0.5, angularRadps: 0 }, WALL, 2)).toBe(Infinity);
  });
});
