// The foxglove link against hand-built frames from a plain `ws` server: ros1 and json payloads
// beside cdr, channels that disappear and come back, and bad input — a schema that does not parse, a
// message that does not match its schema, 10,000 channels, a 100 MB message — each with a clear
// alert while the rest of the link keeps working; channels of any other schema (a TFMessage, a
// String, a MarkerArray) delivered as RosFields.
import { parse } from '@foxglove/rosmsg';
import { MessageWriter as Ros1Writer } from '@foxglove/rosmsg-serialization';
import { MessageWriter as CdrWriter } from '@foxglove/rosmsg2-serialization';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { Imu, Odometry, Received, RosFields, Twist } from '../../main/core/messages.ts';
import { fullMessageDefinition, fullRos2MessageDefinition } from '../../main/core/rosMessageDefinitions.ts';
import { FoxgloveLink } from '../../main/links/foxglove/foxgloveLink.ts';
import { HandBuiltFoxgloveServer } from '../fakes/handBuiltFoxgloveServer.ts';
import { waitForAlert, waitForPresence } from '../support/linkEvents.ts';
import { WaitableLog } from '../support/waitableLog.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serverAndLink(): Promise<{ server: HandBuiltFoxgloveServer; link: FoxgloveLink }> {
  const server = await HandBuiltFoxgloveServer.start();
  cleanups.push(() => server.close());
  const link = new FoxgloveLink({ url: server.url, timings: { backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0.2 } } });
  cleanups.push(() => link.close());
  await waitForPresence(link, 'present');
  return { server, link };
}

const nowStamp = () => {
  const ms = Date.now();
  return { sec: Math.floor(ms / 1000), nanosec: (ms % 1000) * 1e6 };
};

function cdrChannel(id: number, topic: string, rosType: string) {
  return { id, topic, encoding: 'cdr', schemaName: rosType, schema: fullRos2MessageDefinition(rosType), schemaEncoding: 'ros2msg' };
}

const imuWriter = new CdrWriter(parse(fullRos2MessageDefinition('sensor_msgs/msg/Imu'), { ros2: true }));
const zeros9 = new Float64Array(9);
function cdrImu(z: number): Uint8Array {
  return imuWriter.writeMessage({
    header: { stamp: nowStamp(), frame_id: 'imu' },
    orientation: { x: 0, y: 0, z: 0, w: 1 },
    orientation_covariance: zeros9,
    angular_velocity: { x: 0, y: 0, z },
    angular_velocity_covariance: zeros9,
    linear_acceleration: { x: 0, y: 0, z: 9.81 },
    linear_acceleration_covariance: zeros9,
  });
}

/** Sends one IMU message at a time until `log` has `count` more, so a test never races the client's subscribe. */
async function imuFlows(server: HandBuiltFoxgloveServer, channelId: number, log: WaitableLog<Imu>, z: number): Promise<void> {
  const before = log.items.length;
  const timer = setInterval(() => server.sendMessage(channelId, cdrImu(z)), 20);
  try {
    await log.until((items) => items.slice(before).some((imu) => imu.angularVelocityRadps.z === z), `an IMU message with z=${z}`);
  } finally {
    clearInterval(timer);
  }
}

function subscribeImu(link: FoxgloveLink): WaitableLog<Imu> {
  const log = new WaitableLog<Imu>('/imu');
  cleanups.push(link.subscribe<Imu>('/imu', (received) => log.push(received.msg)));
  return log;
}

