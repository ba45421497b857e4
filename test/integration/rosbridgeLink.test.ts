// The rosbridge link against a small rosbridge-speaking server (test/fakes): JSON and CBOR topics,
// the silent-CBOR fallback, reconnection with re-subscription, no stale command after a dropout,
// service deadlines, the robot clock offset, and bad input that must not stop the link.
import { afterEach, describe, expect, it } from 'vitest';
import type { Image, Imu, JointState, LaserScan } from '../../main/core/messages.ts';
import { twistFromDrive } from '../../main/core/messages.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import type { RosbridgeLinkOptions, RosbridgeTimings } from '../../main/links/rosbridge/rosbridgeOptions.ts';
import { ServiceCallError } from '../../main/links/rosbridge/serviceCallError.ts';
import { FakeRosbridgeServer, NEVER, type FakeRosbridgeOptions, type FakeTopic } from '../fakes/fakeRosbridgeServer.ts';
import { nextMessages, waitForAlert, waitForMessage, waitForPresence } from '../support/linkEvents.ts';

const FAST: Partial<RosbridgeTimings> = {
  backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0.2 },
  serviceTimeoutMs: 500,
  pingIntervalMs: 200,
  silenceTimeoutMs: 3000,
  silentCbor: { silentAfterMs: 300, probeWindowMs: 3000, probeMessagesNeeded: 2, maxSilentAfterMs: 3000 },
};

const TOPICS: Record<string, FakeTopic> = {
  '/camera/image_raw': {
    type: 'sensor_msgs/Image',
    rateHz: 20,
    message: (seq) => ({ height: 2, width: 4, encoding: 'rgb8', is_bigendian: 0, step: 12, data: new Uint8Array(24).fill(seq % 256) }),
  },
  '/scan': {
    type: 'sensor_msgs/LaserScan',
    rateHz: 20,
    message: () => ({
      angle_min: -1,
      angle_max: 1,
      angle_increment: 1,
      time_increment: 0,
      scan_time: 0.05,
      range_min: 0.1,
      range_max: 8,
      ranges: new Float32Array([1.5, Infinity, Number.NaN]),
      intensities: new Float32Array(0),
    }),
  },
  '/joint_states': {
    type: 'sensor_msgs/JointState',
    rateHz: 20,
    message: (seq) => ({ name: ['left', 'right'], position: new Float64Array([seq, seq]), velocity: new Float64Array([1, 1]), effort: new Float64Array(0) }),
  },
  '/imu': {
    type: 'sensor_msgs/Imu',
    rateHz: 20,
    message: () => ({ orientation: { x: 0, y: 0, z: 0, w: 1 }, angular_velocity: { x: 0, y: 0, z: 0.1 }, linear_acceleration: { x: 0, y: 0, z: 9.81 } }),
  },
};

/** A base controller's command topic, as rosapi lists it (the controller subscribes to it). */
const CMD_VEL: FakeTopic = { type: 'geometry_msgs/Twist', rateHz: 1, message: () => ({}) };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(options: Partial<FakeRosbridgeOptions> = {}): Promise<FakeRosbridgeServer> {
  const started = await FakeRosbridgeServer.start({ topics: TOPICS, ...options });
  cleanups.push(() => started.close());
  return started;
}

function link(url: string, options: Partial<RosbridgeLinkOptions> = {}): RosbridgeLink {
  const created = new RosbridgeLink({ url, timings: FAST, ...options });
  cleanups.push(() => created.close());
  return created;
}

/** linear.x of every /cmd_vel publish the server received, per client. */
function commandsFrom(fake: FakeRosbridgeServer, client: (id: number) => boolean): number[] {
  return fake
    .framesOf('publish', '/cmd_vel')
    .filter((frame) => client(frame.client))
    .map((frame) => (frame.message['msg'] as { linear: { x: number } }).linear.x);
}

