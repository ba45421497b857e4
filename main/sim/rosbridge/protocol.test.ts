import { describe, expect, it } from 'vitest';
import { parseInjection } from './injectionSchema.ts';
import { parseClientOp } from './protocol.ts';
import { parseTwist } from './twistMessage.ts';

describe('parseClientOp', () => {
  it('accepts the ops roslib sends, ignoring fields the robot has no use for', () => {
    const parsed = parseClientOp(
      JSON.stringify({
        op: 'subscribe',
        id: 'subscribe:/scan:1',
        type: 'sensor_msgs/LaserScan',
        topic: '/scan',
        compression: 'cbor',
        throttle_rate: 0,
        queue_length: 0,
      }),
    );
    expect(parsed.ok && parsed.op.op).toBe('subscribe');
    const advertise = parseClientOp(
      JSON.stringify({ op: 'advertise', id: 'a', type: 'geometry_msgs/Twist', topic: '/cmd_vel', latch: false, queue_size: 100 }),
    );
    expect(advertise.ok).toBe(true);
  });

  it.each([
    ['bad JSON', '{"op":', /not valid JSON/, undefined],
    ['a JSON array', '[1,2]', /JSON object/, undefined],
    ['no op', '{"id":"q1"}', /no string "op"/, 'q1'],
    ['an unknown op (fixture bad-requests-no-reply)', '{"op":"nope","id":"x1"}', /unknown op "nope"/, 'x1'],
    ['an op this robot does not serve', '{"op":"advertise_service","id":"s1","service":"/x","type":"std_srvs/Empty"}', /not served/, 's1'],
    ['a wrong-typed field (fixture bad-requests-no-reply)', '{"op":"subscribe","id":"x2","topic":123}', /topic/, 'x2'],
    ['a negative throttle', '{"op":"subscribe","id":"t","topic":"/scan","throttle_rate":-1}', /throttle_rate/, 't'],
    ['a tiny fragment size', '{"op":"subscribe","id":"f","topic":"/scan","fragment_size":1}', /fragment_size/, 'f'],
    ['a fragment without data', '{"op":"fragment","id":"g","num":0,"total":2}', /data/, 'g'],
  ])('refuses %s, saying what was wrong and echoing the id', (_name, text, reason, id) => {
    const parsed = parseClientOp(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.message).toMatch(reason);
    expect(parsed.id).toBe(id);
  });
});

describe('parseTwist', () => {
  it('takes linear.x and angular.z, with missing fields as zero like rosbridge', () => {
    expect(parseTwist({ linear: { x: 0.2, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.5 } })).toMatchObject({
      ok: true,
      command: { linearMps: 0.2, angularRadps: 0.5 },
    });
    expect(parseTwist({ linear: { x: 0.3 } })).toMatchObject({ ok: true, command: { linearMps: 0.3, angularRadps: 0 } });
  });

  it.each([
    ['a string for a vector (fixture bad-requests-no-reply)', { linear: 'fast' }],
    ['null where JSON lost a NaN', { linear: { x: null } }],
    ['an unknown field', { linear: { x: 1 }, boost: true }],
    ['a non-object', 42],
  ])('refuses %s', (_name, msg) => {
    const parsed = parseTwist(msg);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toContain('geometry_msgs/Twist');
  });
});

describe('parseInjection', () => {
  it('accepts a SimInjection as JSON and refuses a malformed or out-of-range one', () => {
    expect(parseInjection({ kind: 'shove', forwardMps: 0.5, leftwardMps: 0 })).toEqual({
      ok: true,
      injection: { kind: 'shove', forwardMps: 0.5, leftwardMps: 0 },
    });
    expect(parseInjection({ kind: 'flood', stream: 'imu', rateHz: 500, durationMs: 1000 }).ok).toBe(true);
    expect(parseInjection({ kind: 'teleport' }).ok).toBe(false);
    expect(parseInjection({ kind: 'stall', durationMs: '1s' }).ok).toBe(false);
    expect(parseInjection({ kind: 'stall', durationMs: 10, extra: 1 }).ok).toBe(false);
    const tooHard = parseInjection({ kind: 'shove', forwardMps: 50, leftwardMps: 0 });
    expect(tooHard.ok).toBe(false);
    expect(!tooHard.ok && tooHard.message).toMatch(/forwardMps/);
  });
});
