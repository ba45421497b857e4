// `/sim/inject` takes its args from any rosbridge client: any JSON, and every injection kind with its
// fields replaced, removed or joined by unknown ones. The answer is an injection within the sim's
// limits or a refusal whose message names the field; nothing is thrown.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzz, hostileJsonValue, mutatedJson } from '../../../test/support/fuzz.ts';
import { checkInjection } from '../injection.ts';
import { parseInjection } from './injectionSchema.ts';

const VALID = [
  { kind: 'shove', forwardMps: 0.5, leftwardMps: 0 },
  { kind: 'drop-obstacle', distanceM: 1, radiusM: 0.2 },
  { kind: 'freeze-camera', durationMs: 500 },
  { kind: 'blackout-lidar', durationMs: 500 },
  { kind: 'flood', stream: 'camera', rateHz: 50, durationMs: 1000 },
  { kind: 'stall', durationMs: 200 },
];

describe('/sim/inject args under generated input', () => {
  it('accepts an injection within limits, or refuses it naming the field', () => {
    const value = fc.oneof(hostileJsonValue, fc.constantFrom('shove', 'flood', 'camera', 'points', -1e9, 1e9));
    const args = fc.oneof(fc.jsonValue({ maxDepth: 3 }), ...VALID.map((injection) => mutatedJson(injection, value)));
    fuzz(
      [args],
      (input) => {
        const parsed = parseInjection(input);
        if (parsed.ok) {
          expect(() => checkInjection(parsed.injection)).not.toThrow();
          return;
        }
        expect(parsed.message.length).toBeGreaterThan(10);
        if (
          typeof input === 'object' &&
          input !== null &&
          !Array.isArray(input) &&
          VALID.some((injection) => injection.kind === (input as { kind?: unknown }).kind)
        ) {
          const named = Object.keys({ ...VALID.find((injection) => injection.kind === (input as { kind?: unknown }).kind), ...input }).filter((key) =>
            parsed.message.includes(key),
          );
          expect(named, parsed.message).not.toEqual([]);
        }
      },
      { runs: 3000 },
    );
  });
});
