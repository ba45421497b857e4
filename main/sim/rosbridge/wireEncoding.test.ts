// The simulated robot encodes messages the way a real rosbridge_server (ROS 1) does: checked
// against frames captured from one (test/fixtures/rosbridge-ros1/, a copy of the shared fixtures).
import { readFileSync } from 'node:fs';
import { decode as decodeCbor } from 'cbor-x';
import { decode as decodePng } from 'fast-png';
import { describe, expect, it } from 'vitest';
import type { Image, Imu, JointState, LaserScan, Odometry } from '../../core/messages.ts';
import { FragmentAssembler, fragmentText } from './fragments.ts';
import { OutgoingMessage } from './outgoingMessage.ts';
import { rosImage, rosImu, rosJointState, rosLaserScan, rosOdometry, type RosHeader, type RosMessage, type Stamping } from './rosMessages.ts';
import { encodeCbor, encodeJson, encodePng } from './wireEncoding.ts';

interface FixtureFrame {
  dir: 'client' | 'server';
  kind: 'text' | 'binary';
  data?: string;
  base64?: string;
}

const FIXTURES = new URL('../../../test/fixtures/rosbridge-ros1/', import.meta.url);

function serverFrames(name: string): FixtureFrame[] {
  return readFileSync(new URL(`${name}.jsonl`, FIXTURES), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as FixtureFrame)
    .filter((frame) => frame.dir === 'server');
}

function firstText(name: string): string {
  return serverFrames(name)[0]!.data!;
}

function firstBinary(name: string): Uint8Array {
  return new Uint8Array(Buffer.from(serverFrames(name)[0]!.base64!, 'base64'));
}

interface PublishOp {
  op: 'publish';
  topic: string;
  msg: { header: RosHeader } & Record<string, unknown>;
}

/** Each leaf's path and kind, in key order: field names, order, and JSON vs CBOR forms all show. */
function shapeOf(value: unknown, path = ''): string[] {
  if (value === null) return [`${path}: null`];
  if (value instanceof Float32Array) return [`${path}: float32[] (tag 85)`];
  if (value instanceof Float64Array) return [`${path}: float64[] (tag 86)`];
  if (value instanceof Uint8Array) return [`${path}: byte string`];
  if (Array.isArray(value)) return [`${path}: array`, ...value.flatMap((item, index) => shapeOf(item, `${path}[${index}]`))];
  if (typeof value === 'object') return Object.entries(value as object).flatMap(([key, field]) => shapeOf(field, `${path}.${key}`));
  return [`${path}: ${typeof value}`];
}

/** Our message for the fixture's, with the fixture's header (stamps are ours to choose). */
function publishOp(topic: string, msg: RosMessage, header: RosHeader): PublishOp {
  return { op: 'publish', topic, msg: { ...msg, header } } as PublishOp;
}

const STAMPING: Stamping = { seq: 1, stampMs: 0, scanPeriodSecs: 0.1 };

function imageFrom(fixture: PublishOp): Image {
  const msg = fixture.msg as unknown as { header: RosHeader; width: number; height: number; encoding: Image['encoding']; step: number; data: Uint8Array };
  return {
    kind: 'Image',
    frameId: msg.header.frame_id,
    width: msg.width,
    height: msg.height,
    encoding: msg.encoding,
    step: msg.step,
    data: new Uint8Array(msg.data),
  };
}

function scanFrom(fixture: PublishOp): LaserScan {
  const msg = fixture.msg as unknown as { header: RosHeader; ranges: Float32Array };
  const beams = msg.ranges.length;
  return {
    kind: 'LaserScan',
    frameId: msg.header.frame_id,
    angleMinRad: -Math.PI,
    angleMaxRad: -Math.PI + ((beams - 1) * 2 * Math.PI) / beams,
    angleIncrementRad: (2 * Math.PI) / beams,
    rangeMinM: 0.12,
    rangeMaxM: 8,
    rangesM: Float32Array.from(msg.ranges),
  };
}

