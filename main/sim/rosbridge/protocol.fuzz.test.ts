// The simulated robot's rosbridge server reads ops from any client: any text, any JSON, and every op
// it serves with fields replaced, removed or added. parseClientOp never throws; it returns a typed op
// or a message that says what was wrong (naming the field for an op it serves) and the op's id when
// one could be read. A published /cmd_vel becomes finite velocities or a refusal, never a guess.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzz, hostileJsonValue, mutatedJson } from '../../../test/support/fuzz.ts';
import { parseClientOp, type ParsedOp } from './protocol.ts';
import { parseTwist } from './twistMessage.ts';

const VALID_OPS = [
  { op: 'advertise', id: 'a1', topic: '/cmd_vel', type: 'geometry_msgs/Twist', latch: false, queue_size: 1 },
  { op: 'unadvertise', id: 'a2', topic: '/cmd_vel' },
  { op: 'publish', id: 7, topic: '/cmd_vel', msg: { linear: { x: 0.1, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } } },
  { op: 'subscribe', id: 's1', topic: '/scan', type: 'sensor_msgs/LaserScan', throttle_rate: 100, queue_length: 1, fragment_size: 1000, compression: 'cbor' },
  { op: 'unsubscribe', id: 's1', topic: '/scan' },
  { op: 'call_service', id: 'c1', service: '/sim/inject', args: { kind: 'stall', durationMs: 100 }, timeout: 2 },
  { op: 'fragment', id: 'f', data: '{"op":', num: 0, total: 2 },
  { op: 'set_level', id: 'l', level: 'info' },
];

function expectClearAnswer(parsed: ParsedOp): void {
  if (parsed.ok) return;
  expect(parsed.message.length).toBeGreaterThan(10);
  if (typeof parsed.id === 'string') expect(parsed.id.length).toBeLessThanOrEqual(256);
  if (typeof parsed.id === 'number') expect(Number.isFinite(parsed.id)).toBe(true);
}

describe('client ops under generated frames', () => {
  it('reads any text as a typed op or a clear refusal', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 120, unit: 'binary' }),
      fc.json({ maxDepth: 3 }),
      fc
        .constantFrom(...VALID_OPS)
        .chain((op) => mutatedJson(op))
        .map((document) => JSON.stringify(document) ?? ''),
    );
    fuzz([text], (input) => expectClearAnswer(parseClientOp(input)), { runs: 2000 });
  });

  it('names the field that is wrong in an op it serves', () => {
    const values = fc.oneof(hostileJsonValue, fc.constantFrom(-1, 1e9, 'x'.repeat(300)));
    fuzz(
      [fc.constantFrom(...VALID_OPS).chain((op) => mutatedJson(op, values).map((document) => ({ op, document })))],
      ({ op, document }) => {
        const parsed = parseClientOp(JSON.stringify(document) ?? '');
        expectClearAnswer(parsed);
        if (parsed.ok || typeof document !== 'object' || document === null || Array.isArray(document) || (document as { op?: unknown }).op !== op.op) return;
        const named = Object.keys({ ...op, ...document }).filter((key) => key !== 'op' && parsed.message.includes(key));
        expect(named, parsed.message).not.toEqual([]);
      },
      { runs: 2000 },
    );
  });

  it('drives only on a finite Twist, and refuses anything else in words', () => {
    const twist = { linear: { x: 0.2, y: 0, z: 0 }, angular: { x: 0, y: 0, z: -0.5 } };
    fuzz(
      [fc.oneof(mutatedJson(twist), fc.jsonValue({ maxDepth: 3 }))],
      (msg) => {
        const parsed = parseTwist(msg);
        if (parsed.ok) expect(Number.isFinite(parsed.command.linearMps) && Number.isFinite(parsed.command.angularRadps)).toBe(true);
        else expect(parsed.message).toMatch(/^not a valid geometry_msgs\/Twist: .+/);
      },
      { runs: 2000 },
    );
  });
});
