// Every frame a broken or hostile rosbridge server could send, through the link's whole incoming path
// (socket → transport → roslib → session → live connection → decoders): text that is not JSON, bytes
// that are not CBOR, and frames that look right but carry wrong types in known fields (publish,
// service_response, status, fragment, png), as JSON text and as CBOR. Nothing may escape the socket
// handler, the link stays present, a pending service call still settles (answered, refused or timed
// out), and every alert says in words what was wrong, never a bare JavaScript error.
import { Encoder } from 'cbor-x';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeSocketPort } from '../../../test/fakes/fakeSocketPort.ts';
import { ManualClock } from '../../../test/fakes/manualClock.ts';
import { fuzzAsync } from '../../../test/support/fuzz.ts';
import { RosbridgeLink } from './rosbridgeLink.ts';

const cbor = new Encoder({ useRecords: false, tagUint8Array: false, variableMapSize: true });
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What a JavaScript runtime error says: an alert worded like this is a bug, not a clear message. */
const RUNTIME_ERROR =
  /Cannot read propert|Cannot convert|is not a function|is not iterable|is not defined|undefined is not|null is not|Maximum call stack|Invalid array length/;

const TOPICS = ['/scan', '/camera/image_raw', '/joint_states', '/odom', '/imu'];
const TYPES = ['sensor_msgs/LaserScan', 'sensor_msgs/Image', 'sensor_msgs/JointState', 'nav_msgs/Odometry', 'sensor_msgs/Imu'];
const HEADER = { seq: 1, stamp: { secs: 10, nsecs: 5 }, frame_id: 'f' };
const TEMPLATES: Record<string, Record<string, unknown>> = {
  '/scan': {
    header: HEADER,
    angle_min: -1,
    angle_max: 1,
    angle_increment: 0.5,
    time_increment: 0,
    scan_time: 0.1,
    range_min: 0.1,
    range_max: 8,
    ranges: [1, null, 2, 3, 4],
    intensities: [],
  },
  '/camera/image_raw': { header: HEADER, height: 1, width: 2, encoding: 'rgb8', is_bigendian: 0, step: 6, data: 'AAECAwQF' },
  '/joint_states': { header: HEADER, name: ['a'], position: [1], velocity: [0], effort: [] },
  '/odom': {
    header: HEADER,
    child_frame_id: 'base',
    pose: { pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } } },
    twist: { twist: { linear: { x: 0, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } } },
  },
  '/imu': { header: HEADER, orientation: { x: 0, y: 0, z: 0, w: 1 }, angular_velocity: { x: 0, y: 0, z: 0 }, linear_acceleration: { x: 0, y: 0, z: 0 } },
};

/** Values that break careless code: wrong types, odd numbers, objects that refuse to become text. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    Number.MAX_VALUE,
    '',
    'x',
    [],
    {},
    [null],
    { toString: 1 },
    { valueOf: 'x', toString: {} },
    { length: -1 },
    { __proto__: null, a: 1 },
  ),
  fc.string({ maxLength: 12 }),
  fc.double(),
  fc.uint8Array({ maxLength: 16 }),
  fc.anything({ maxDepth: 2, key: fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('toString', 'valueOf', 'op', 'id', 'msg', 'values', 'length')) }),
);

/** A message for a subscribed topic with some fields replaced or removed. */
const publishFrame = fc.constantFrom(...TOPICS).chain((topic) => {
  const template = TEMPLATES[topic]!;
  const patch = fc.dictionary(fc.constantFrom(...Object.keys(template)), fc.option(hostileValue, { nil: undefined }), { maxKeys: 3 });
  return fc.record({
    op: fc.constant('publish'),
    topic: fc.oneof(fc.constant(topic), hostileValue),
    msg: fc.oneof({ weight: 4, arbitrary: patch.map((changes) => ({ ...template, ...changes })) }, hostileValue),
  });
});

/** A frame's content before it is put on the wire; `pending` picks one of the link's open service calls. */
type FrameSpec =
  | { wire: 'text'; text: string }
  | { wire: 'bytes'; bytes: Uint8Array }
  | { wire: 'json' | 'cbor'; message: unknown }
  | { wire: 'json' | 'cbor'; response: { pending: number; result: unknown; values: unknown; extra: Record<string, unknown> } }
  | { wire: 'fragments'; message: unknown; size: number; total: unknown; drop: number };

const plausibleMessage: fc.Arbitrary<unknown> = fc.oneof(
  publishFrame,
  fc.record(
    { op: fc.constant('status'), level: fc.oneof(fc.constantFrom('error', 'warning', 'info'), hostileValue), msg: hostileValue },
    { requiredKeys: ['op'] },
  ),
  fc.record({ op: fc.constant('service_response'), id: hostileValue, result: hostileValue, values: hostileValue }, { requiredKeys: ['op'] }),
  fc.record({ op: fc.constant('png'), data: fc.oneof(fc.base64String({ maxLength: 40 }), hostileValue) }),
  fc.record({ op: fc.constant('fragment'), id: hostileValue, data: hostileValue, num: hostileValue, total: hostileValue }, { requiredKeys: ['op'] }),
  fc
    .record({
      op: fc.oneof(fc.constantFrom('publish', 'service_response', 'status', 'call_service', 'subscribe', 'png', 'fragment', 'set_level'), hostileValue),
    })
    .chain((head) => fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 4 }).map((rest) => ({ ...rest, ...head }))),
  hostileValue,
);

