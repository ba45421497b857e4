// Every frame a real rosbridge_server (ROS 1, rosbridge_suite 0.11.17) sent, captured in
// test/fixtures/rosbridge-ros1 (a copy of ../shared/fixtures/rosbridge-ros1), run through the link's
// own transport (text frames: JSON, fragments, png; binary frames: roslib's CBOR decoder) and its
// message decoders, with concrete values checked.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Image, Imu, JointState, LaserScan, Odometry, Twist } from '../../main/core/messages.ts';
import type { Decoded } from '../../main/links/rosbridge/decode/decoded.ts';
import { decoderFor, kindOfType } from '../../main/links/rosbridge/decode/messageTypes.ts';
import { decodeTwist, encodeTwist } from '../../main/links/rosbridge/decode/twists.ts';
import { systemLinkClock } from '../../main/links/rosbridge/linkClock.ts';
import { parseTopicsResponse } from '../../main/links/rosbridge/rosapi.ts';
import { RosbridgeTransport } from '../../main/links/rosbridge/rosbridgeTransport.ts';
import { FakeSocketPort } from '../fakes/fakeSocketPort.ts';

const FIXTURES = new URL('../fixtures/rosbridge-ros1/', import.meta.url);

interface Replayed {
  client: Array<Record<string, unknown>>;
  server: Array<Record<string, unknown>>;
  serverFrameCount: number;
  errors: string[];
}

function replay(name: string): Replayed {
  const socket = new FakeSocketPort();
  const transport = new RosbridgeTransport(socket, systemLinkClock);
  const replayed: Replayed = { client: [], server: [], serverFrameCount: 0, errors: [] };
  transport.on('message', (message) => replayed.server.push(message as unknown as Record<string, unknown>));
  transport.on('error', (error) => replayed.errors.push(String(error)));
  for (const line of readFileSync(new URL(`${name}.jsonl`, FIXTURES), 'utf8')
    .trim()
    .split('\n')) {
    const frame = JSON.parse(line) as { dir: string; kind: string; data?: string; base64?: string };
    if (frame.dir === 'client') {
      replayed.client.push(JSON.parse(frame.data!) as Record<string, unknown>);
      continue;
    }
    replayed.serverFrameCount++;
    if (frame.kind === 'text') socket.receive(frame.data!);
    else socket.receive(new Uint8Array(Buffer.from(frame.base64!, 'base64')).buffer);
  }
  return replayed;
}

/** Decodes every publish of a replayed file as the type its subscribe asked for, delivered as `kind`. */
function decodeAll<M>(replayed: Replayed, kind = kindOfType(String(replayed.client[0]!['type']))!): Array<Decoded<M>> {
  const decode = decoderFor(String(replayed.client[0]!['type']), kind)!;
  return replayed.server.filter((message) => message['op'] === 'publish').map((message) => decode(message['msg']) as Decoded<M>);
}

function messages<M>(decoded: Array<Decoded<M>>): Array<{ msg: M; stampMs: number | undefined }> {
  return decoded.map((result) => {
    if (!result.ok) throw new Error(result.problem);
    return result;
  });
}

const fixtureNames = readdirSync(FIXTURES)
  .filter((file) => file.endsWith('.jsonl'))
  .map((file) => file.replace(/\.jsonl$/, ''));

