import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../random.ts';
import { UnsteadyHand, type HandParameters } from './unsteadyHand.ts';

const STEADY: HandParameters = { steeringLagSecs: 0.15, steeringOvershootGain: 1.3, linearNoiseFloorMps: 0, angularNoiseFloorRadps: 0, noiseShareOfCommand: 0 };

describe('UnsteadyHand', () => {
  it('follows its intention through a lag and turns harder than meant', () => {
    const hand = new UnsteadyHand(STEADY, new SeededRandom(1));
    const first = hand.move({ linearMps: 0.3, angularRadps: 0.5 }, 0.1);
    const follow = 1 - Math.exp(-0.1 / 0.15);
    expect(first.linearMps).toBeCloseTo(0.3 * follow, 6);
    expect(first.angularRadps).toBeCloseTo(0.65 * follow, 6);
    let settled = first;
    for (let tick = 0; tick < 30; tick++) settled = hand.move({ linearMps: 0.3, angularRadps: 0.5 }, 0.1);
    expect(settled.linearMps).toBeCloseTo(0.3, 3);
    expect(settled.angularRadps).toBeCloseTo(0.65, 3);
  });

  it('starts from the command it takes over, shakes more the harder it pushes, and not at all once let go', () => {
    const hand = new UnsteadyHand(
      { ...STEADY, steeringLagSecs: 0, linearNoiseFloorMps: 0.03, angularNoiseFloorRadps: 0.1, noiseShareOfCommand: 0.1 },
      new SeededRandom(2),
    );
    const spread = (angularRadps: number): number => {
      const turns = Array.from({ length: 4000 }, () => hand.move({ linearMps: 0.1, angularRadps }, 0.1).angularRadps - 1.3 * angularRadps);
      return Math.sqrt(turns.reduce((sum, turn) => sum + turn * turn, 0) / turns.length);
    };
    expect(spread(0)).toBeCloseTo(0.1, 2);
    expect(spread(1)).toBeCloseTo(0.1 + 0.13, 1);
    // Let go of, the stick sends exactly nothing: no tremor on a robot at rest.
    expect(hand.move({ linearMps: 0, angularRadps: 0 }, 0.1)).toEqual({ linearMps: 0, angularRadps: 0 });

    const lagging = new UnsteadyHand(STEADY, new SeededRandom(3));
    lagging.grab({ linearMps: 0.5, angularRadps: 0 });
    expect(lagging.move({ linearMps: 0.1, angularRadps: 0 }, 0.1).linearMps).toBeCloseTo(0.1 + 0.4 * Math.exp(-0.1 / 0.15), 6);
  });
});