describe('JSON frames (compression none)', () => {
  it('writes an rgb8 Image exactly as rosbridge_server does: data as base64', () => {
    const text = firstText('image-rgb8-json');
    const fixture = JSON.parse(text) as PublishOp;
    const image = imageFrom({ ...fixture, msg: { ...fixture.msg, data: Buffer.from(fixture.msg.data as string, 'base64') } });
    const ours = encodeJson(publishOp('/camera/image_raw', rosImage(image, STAMPING), fixture.msg.header));
    // The only difference: rosbridge's JSON writer escapes '/' as '\/', which means the same.
    expect(ours).toBe(text.replaceAll('\\/', '/'));
  });

  it('writes a LaserScan with inf and nan as null, float32 fields rounded as rospy does', () => {
    const fixture = JSON.parse(firstText('laserscan-json-inf-nan')) as PublishOp;
    const ranges = (fixture.msg.ranges as Array<number | null>).map((range, index, all) =>
      range !== null ? range : index === all.length - 2 ? Infinity : NaN,
    );
    const scan = scanFrom({ ...fixture, msg: { ...fixture.msg, ranges: Float32Array.from(ranges) } });
    const ours = JSON.parse(encodeJson(publishOp('/scan', rosLaserScan(scan, STAMPING), fixture.msg.header)));
    expect(ours).toEqual(fixture);
    expect(shapeOf(ours)).toEqual(shapeOf(fixture));
  });

  it('writes JointState, Imu and Odometry with the same fields, order and values', () => {
    const joints = JSON.parse(firstText('jointstate-json')) as PublishOp;
    const jointState: JointState = {
      kind: 'JointState',
      names: joints.msg.name as string[],
      positionsRad: Float64Array.from(joints.msg.position as number[]),
      velocitiesRadps: Float64Array.from(joints.msg.velocity as number[]),
      effortsNm: Float64Array.from(joints.msg.effort as number[]),
    };
    const imu = JSON.parse(firstText('imu-json')) as PublishOp;
    const imuReading: Imu = {
      kind: 'Imu',
      frameId: 'imu',
      orientation: { x: 0, y: 0, z: 0, w: 1 },
      angularVelocityRadps: { x: 0, y: 0, z: 0.1 },
      linearAccelerationMps2: { x: 0, y: 0, z: 9.81 },
    };
    const odom = JSON.parse(firstText('odometry-json')) as PublishOp;
    const odometry: Odometry = {
      kind: 'Odometry',
      frameId: 'odom',
      childFrameId: 'base_link',
      odomFromBaseXM: 1.81,
      odomFromBaseYM: 0,
      odomFromBaseYawRad: 0,
      linearMps: 0.1,
      angularRadps: 0,
    };
    const cases: Array<[PublishOp, RosMessage]> = [
      [joints, rosJointState(jointState, STAMPING)],
      [imu, rosImu(imuReading, STAMPING)],
      [odom, rosOdometry(odometry, STAMPING)],
    ];
    for (const [fixture, msg] of cases) {
      const ours = JSON.parse(encodeJson(publishOp(fixture.topic, msg, fixture.msg.header)));
      expect(ours).toEqual(fixture);
      expect(shapeOf(ours)).toEqual(shapeOf(fixture));
    }
  });
});

describe('CBOR frames (compression cbor)', () => {
  it.each(['image-rgb8-cbor', 'image-mono8-cbor'])('writes %s byte for byte as rosbridge_server does: data as a byte string', (name) => {
    const bytes = firstBinary(name);
    const fixture = decodeCbor(bytes) as PublishOp;
    const ours = encodeCbor(publishOp(fixture.topic, rosImage(imageFrom(fixture), STAMPING), fixture.msg.header));
    expect(Buffer.from(ours).equals(Buffer.from(bytes))).toBe(true);
  });

  it('writes a LaserScan with float32[] as typed-array tag 85, inf and nan kept', () => {
    const fixture = decodeCbor(firstBinary('laserscan-cbor-inf-nan')) as PublishOp;
    const bytes = encodeCbor(publishOp('/scan', rosLaserScan(scanFrom(fixture), STAMPING), fixture.msg.header));
    const ours = decodeCbor(bytes) as PublishOp;
    expect(shapeOf(ours)).toEqual(shapeOf(fixture));
    expect(ours).toEqual(fixture);
    const ranges = ours.msg.ranges as Float32Array;
    expect(ranges[ranges.length - 2]).toBe(Infinity);
    expect(Number.isNaN(ranges[ranges.length - 1])).toBe(true);
    // Integral floats (range_max 8.0, time_increment 0.0) go as CBOR integers: the same number to any decoder.
    expect(ours.msg.range_max).toBe(8);
  });

  it('writes float64[] (JointState) as typed-array tag 86, where rosbridge_server 0.11 sends nothing', () => {
    // The real server fails to CBOR-encode JointState (fixture jointstate-cbor has no frames); this
    // is what its encoder means to send: the JSON fixture's fields, float64[] as tag 86.
    const fixture = JSON.parse(firstText('jointstate-json')) as PublishOp;
    const msg = rosJointState(
      {
        kind: 'JointState',
        names: fixture.msg.name as string[],
        positionsRad: Float64Array.from(fixture.msg.position as number[]),
        velocitiesRadps: Float64Array.from(fixture.msg.velocity as number[]),
        effortsNm: Float64Array.from(fixture.msg.effort as number[]),
      },
      STAMPING,
    );
    const ours = decodeCbor(encodeCbor(publishOp('/joint_states', msg, fixture.msg.header))) as PublishOp;
    expect(ours.msg.name).toEqual(['left_wheel', 'right_wheel']);
    expect(ours.msg.position).toEqual(Float64Array.from(fixture.msg.position as number[]));
    expect(shapeOf(ours.msg.position)).toEqual([': float64[] (tag 86)']);
  });
});

