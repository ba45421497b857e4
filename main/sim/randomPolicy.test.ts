import { describe, it, expect } from 'vitest';
import { RandomPolicy } from './randomPolicy.ts';

/** The commands a policy gives at 10 Hz over `durationSecs`. */
function commandsAt10Hz(policy: RandomPolicy, durationSecs: number): Array<{ linearMps: number; angularRadps: number }> {
  return Array.from({ length: Math.round(durationSecs * 10) }, (_, tick) => policy.command(tick / 10));
}

describe('RandomPolicy', () => {
  it('draws uniformly over the full action range, ±0.6 m/s and ±2 rad/s', () => {
    const draws = commandsAt10Hz(new RandomPolicy(1), 2000).filter((_, tick) => tick % 5 === 0);
    expect(draws).toHaveLength(4000);
    for (const [pick, limit] of [
      [(command: { linearMps: number }) => command.linearMps, 0.6],
      [(command: { angularRadps: number }) => command.angularRadps, 2],
    ] as const) {
      const values = draws.map(pick);
      expect(Math.min(...values)).toBeGreaterThanOrEqual(-limit);
      expect(Math.max(...values)).toBeLessThanOrEqual(limit);
      // Ten equal bins across the range each hold a tenth of the draws, give or take sampling noise (σ ≈ 0.5%).
      const bins = new Array<number>(10).fill(0);
      for (const value of values) bins[Math.min(9, Math.floor(((value + limit) / (2 * limit)) * 10))]! += 1;
      for (const count of bins) expect(Math.abs(count / values.length - 0.1)).toBeLessThan(0.02);
    }
  });

  it('holds each draw for 0.5 s, and replays the same draws for the same seed', () => {
    const commands = commandsAt10Hz(new RandomPolicy(2), 5);
    for (let tick = 0; tick < commands.length; tick++) {
      if (tick % 5 === 0) expect(commands[tick], `tick ${tick} draws anew`).not.toEqual(commands[tick - 1]);
      else expect(commands[tick], `tick ${tick} holds`).toEqual(commands[tick - 1]);
    }
    expect(commandsAt10Hz(new RandomPolicy(2), 5)).toEqual(commands);
    expect(commandsAt10Hz(new RandomPolicy(3), 5)).not.toEqual(commands);
  });
});