describe('FoxgloveLink ↔ hand-built foxglove frames', () => {
  it('decodes ros1 and json channels, and follows a channel that disappears and comes back', async () => {
    const { server, link } = await serverAndLink();
    const ros1Imu = fullMessageDefinition('sensor_msgs/Imu');
    server.sendJson({
      op: 'advertise',
      channels: [
        { id: 1, topic: '/imu', encoding: 'ros1', schemaName: 'sensor_msgs/Imu', schema: ros1Imu, schemaEncoding: 'ros1msg' },
        { id: 2, topic: '/odom', encoding: 'json', schemaName: 'nav_msgs/msg/Odometry', schema: '', schemaEncoding: 'jsonschema' },
      ],
    });
    const imu = subscribeImu(link);
    const odom = new WaitableLog<Odometry>('/odom');
    cleanups.push(link.subscribe<Odometry>('/odom', (received) => odom.push(received.msg)));
    await server.ops.until((ops) => ops.filter((op) => op.op === 'subscribe').length >= 2, 'two subscriptions');

    const ros1Writer = new Ros1Writer(parse(ros1Imu));
    const ms = Date.now();
    server.sendMessage(
      1,
      ros1Writer.writeMessage({
        header: { seq: 1, stamp: { sec: Math.floor(ms / 1000), nsec: (ms % 1000) * 1e6 }, frame_id: 'imu_link' },
        orientation: { x: 0, y: 0, z: 0, w: 1 },
        orientation_covariance: zeros9,
        angular_velocity: { x: 0, y: 0, z: 0.5 },
        angular_velocity_covariance: zeros9,
        linear_acceleration: { x: 0, y: 0, z: 9.81 },
        linear_acceleration_covariance: zeros9,
      }),
    );
    const odomMessage = (x: number) => ({
      header: { stamp: nowStamp(), frame_id: 'odom' },
      child_frame_id: 'base_link',
      pose: { pose: { position: { x, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } }, covariance: new Array(36).fill(0) },
      twist: { twist: { linear: { x: 0.3, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } }, covariance: new Array(36).fill(0) },
    });
    server.sendMessage(2, new TextEncoder().encode(JSON.stringify(odomMessage(1.5))));
    await imu.until((items) => items.length > 0, 'the ros1 IMU message');
    await odom.until((items) => items.length > 0, 'the json odometry');
    expect(imu.items[0]).toMatchObject({ frameId: 'imu_link', angularVelocityRadps: { z: 0.5 }, linearAccelerationMps2: { z: 9.81 } });
    expect(odom.items[0]).toMatchObject({ odomFromBaseXM: 1.5, linearMps: 0.3, childFrameId: 'base_link' });

    server.sendJson({ op: 'unadvertise', channelIds: [2] });
    const gone = await waitForAlert(link, (alert) => alert.key === 'topic:/odom');
    expect(gone.message).toMatch(/stopped offering \/odom/);
    const subscribesBefore = server.ops.items.filter((op) => op.op === 'subscribe').length;
    server.sendJson({ op: 'advertise', channels: [{ id: 7, topic: '/odom', encoding: 'json', schemaName: 'nav_msgs/msg/Odometry', schema: '' }] });
    await server.ops.until((ops) => ops.filter((op) => op.op === 'subscribe').length > subscribesBefore, 'the subscription again');
    expect(server.subscribed(7)).toBe(true);
    server.sendMessage(7, new TextEncoder().encode(JSON.stringify(odomMessage(2.5))));
    await odom.until((items) => items.some((item) => item.odomFromBaseXM === 2.5), 'odometry from the channel that came back');
    expect(link.alerts().find((alert) => alert.key === 'topic:/odom')).toBeUndefined();
  });

  it('says a channel whose schema does not parse is unreadable; the other channels keep working', async () => {
    const { server, link } = await serverAndLink();
    server.sendJson({
      op: 'advertise',
      channels: [
        {
          id: 1,
          topic: '/scan',
          encoding: 'cdr',
          schemaName: 'sensor_msgs/msg/LaserScan',
          schema: 'float32[ ranges\n%%% not a field',
          schemaEncoding: 'ros2msg',
        },
        cdrChannel(2, '/imu', 'sensor_msgs/msg/Imu'),
      ],
    });
    cleanups.push(link.subscribe('/scan', () => undefined));
    const imu = subscribeImu(link);
    const alert = await waitForAlert(link, (each) => each.key === 'topic:/scan');
    expect(alert.message).toMatch(/ros2msg schema of \/scan \(sensor_msgs\/msg\/LaserScan\) does not parse/);
    await server.ops.until((ops) => ops.some((op) => op.op === 'subscribe'), 'the /imu subscription');
    expect(server.subscribed(1)).toBe(false);
    await imuFlows(server, 2, imu, 0.25);
    expect(link.presence()).toBe('present');
  });

  it('drops a message that does not match its schema, with an alert, and decodes the next one', async () => {
    const { server, link } = await serverAndLink();
    server.sendJson({ op: 'advertise', channels: [cdrChannel(3, '/imu', 'sensor_msgs/msg/Imu')] });
    const imu = subscribeImu(link);
    await server.ops.until((ops) => ops.some((op) => op.op === 'subscribe'), 'the /imu subscription');
    server.sendMessage(3, new Uint8Array([0, 1, 0, 0, 7, 7, 7, 7, 7, 7]));
    const alert = await waitForAlert(link, (each) => each.key === 'decode:/imu');
    expect(alert.message).toMatch(/does not match its schema: 10 bytes do not match sensor_msgs\/msg\/Imu/);
    await imuFlows(server, 3, imu, 0.75);
  });

  it('keeps a bounded channel list when a server advertises 10,000 channels: an alert, and the mapped topics still work', async () => {
    const { server, link } = await serverAndLink();
    const noise = Array.from({ length: 10_000 }, (_, index) => cdrChannel(100 + index, `/noise/${index}`, 'geometry_msgs/msg/Twist'));
    server.sendJson({ op: 'advertise', channels: [...noise, { id: 'x', topic: 42 }, cdrChannel(5, '/imu', 'sensor_msgs/msg/Imu')] });
    const overflow = await waitForAlert(link, (each) => each.key === 'channel-overflow');
    expect(overflow.message).toMatch(/more than 4096 channels.*5904 more ignored/);
    const malformed = await waitForAlert(link, (each) => each.key === 'channel-malformed');
    expect(malformed.message).toMatch(/could not read/);
    expect(link.topics().length).toBeLessThanOrEqual(4096 + 1);
    expect(link.topics()).toContainEqual({ topic: '/imu', kind: 'Imu', type: 'sensor_msgs/msg/Imu' });
    const imu = subscribeImu(link);
    await imuFlows(server, 5, imu, 1.25);
  });

  it('drops a 100 MB message with an alert, without losing the connection or the other channels', async () => {
    const { server, link } = await serverAndLink();
    server.sendJson({ op: 'advertise', channels: [cdrChannel(1, '/camera/image_raw', 'sensor_msgs/msg/Image'), cdrChannel(2, '/imu', 'sensor_msgs/msg/Imu')] });
    cleanups.push(link.subscribe('/camera/image_raw', () => undefined));
    const imu = subscribeImu(link);
    await server.ops.until((ops) => ops.filter((op) => op.op === 'subscribe').length >= 2, 'both subscriptions');
    const presences: string[] = [];
    cleanups.push(link.on('presence', (presence) => presences.push(presence)));
    expect(server.sendMessage(1, new Uint8Array(100 * 1024 * 1024))).toBe(true);
    const alert = await waitForAlert(link, (each) => each.key === 'too-large:/camera/image_raw', 15_000);
    expect(alert.message).toMatch(/Dropped a 100\.0 MiB message on \/camera\/image_raw: the link takes at most 64\.0 MiB/);
    await imuFlows(server, 2, imu, 1.75);
    expect(presences).toEqual([]);
  }, 30_000);

  it('publishes a TwistStamped command in the type of the channel the server advertises, stamped zero', async () => {
    const { server, link } = await serverAndLink();
    subscribeImu(link);
    server.sendJson({ op: 'advertise', channels: [cdrChannel(9, '/cmd_vel', 'geometry_msgs/msg/TwistStamped'), cdrChannel(2, '/imu', 'sensor_msgs/msg/Imu')] });
    // The link subscribes to /imu as it reads the channel list: by then it knows /cmd_vel's type too.
    await server.ops.until((ops) => ops.some((op) => op.op === 'subscribe'), 'the channel list read');
    const twist: Twist = { kind: 'Twist', linearMps: { x: 0.4, y: 0, z: 0 }, angularRadps: { x: 0, y: 0, z: -0.2 } };
    expect(link.publish('/cmd_vel', twist)).toBe(true);
    await server.ops.until((ops) => ops.some((op) => op.op === 'advertise'), 'the client advertisement');
    const advertised = server.ops.items.find((op) => op.op === 'advertise')!['channels'] as {
      id: number;
      topic: string;
      encoding: string;
      schemaName: string;
    }[];
    expect(advertised[0]).toMatchObject({ topic: '/cmd_vel', encoding: 'cdr', schemaName: 'geometry_msgs/msg/TwistStamped' });
    await server.binary.until((frames) => frames.length > 0, 'the command frame');
    const frame = server.binary.items[0]!;
    expect(frame[0]).toBe(0x01);
    expect(new DataView(frame.buffer, frame.byteOffset).getUint32(1, true)).toBe(advertised[0]!.id);
    const { MessageReader } = await import('@foxglove/rosmsg2-serialization');
    const reader = new MessageReader(parse(fullRos2MessageDefinition('geometry_msgs/msg/TwistStamped'), { ros2: true }));
    expect(reader.readMessage(frame.subarray(5))).toEqual({
      header: { stamp: { sec: 0, nanosec: 0 }, frame_id: 'base_link' },
      twist: { linear: { x: 0.4, y: 0, z: 0 }, angular: { x: 0, y: 0, z: -0.2 } },
    });
  });

  it('says a server that accepts neither subprotocol is not a foxglove server, and keeps retrying', async () => {
    const plain = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => false });
    await new Promise((resolve) => plain.once('listening', resolve));
    cleanups.push(() => new Promise<void>((resolve) => plain.close(() => resolve())));
    const link = new FoxgloveLink({ url: `ws://127.0.0.1:${(plain.address() as AddressInfo).port}` });
    cleanups.push(() => link.close());
    const alert = await waitForAlert(link, (each) => each.key === 'connection');
    expect(alert.message).toMatch(/accepted neither foxglove\.sdk\.v1 nor foxglove\.websocket\.v1: it is not a foxglove server\); retrying/);
    expect(link.presence()).toBe('reconnecting');
  });

  it('refuses to guess the command type where the server advertises no command channel and none is configured', async () => {
    const { link } = await serverAndLink();
    const twist: Twist = { kind: 'Twist', linearMps: { x: 0.4, y: 0, z: 0 }, angularRadps: { x: 0, y: 0, z: 0 } };
    expect(link.publish('/cmd_vel', twist)).toBe(false);
    expect(link.alerts()).toContainEqual(
      expect.objectContaining({ key: 'command-type:/cmd_vel', severity: 'error', message: expect.stringContaining('advertises no channel /cmd_vel') }),
    );
  });
});