describe('PNG frames (compression png)', () => {
  it('packs the JSON message into an RGB PNG of the same geometry, padded with newlines', () => {
    const frame = JSON.parse(firstText('image-rgb8-png')) as { op: string; data: string };
    expect(Object.keys(frame)).toEqual(['op', 'data']);
    const theirs = decodePng(Buffer.from(frame.data, 'base64'));
    const theirText = Buffer.from(theirs.data as Uint8Array).toString('utf8');
    const fixture = JSON.parse(theirText.trimEnd()) as PublishOp;
    const image = imageFrom({ ...fixture, msg: { ...fixture.msg, data: Buffer.from(fixture.msg.data as string, 'base64') } });

    const ourFrame = JSON.parse(encodePng(publishOp('/camera/image_raw', rosImage(image, STAMPING), fixture.msg.header))) as { op: string; data: string };
    expect(Object.keys(ourFrame)).toEqual(['op', 'data']);
    expect(ourFrame.op).toBe('png');
    const ours = decodePng(Buffer.from(ourFrame.data, 'base64'));
    const ourText = Buffer.from(ours.data as Uint8Array).toString('utf8');
    expect(JSON.parse(ourText.trimEnd())).toEqual(fixture);
    for (const [png, text] of [
      [theirs, theirText],
      [ours, ourText],
    ] as const) {
      expect(png.channels).toBe(3);
      expect(png.depth).toBe(8);
      const length = Buffer.byteLength(text.trimEnd());
      expect(png.width).toBe(Math.floor(Math.sqrt(length / 3)));
      expect(png.height).toBe(Math.ceil(length / 3 / png.width));
      expect(text.slice(length)).toMatch(/^\n*$/);
    }
  });
});

describe('fragments', () => {
  it("reassembles the real server's fragments (id 0 for every message, a float total)", () => {
    const expired: string[] = [];
    const assembler = new FragmentAssembler({ maxPendingChars: 1_000_000, timeoutMs: 10_000, onExpired: (_id, message) => expired.push(message) });
    const completed: PublishOp[] = [];
    for (const frame of serverFrames('image-rgb8-json-fragmented')) {
      const fragment = JSON.parse(frame.data!) as { id: number; data: string; num: number; total: number };
      const outcome = assembler.add(fragment);
      if (outcome.kind === 'complete') completed.push(JSON.parse(outcome.text) as PublishOp);
      expect(outcome.kind).not.toBe('refused');
    }
    assembler.dispose();
    expect(completed.map((op) => op.msg.header.seq)).toEqual([10, 11]);
    expect(expired).toEqual([]);
  });

  it('sends fragments with the fields of the protocol, a whole total and a message id', () => {
    const theirs = JSON.parse(serverFrames('image-rgb8-json-fragmented')[0]!.data!) as Record<string, unknown>;
    const text = firstText('image-rgb8-json');
    const ours = fragmentText(text, 100, '/camera/image_raw:1').map((frame) => JSON.parse(frame) as Record<string, unknown>);
    expect(Object.keys(ours[0]!)).toEqual(Object.keys(theirs));
    expect(ours.map((fragment) => fragment.num)).toEqual(ours.map((_, index) => index));
    expect(ours.every((fragment) => fragment.total === Math.ceil(text.length / 100) && fragment.id === '/camera/image_raw:1')).toBe(true);
    expect(ours.map((fragment) => fragment.data).join('')).toBe(text);
  });

  it('encodes a message once per wire form, however many clients take it', () => {
    const message = new OutgoingMessage(
      '/scan',
      rosLaserScan(
        scanFrom({ op: 'publish', topic: '/scan', msg: { header: { seq: 1, stamp: { secs: 0, nsecs: 0 }, frame_id: 'laser' }, ranges: new Float32Array(8) } }),
        STAMPING,
      ),
      '/scan:1',
    );
    const form = { compression: 'none', fragmentSize: 64 } as const;
    expect(message.frames(form)).toBe(message.frames(form));
    expect(message.frames(form).length).toBeGreaterThan(1);
    expect(message.frames({ compression: 'cbor', fragmentSize: 64 })).toHaveLength(1);
  });
});