describe('RosbridgeLink against a rosbridge server', () => {
  it.each([
    ['ROS 1', {}],
    [
      'ROS 2',
      {
        ros2Stamps: true,
        topics: Object.fromEntries(Object.entries(TOPICS).map(([name, spec]) => [name, { ...spec, type: spec.type.replace('/', '/msg/') }])),
      },
    ],
  ])('%s: connects, discovers topics, receives images and scans over CBOR and the rest over JSON', async (_, options) => {
    const fake = await server(options);
    const robot = link(fake.url);
    expect(robot.presence()).toBe('connecting');
    await waitForPresence(robot, 'present');
    const [image] = await nextMessages<Image>(robot, '/camera/image_raw', 1);
    const [scan] = await nextMessages<LaserScan>(robot, '/scan', 1);
    const imu = await waitForMessage<Imu>(robot, '/imu');
    expect(image!.msg).toMatchObject({ kind: 'Image', width: 4, height: 2, encoding: 'rgb8', frameId: 'fake' });
    expect([...scan!.msg.rangesM]).toEqual([1.5, Infinity, Number.NaN]);
    expect(imu.msg.linearAccelerationMps2.z).toBe(9.81);
    expect(fake.framesOf('subscribe', '/camera/image_raw')[0]!.message).toMatchObject({ compression: 'cbor' });
    expect(fake.framesOf('subscribe', '/scan')[0]!.message).toMatchObject({ compression: 'cbor' });
    expect(fake.framesOf('subscribe', '/imu')[0]!.message).toMatchObject({ compression: 'none', type: expect.stringMatching(/^sensor_msgs\/(msg\/)?Imu$/) });
    expect(
      robot
        .topics()
        .map((topic) => topic.kind)
        .sort(),
    ).toEqual(['Image', 'Imu', 'JointState', 'LaserScan']);
    expect(imu.receiveTimeMs - imu.sourceTimeMs).toBeGreaterThanOrEqual(0);
    expect(imu.receiveTimeMs - imu.sourceTimeMs).toBeLessThan(1000);
  });

  it('notices a CBOR subscription that stays silent on a publishing topic and falls back to JSON', async () => {
    const fake = await server({ cborSilentTypes: ['sensor_msgs/JointState'] });
    const robot = link(fake.url, { compression: { '/joint_states': 'cbor' } });
    const joints = waitForMessage<JointState>(robot, '/joint_states', () => true, 8000);
    const alert = await waitForAlert(robot, (a) => a.key === 'cbor-fallback:/joint_states', 8000);
    expect(alert).toMatchObject({ severity: 'info', hint: expect.stringContaining('rosbridge_suite') });
    expect((await joints).msg.names).toEqual(['left', 'right']);
    const subscribes = fake.framesOf('subscribe', '/joint_states');
    expect(subscribes[0]!.message).toMatchObject({ compression: 'cbor' });
    // The probe asked on a connection of its own, throttled; the link then switched to JSON.
    expect(
      subscribes.some((frame) => frame.client !== subscribes[0]!.client && frame.message['compression'] === 'none' && frame.message['throttle_rate'] === 250),
    ).toBe(true);
    expect(subscribes.at(-1)).toMatchObject({ client: subscribes[0]!.client, message: { compression: 'none' } });
    await fake.waitFor(() => fake.clientCount() === 1, 'the probe connection to close');
  });

  it('reconnects after the server drops out and comes back, and subscribes again', async () => {
    const fake = await server();
    const robot = link(fake.url);
    await waitForMessage<Imu>(robot, '/imu');
    const imuStream = nextMessages<Imu>(robot, '/imu', 1000, () => true, 15_000);
    void imuStream.catch(() => undefined);
    await fake.stop();
    await waitForPresence(robot, 'reconnecting');
    expect(robot.alerts().find((a) => a.key === 'connection')).toMatchObject({ severity: 'warn', message: expect.stringContaining('Lost the robot') });
    await fake.restart();
    await waitForPresence(robot, 'present');
    const resubscribed = await fake.waitFor(() => fake.framesOf('subscribe', '/imu').find((frame) => frame.client > 1), 'a fresh subscription');
    expect(resubscribed.message).toMatchObject({ compression: 'none' });
    const after = await waitForMessage<Imu>(robot, '/imu');
    expect(after.msg.kind).toBe('Imu');
    expect(robot.alerts().some((a) => a.key === 'connection')).toBe(false);
  });

  it('after a dropout, no command published before or during it reaches the robot: only ones issued after', async () => {
    const fake = await server({ topics: { ...TOPICS, '/cmd_vel': CMD_VEL } });
    const robot = link(fake.url);
    await waitForPresence(robot, 'present');
    // No command goes out before rosapi has named its type.
    expect(robot.publish('/cmd_vel', twistFromDrive({ linearMps: 0.05, angularRadps: 0 }))).toBe(false);
    await robot.topicsAsked();
    for (const speed of [0.1, 0.2, 0.3]) expect(robot.publish('/cmd_vel', twistFromDrive({ linearMps: speed, angularRadps: 0 }))).toBe(true);
    await fake.waitFor(() => commandsFrom(fake, () => true).length === 3, 'the commands before the dropout');
    await fake.stop();
    await waitForPresence(robot, 'reconnecting');
    for (const speed of [0.4, 0.5, 0.6]) expect(robot.publish('/cmd_vel', twistFromDrive({ linearMps: speed, angularRadps: 0 }))).toBe(false);
    await fake.restart();
    await waitForPresence(robot, 'present');
    await robot.topicsAsked();
    expect(robot.publish('/cmd_vel', twistFromDrive({ linearMps: 0.7, angularRadps: 0 }))).toBe(true);
    await fake.waitFor(() => commandsFrom(fake, (client) => client > 1).includes(0.7), 'the command after the reconnect');
    // Anything replayed would have been sent on connecting, before 0.7 on the same socket.
    expect(commandsFrom(fake, (client) => client === 1)).toEqual([0.1, 0.2, 0.3]);
    expect(commandsFrom(fake, (client) => client > 1)).toEqual([0.7]);
    const advertised = fake.framesOf('advertise', '/cmd_vel').filter((frame) => frame.client > 1);
    expect(advertised[0]!.message).toMatchObject({ type: 'geometry_msgs/Twist' });
  });

  it('gives every service call a deadline, and never queues one while disconnected', async () => {
    const fake = await server({ services: { '/sim/identify': () => ({ name: 'reins-sim', token: 'abc' }), '/never': () => NEVER } });
    const robot = link(fake.url);
    await expect(robot.callService('/sim/identify', 'reins/Identify', {}, 1000)).rejects.toMatchObject({ failure: 'not-connected' });
    await waitForPresence(robot, 'present');
    await expect(robot.callService('/sim/identify', 'reins/Identify', { nonce: 1 }, 1000)).resolves.toEqual({ name: 'reins-sim', token: 'abc' });
    const startedMs = Date.now();
    const silent = robot.callService('/never', 'std_srvs/Trigger', {}, 150);
    await expect(silent).rejects.toBeInstanceOf(ServiceCallError);
    await expect(silent).rejects.toMatchObject({ failure: 'timeout', message: expect.stringContaining('150 ms') });
    expect(Date.now() - startedMs).toBeLessThan(1000);
    await expect(robot.callService('/missing', 'std_srvs/Trigger', {}, 1000)).rejects.toMatchObject({
      failure: 'failed',
      message: expect.stringContaining('does not exist'),
    });
    const cut = robot.callService('/never', 'std_srvs/Trigger', {}, 5000);
    await fake.stop();
    await expect(cut).rejects.toMatchObject({ failure: 'disconnected' });
  });

  it('estimates the robot clock offset from /rosapi/get_time round trips and corrects stamps with it', async () => {
    const fake = await server({ clockOffsetMs: 5000 });
    const robot = link(fake.url);
    await fake.waitFor(
      () => fake.framesOf('call_service').filter((frame) => frame.message['service'] === '/rosapi/get_time').length >= 3,
      'three clock round trips',
    );
    const imu = await waitForMessage<Imu>(robot, '/imu');
    const estimate = robot.clockOffset();
    expect(estimate).toMatchObject({ source: 'round-trip', sampleCount: 3 });
    // The true offset lies within the estimate's own uncertainty (plus the 1 ms grain of Date.now).
    expect(Math.abs(estimate!.offsetMs - 5000)).toBeLessThanOrEqual(estimate!.uncertaintyMs! + 1);
    expect(estimate!.uncertaintyMs).toBeLessThan(250);
    expect(imu.receiveTimeMs - imu.sourceTimeMs).toBeGreaterThanOrEqual(0);
    expect(imu.receiveTimeMs - imu.sourceTimeMs).toBeLessThan(1000);
  });

  it('without rosapi, uses the topic map and takes the clock offset from message stamps', async () => {
    const fake = await server({ rosapi: false, clockOffsetMs: -3000 });
    const robot = link(fake.url);
    await waitForAlert(robot, (a) => a.key === 'rosapi');
    const [, second] = await nextMessages<JointState>(robot, '/joint_states', 2);
    expect(robot.clockOffset()).toMatchObject({ source: 'stamp-envelope', uncertaintyMs: undefined });
    // The envelope assumes the fastest message took no time: it sits just below the true −3000 ms.
    expect(robot.clockOffset()!.offsetMs).toBeLessThanOrEqual(-2999);
    expect(robot.clockOffset()!.offsetMs).toBeGreaterThan(-3500);
    expect(second!.receiveTimeMs - second!.sourceTimeMs).toBeGreaterThanOrEqual(0);
    expect(robot.topics().map((topic) => topic.topic)).toEqual(['/camera/image_raw', '/scan', '/joint_states', '/imu', '/odom']);
    expect(robot.alerts().find((a) => a.key === 'clock-offset')).toMatchObject({ severity: 'info' });
  });

  it('drops bad messages and unreadable frames with a rate-limited alert, and keeps running', async () => {
    const fake = await server();
    const robot = link(fake.url, { timings: { ...FAST, alertRepeatIntervalMs: 60_000 } });
    robot.subscribe('/camera/image_raw', () => undefined);
    await waitForMessage<Image>(robot, '/camera/image_raw');
    let announcements = 0;
    robot.on('alerts', () => announcements++);
    const short = {
      header: { seq: 1, stamp: { secs: 1, nsecs: 0 }, frame_id: 'c' },
      height: 2,
      width: 4,
      encoding: 'rgb8',
      is_bigendian: 0,
      step: 12,
      data: new Uint8Array(10),
    };
    for (let i = 0; i < 40; i++) fake.publishNow('/camera/image_raw', short);
    fake.publishNow('/camera/image_raw', { ...short, width: 'four' });
    fake.sendToAll('this is not json');
    fake.sendToAll('{"no": "op"}');
    fake.sendToAll(new Uint8Array([0xff, 0x00, 0x13]));
    const alert = await waitForAlert(robot, (a) => a.key === 'decode:/camera/image_raw');
    expect(alert.message).toMatch(/data has 10 bytes; step × height is 24/);
    expect(alert.hint).toBeDefined();
    const good = await waitForMessage<Image>(robot, '/camera/image_raw', (received) => received.msg.data.length === 24);
    expect(good.msg.width).toBe(4);
    expect(robot.presence()).toBe('present');
    expect(robot.alerts().find((a) => a.key === 'frame')).toMatchObject({ severity: 'warn' });
    expect(robot.alerts().find((a) => a.key === 'decode:/camera/image_raw')?.message).toMatch(/\(41 times\)/);
    // 44 problems under two keys, one announcement each: counts grow silently until the interval has passed.
    expect(announcements).toBe(2);
  });

  it('sends nothing to a command topic of another type, and says so', async () => {
    const fake = await server({ topics: { ...TOPICS, '/cmd_vel': { type: 'std_msgs/String', rateHz: 1, message: () => ({ data: '' }) } } });
    const robot = link(fake.url);
    await waitForPresence(robot, 'present');
    await fake.waitFor(() => fake.framesOf('call_service').find((frame) => frame.message['service'] === '/rosapi/topics'), 'discovery');
    await waitForMessage(robot, '/imu');
    expect(robot.publish('/cmd_vel', twistFromDrive({ linearMps: 0.1, angularRadps: 0 }))).toBe(false);
    expect(robot.alerts().find((a) => a.key === 'command-type:/cmd_vel')).toMatchObject({
      severity: 'error',
      message: expect.stringContaining('/cmd_vel carries std_msgs/String'),
    });
    expect(fake.framesOf('publish', '/cmd_vel')).toEqual([]);
    expect(fake.framesOf('advertise', '/cmd_vel')).toEqual([]);
  });

  it('publishes in a ROS 2 TwistStamped command topic: advertised in its type, stamp {sec, nanosec} zero, frame base_link', async () => {
    const fake = await server({ topics: { ...TOPICS, '/cmd_vel': { ...CMD_VEL, type: 'geometry_msgs/msg/TwistStamped' } } });
    const robot = link(fake.url);
    await waitForMessage(robot, '/imu');
    expect(robot.publish('/cmd_vel', twistFromDrive({ linearMps: 0.1, angularRadps: 0.2 }))).toBe(true);
    const published = await fake.waitFor(() => fake.framesOf('publish', '/cmd_vel')[0], 'the command');
    expect(fake.framesOf('advertise', '/cmd_vel')[0]!.message).toMatchObject({ type: 'geometry_msgs/msg/TwistStamped' });
    expect(published.message['msg']).toEqual({
      header: { stamp: { sec: 0, nanosec: 0 }, frame_id: 'base_link' },
      twist: { linear: { x: 0.1, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.2 } },
    });
    expect(robot.alerts().find((a) => a.key === 'command-type:/cmd_vel')).toBeUndefined();
  });

  it('refuses a URL that is not ws:// and stays closed once closed', async () => {
    const bad = link('http://localhost:9090');
    expect(bad.presence()).toBe('error');
    expect(bad.alerts()[0]).toMatchObject({ key: 'connection', severity: 'error', hint: expect.stringContaining('ws://') });
    const fake = await server();
    const robot = link(fake.url);
    await waitForPresence(robot, 'present');
    await robot.close();
    expect(robot.presence()).toBe('closed');
    expect(robot.publish('/cmd_vel', twistFromDrive({ linearMps: 0.1, angularRadps: 0 }))).toBe(false);
    await expect(robot.callService('/rosapi/topics', 'rosapi/Topics', {}, 100)).rejects.toMatchObject({ failure: 'not-connected' });
    await fake.waitFor(() => fake.clientCount() === 0, 'the link to hang up');
  });
});