describe('frames from a real rosbridge_server (ROS 1)', () => {
  it.each(fixtureNames)('%s: every server frame is read, every publish decodes or is refused clearly', (name) => {
    const replayed = replay(name);
    expect(replayed.errors).toEqual([]);
    for (const result of decodeAll(replayed)) {
      if (name.endsWith('cbor-raw')) expect(result).toMatchObject({ ok: false, problem: expect.stringContaining('cbor-raw') });
      else expect(result.ok, result.ok ? '' : result.problem).toBe(true);
    }
  });

  it('rgb8 image over JSON: base64 data, ROS 1 stamp', () => {
    const [first] = messages<Image>(decodeAll(replay('image-rgb8-json')));
    expect(first!.msg).toMatchObject({ kind: 'Image', frameId: 'camera', width: 8, height: 6, encoding: 'rgb8', step: 24 });
    expect(first!.msg.data.length).toBe(144);
    expect([...first!.msg.data.slice(0, 6)]).toEqual([131, 136, 141, 146, 151, 156]);
    expect(first!.stampMs).toBeCloseTo(1795262798 * 1000 + 11.803627, 3);
  });

  it('rgb8 and mono8 images over CBOR: byte strings', () => {
    const rgb = messages<Image>(decodeAll(replay('image-rgb8-cbor')));
    expect(rgb[0]!.msg).toMatchObject({ width: 8, height: 6, encoding: 'rgb8', step: 24 });
    expect([...rgb[0]!.msg.data.slice(0, 4)]).toEqual([133, 138, 143, 148]);
    const mono = messages<Image>(decodeAll(replay('image-mono8-cbor')));
    expect(mono[0]!.msg).toMatchObject({ width: 8, height: 6, encoding: 'mono8', step: 8 });
    expect([...mono[0]!.msg.data.slice(0, 6)]).toEqual([0, 7, 14, 21, 28, 35]);
  });

  it('png op: the JSON message packed in a PNG is unpacked', () => {
    const images = messages<Image>(decodeAll(replay('image-rgb8-png')));
    expect(images).toHaveLength(2);
    expect(images[0]!.msg).toMatchObject({ width: 8, height: 6, encoding: 'rgb8' });
    expect([...images[0]!.msg.data.slice(0, 4)]).toEqual([137, 142, 147, 152]);
  });

  it('cbor-raw is refused with a hint to use cbor', () => {
    const [result] = decodeAll(replay('image-rgb8-cbor-raw'));
    expect(result).toMatchObject({ ok: false, hint: expect.stringContaining('"cbor"') });
  });

  it('fragments with id 0 and a float total are reassembled in arrival order', () => {
    const replayed = replay('image-rgb8-json-fragmented');
    expect(replayed.serverFrameCount).toBe(10);
    const images = messages<Image>(decodeAll(replayed));
    expect(images).toHaveLength(2);
    expect(images.map((image) => image.msg.data.length)).toEqual([144, 144]);
    expect([...images[0]!.msg.data.slice(0, 4)]).toEqual([141, 146, 151, 156]);
    expect(images[1]!.stampMs! - images[0]!.stampMs!).toBeCloseTo(100, 0);
  });

  it.each(['compressed-image-png-json', 'compressed-image-png-cbor'])('%s: "rgb8; png compressed bgr8" decodes to true RGB', (name) => {
    const replayed = replay(name);
    const compressed = messages(decodeAll(replayed));
    expect(compressed[0]!.msg).toMatchObject({ kind: 'CompressedImage', format: 'rgb8; png compressed bgr8' });
    const [image] = messages<Image>(decodeAll(replayed, 'Image'));
    expect(image!.msg).toMatchObject({ kind: 'Image', width: 4, height: 3, encoding: 'rgb8', step: 12 });
    // The publisher drew red across, green down, blue 128: no channel swap after decoding.
    expect([...image!.msg.data.slice(0, 6)]).toEqual([0, 0, 128, 60, 0, 128]);
    expect([...image!.msg.data.slice(12, 15)]).toEqual([0, 80, 128]);
  });

  it('scan over JSON: inf and nan both arrive as null and are read as NaN (no reading)', () => {
    const [scan] = messages<LaserScan>(decodeAll(replay('laserscan-json-inf-nan')));
    expect(scan!.msg.rangesM).toHaveLength(16);
    expect(scan!.msg.rangesM[0]).toBe(1);
    expect(Number.isNaN(scan!.msg.rangesM[14])).toBe(true);
    expect(Number.isNaN(scan!.msg.rangesM[15])).toBe(true);
    expect(scan!.msg).toMatchObject({ frameId: 'laser', rangeMaxM: 8 });
    expect(scan!.msg.angleMinRad).toBeCloseTo(-Math.PI, 6);
  });

  it('scan over CBOR: a Float32Array where inf and nan survive', () => {
    const [scan] = messages<LaserScan>(decodeAll(replay('laserscan-cbor-inf-nan')));
    expect(scan!.msg.rangesM).toBeInstanceOf(Float32Array);
    expect(scan!.msg.rangesM[13]).toBeCloseTo(2.3, 5);
    expect(scan!.msg.rangesM[14]).toBe(Infinity);
    expect(Number.isNaN(scan!.msg.rangesM[15])).toBe(true);
  });

  it('joint states, IMU and odometry over JSON', () => {
    const [joints] = messages<JointState>(decodeAll(replay('jointstate-json')));
    expect(joints!.msg.names).toEqual(['left_wheel', 'right_wheel']);
    expect([...joints!.msg.positionsRad]).toEqual([15.200000000000001, 15.200000000000001]);
    expect([...joints!.msg.velocitiesRadps]).toEqual([1.5, 1.5]);
    const [imu] = messages<Imu>(decodeAll(replay('imu-json')));
    expect(imu!.msg).toMatchObject({ frameId: 'imu', orientation: { w: 1 }, angularVelocityRadps: { z: 0.1 }, linearAccelerationMps2: { z: 9.81 } });
    const [odom] = messages<Odometry>(decodeAll(replay('odometry-json')));
    expect(odom!.msg).toMatchObject({
      frameId: 'odom',
      childFrameId: 'base_link',
      odomFromBaseXM: 1.81,
      odomFromBaseYawRad: 0,
      linearMps: 0.1,
      angularRadps: 0,
    });
    expect(odom!.stampMs).toBeCloseTo(1795262803011.76, 1);
  });

  it('throttled JSON: one message per 500 ms at most', () => {
    const stamps = messages<JointState>(decodeAll(replay('throttled-json'))).map((joints) => joints.stampMs!);
    expect(stamps).toHaveLength(3);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]! - stamps[i - 1]!).toBeGreaterThanOrEqual(499);
  });

  it('JointState and Odometry over CBOR: the real server sends nothing at all', () => {
    for (const name of ['jointstate-cbor', 'odometry-cbor']) {
      const replayed = replay(name);
      expect(replayed.client[0]).toMatchObject({ op: 'subscribe', compression: 'cbor' });
      expect(replayed.serverFrameCount).toBe(0);
    }
  });

  it('rosapi: topics with their types, a topic type, and a missing service', () => {
    const topics = parseTopicsResponse(replay('rosapi-topics').server[0]!['values']);
    expect(topics.size).toBe(11);
    expect(topics.get('/camera/image_raw/compressed')).toBe('sensor_msgs/CompressedImage');
    expect(topics.get('/odom')).toBe('nav_msgs/Odometry');
    const [typeResponse] = replay('rosapi-topic-type').server;
    expect(typeResponse).toMatchObject({ op: 'service_response', id: 'call:type', result: true, values: { type: 'sensor_msgs/LaserScan' } });
    expect(kindOfType('sensor_msgs/LaserScan')).toBe('LaserScan');
    expect(replay('service-missing').server[0]).toMatchObject({ result: false, values: 'Service /no_such_service does not exist' });
  });

  it('a published Twist has the wire shape the real server accepted', () => {
    const replayed = replay('advertise-publish-cmd_vel');
    expect(replayed.client[0]).toMatchObject({ op: 'advertise', topic: '/cmd_vel', type: 'geometry_msgs/Twist' });
    const decoded = decodeTwist(replayed.client[1]!['msg']);
    expect(decoded.ok).toBe(true);
    const twist = (decoded as { msg: Twist }).msg;
    expect(twist).toMatchObject({ linearMps: { x: 0.2 }, angularRadps: { z: 0.5 } });
    expect(encodeTwist(twist)).toEqual(replayed.client[1]!['msg']);
  });

  it('bad requests get no reply: the link must time out instead of waiting', () => {
    const replayed = replay('bad-requests-no-reply');
    expect(replayed.client).toHaveLength(3);
    expect(replayed.serverFrameCount).toBe(0);
  });
});