describe('FoxgloveLink ↔ channels of types without a kind of their own', () => {
  const TF_ROS2 = [
    'geometry_msgs/TransformStamped[] transforms',
    'MSG: geometry_msgs/TransformStamped\nstd_msgs/Header header\nstring child_frame_id\ngeometry_msgs/Transform transform',
    'MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id',
    'MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec',
    'MSG: geometry_msgs/Transform\ngeometry_msgs/Vector3 translation\ngeometry_msgs/Quaternion rotation',
    'MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z',
    'MSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\nfloat64 w',
  ].join('\n================================================================================\n');

  it('delivers cdr, ros1 and json channels of any schema as RosFields, and offers none it cannot read', async () => {
    const { server, link } = await serverAndLink();
    server.sendJson({
      op: 'advertise',
      channels: [
        { id: 1, topic: '/tf', encoding: 'cdr', schemaName: 'tf2_msgs/msg/TFMessage', schema: TF_ROS2, schemaEncoding: 'ros2msg' },
        { id: 2, topic: '/chatter', encoding: 'ros1', schemaName: 'std_msgs/String', schema: 'string data', schemaEncoding: 'ros1msg' },
        { id: 3, topic: '/markers', encoding: 'json', schemaName: 'visualization_msgs/msg/MarkerArray', schema: '', schemaEncoding: 'jsonschema' },
        { id: 4, topic: '/proto', encoding: 'protobuf', schemaName: 'foxglove.SceneUpdate', schema: '', schemaEncoding: 'protobuf' },
      ],
    });
    await until(() => link.topics().length >= 3, 'the channels');
    expect(link.topics()).toEqual([
      { topic: '/tf', kind: 'RosFields', type: 'tf2_msgs/msg/TFMessage' },
      { topic: '/chatter', kind: 'RosFields', type: 'std_msgs/String' },
      { topic: '/markers', kind: 'RosFields', type: 'visualization_msgs/msg/MarkerArray' },
    ]);
    const got = new WaitableLog<Received<RosFields>>('RosFields messages');
    for (const topic of ['/tf', '/chatter', '/markers']) cleanups.push(link.subscribe<RosFields>(topic, (received) => got.push(received)));
    await server.ops.until((ops) => ops.filter((op) => op.op === 'subscribe').length >= 3, 'three subscriptions');

    const stamp = nowStamp();
    const tf = {
      transforms: [
        {
          header: { stamp, frame_id: 'odom' },
          child_frame_id: 'base_link',
          transform: { translation: { x: 1.25, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 } },
        },
      ],
    };
    const tfBytes = new CdrWriter(parse(TF_ROS2, { ros2: true })).writeMessage(tf);
    server.sendMessage(1, tfBytes);
    server.sendMessage(2, new Ros1Writer(parse('string data')).writeMessage({ data: 'hello' }));
    server.sendMessage(3, new TextEncoder().encode(JSON.stringify({ markers: [{ id: 7, ns: 'goal' }] })));
    await got.until((items) => items.length >= 3, 'a message on each');
    const byTopic = new Map(got.items.map((received) => [received.topic, received]));
    expect(byTopic.get('/tf')?.msg).toEqual({ kind: 'RosFields', rosType: 'tf2_msgs/msg/TFMessage', fields: tf });
    // Recorded as the robot sent it: its CDR under its own definition.
    expect(byTopic.get('/tf')?.ros2).toEqual({ rosType: 'tf2_msgs/msg/TFMessage', definitionText: TF_ROS2, cdr: tfBytes });
    expect(byTopic.get('/chatter')?.msg).toEqual({ kind: 'RosFields', rosType: 'std_msgs/String', fields: { data: 'hello' } });
    expect(byTopic.get('/markers')?.msg.fields).toEqual({ markers: [{ id: 7, ns: 'goal' }] });
    for (const received of got.items) expect(received.raw).toBe(received.msg.fields);
  });
});

async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