const frameSpec: fc.Arbitrary<FrameSpec> = fc.oneof(
  fc.record({
    wire: fc.constant('text' as const),
    text: fc.oneof(
      fc.string({ maxLength: 60, unit: 'binary' }),
      fc.json({ maxDepth: 3 }),
      fc.constantFrom('{"op":', '{"op":"publish"', '[]', 'null', '1e999', '"op"'),
    ),
  }),
  fc.record({
    wire: fc.constant('bytes' as const),
    bytes: fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      fc.constantFrom(Uint8Array.of(0xa1, 0x62, 0x6f, 0x70), Uint8Array.of(0xbf), Uint8Array.of(0xd9, 0xd9, 0xf7)),
    ),
  }),
  fc.record({ wire: fc.constantFrom('json' as const, 'cbor' as const), message: plausibleMessage }),
  fc.record({
    wire: fc.constantFrom('json' as const, 'cbor' as const),
    response: fc.record({
      pending: fc.nat(),
      result: fc.oneof(fc.boolean(), hostileValue),
      values: hostileValue,
      extra: fc.dictionary(fc.constantFrom('service', 'type', 'values'), hostileValue, { maxKeys: 2 }),
    }),
  }),
  fc.record({
    wire: fc.constant('fragments' as const),
    message: plausibleMessage,
    size: fc.integer({ min: 1, max: 40 }),
    total: fc.oneof(fc.constant('exact'), hostileValue),
    drop: fc.integer({ min: -1, max: 5 }),
  }),
);

function toWire(spec: FrameSpec, pendingIds: readonly string[]): Array<string | ArrayBuffer> {
  const encode = (message: unknown, wire: 'json' | 'cbor'): string | ArrayBuffer => {
    if (wire === 'json') return JSON.stringify(message) ?? 'undefined';
    const bytes = cbor.encode(message);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  };
  switch (spec.wire) {
    case 'text':
      return [spec.text];
    case 'bytes':
      return [spec.bytes.slice().buffer];
    case 'fragments': {
      const text = JSON.stringify(spec.message) ?? 'null';
      const pieces: string[] = [];
      for (let at = 0; at < text.length; at += spec.size) pieces.push(text.slice(at, at + spec.size));
      const total = spec.total === 'exact' ? pieces.length : spec.total;
      return pieces.filter((_, index) => index !== spec.drop).map((data, num) => JSON.stringify({ op: 'fragment', id: 0, data, num, total }));
    }
    default:
      if ('response' in spec) {
        const { pending, result, values, extra } = spec.response;
        const id = pendingIds.length > 0 ? pendingIds[pending % pendingIds.length] : 'none';
        return [encode({ ...extra, op: 'service_response', id, result, values }, spec.wire)];
      }
      return [encode(spec.message, spec.wire)];
  }
}

async function presentLink() {
  const clock = new ManualClock();
  const sockets: FakeSocketPort[] = [];
  const link = new RosbridgeLink({
    url: 'ws://robot.local:9090',
    clock,
    random: () => 0,
    openSocket: () => {
      const socket = new FakeSocketPort();
      sockets.push(socket);
      return socket;
    },
  });
  await settle();
  const socket = sockets[0]!;
  socket.open();
  for (const topic of TOPICS) link.subscribe(topic, () => undefined);
  // Discovery answered, so every topic is subscribed and its messages reach the decoders.
  const discovery = socket.sentMessages().find((message) => message['service'] === '/rosapi/topics')!;
  socket.receive(JSON.stringify({ op: 'service_response', id: discovery['id'], result: true, values: { topics: TOPICS, types: TYPES } }));
  await settle();
  return { clock, socket, link };
}

describe('the rosbridge link under generated frames', () => {
  it('survives any frame sequence: present, every alert in words, every service call settled', async () => {
    await fuzzAsync(
      [fc.array(frameSpec, { minLength: 1, maxLength: 6 })],
      async (specs) => {
        const { clock, socket, link } = await presentLink();
        try {
          const outcome: { settled: boolean; error?: unknown } = { settled: false };
          link.callService('/probe', 'std_srvs/Trigger', {}, 500).then(
            () => (outcome.settled = true),
            (error: unknown) => Object.assign(outcome, { settled: true, error }),
          );
          const pendingIds = socket
            .sentMessages()
            .filter((message) => message['op'] === 'call_service')
            .map((message) => String(message['id']));
          for (const spec of specs) for (const frame of toWire(spec, pendingIds)) socket.receive(frame);
          await settle();
          clock.advance(600);
          await settle();
          expect(link.presence()).toBe('present');
          expect(outcome.settled).toBe(true);
          if (outcome.error !== undefined) {
            expect(outcome.error).toBeInstanceOf(Error);
            expect((outcome.error as Error).message).toMatch(/\/probe/);
            expect((outcome.error as Error).message).not.toMatch(RUNTIME_ERROR);
          }
          for (const alert of link.alerts()) {
            expect(typeof alert.message).toBe('string');
            expect(alert.message.length).toBeGreaterThan(0);
            expect(alert.message).not.toMatch(RUNTIME_ERROR);
          }
        } finally {
          await link.close();
        }
      },
      { runs: 1500 },
    );
  });
});
