// The rosbridge link against the real simulated robot (its rosbridge server, in process on a free
// port): every sensor topic decoded at its configured rate over JSON and over CBOR, topics found
// through rosapi, a command through the link that moves the robot and a robot that stops by itself
// 0.5 s after the last one, the identity handshake, and a clock offset near zero on one machine.
import { decode as decodeCbor } from 'cbor-x';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Image, Imu, JointState, LaserScan, Odometry, PointCloud2, Received, RobotMessage } from '../../main/core/messages.ts';
import { twistFromDrive } from '../../main/core/messages.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import type { RosbridgeLinkOptions, RosbridgeTimings } from '../../main/links/rosbridge/rosbridgeOptions.ts';
import { openWsSocket, type SocketPort } from '../../main/links/rosbridge/socketPort.ts';
import type { WireCompression } from '../../main/links/rosbridge/topicRoutes.ts';
import { startSimRosbridgeServer, type SimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { waitForMessage, waitForPresence } from '../support/linkEvents.ts';
import { WaitableLog } from '../support/waitableLog.ts';

const CAMERA = { widthPx: 64, heightPx: 48, rateHz: 20 };
const SCAN = { beams: 90, rateHz: 15 };
const POINTS = { layers: 4, beams: 90, rateHz: 10 };
const IDENTITY = 'link-test-identity-0123456789';
const SENSORS = [
  { topic: '/camera/image_raw', type: 'sensor_msgs/Image', kind: 'Image', rateHz: CAMERA.rateHz },
  { topic: '/scan', type: 'sensor_msgs/LaserScan', kind: 'LaserScan', rateHz: SCAN.rateHz },
  { topic: '/joint_states', type: 'sensor_msgs/JointState', kind: 'JointState', rateHz: 50 },
  { topic: '/imu', type: 'sensor_msgs/Imu', kind: 'Imu', rateHz: 100 },
  { topic: '/odom', type: 'nav_msgs/Odometry', kind: 'Odometry', rateHz: 50 },
  { topic: '/points', type: 'sensor_msgs/PointCloud2', kind: 'PointCloud2', rateHz: POINTS.rateHz },
] as const;
const FAST: Partial<RosbridgeTimings> = { backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0.2 }, serviceTimeoutMs: 1000 };

let robot: SimRobot;
let server: SimRosbridgeServer;
beforeAll(async () => {
  robot = new SimRobot({ arenaSeed: 3, episodeSeed: 5, camera: CAMERA, scan: SCAN, points: POINTS });
  server = await startSimRosbridgeServer({ robot, port: 0, identity: IDENTITY });
});
afterAll(async () => {
  await server.close();
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** How each topic's messages arrived on the wire: 'json' for text frames, 'cbor' for binary ones. */
type WireLog = Map<string, Set<'json' | 'cbor'>>;

function link(options: Partial<RosbridgeLinkOptions> = {}): { link: RosbridgeLink; wire: WireLog } {
  const wire: WireLog = new Map();
  const created = new RosbridgeLink({ url: server.url, simulated: true, timings: FAST, openSocket: (url) => watchWire(openWsSocket(url), wire), ...options });
  cleanups.push(() => created.close());
  return { link: created, wire };
}

/** The real socket, noting the encoding of every `publish` frame the server sends down it. */
function watchWire(socket: SocketPort, wire: WireLog): SocketPort {
  const note = (topic: unknown, encoding: 'json' | 'cbor') => {
    if (typeof topic === 'string') wire.set(topic, (wire.get(topic) ?? new Set()).add(encoding));
  };
  return {
    ...socket,
    listen: (handlers) =>
      socket.listen({
        ...handlers,
        frame: (data) => {
          if (typeof data === 'string') {
            const op = JSON.parse(data) as { op?: string; topic?: unknown };
            if (op.op === 'publish') note(op.topic, 'json');
          } else {
            const op = decodeCbor(new Uint8Array(data)) as { op?: string; topic?: unknown };
            if (op.op === 'publish') note(op.topic, 'cbor');
          }
          handlers.frame(data);
        },
      }),
  };
}

/** A topic's messages as they arrive, to wait on. */
function collect<M extends RobotMessage>(robotLink: RosbridgeLink, topic: string): WaitableLog<Received<M>> {
  const log = new WaitableLog<Received<M>>(topic);
  cleanups.push(robotLink.subscribe<M>(topic, (message) => log.push(message)));
  return log;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe.each<WireCompression>(['none', 'cbor'])('RosbridgeLink ↔ simulated robot, every sensor topic with compression %s', (compression) => {
  it('arrives decoded, at its configured rate, over the encoding asked for', async () => {
    const { link: robotLink, wire } = link({ compression: Object.fromEntries(SENSORS.map(({ topic }) => [topic, compression])) });
    const streams = SENSORS.map((sensor) => ({ ...sensor, log: collect(robotLink, sensor.topic) }));
    await Promise.all(streams.map((stream) => stream.log.until((items) => items.length > 0, 'a first message')));
    const scan = streams.find((stream) => stream.topic === '/scan')!.log;
    const startMs = Date.now();
    const scansAtStart = scan.items.length;
    // At least 1.2 s of wall time: the time the 15 Hz scan takes to send 18 more.
    await scan.until((items) => items.length >= scansAtStart + 18, '18 more scans');
    const endMs = Date.now();

    for (const stream of streams) {
      expect(wire.get(stream.topic), `${stream.topic} on the wire`).toEqual(new Set([compression === 'cbor' ? 'cbor' : 'json']));
      expect(
        stream.log.items.every(({ msg }) => msg.kind === stream.kind),
        `${stream.topic} kind`,
      ).toBe(true);
      const inWindow = stream.log.items.filter((each) => each.receiveTimeMs > startMs && each.receiveTimeMs <= endMs);
      const wallRateHz = inWindow.length / ((endMs - startMs) / 1000);
      // Real time, with room for a loaded test machine (a starved simulation skips ahead).
      expect(wallRateHz, `${stream.topic} over the wall clock`).toBeGreaterThan(stream.rateHz * 0.5);
      expect(wallRateHz, `${stream.topic} over the wall clock`).toBeLessThan(stream.rateHz * 1.5);
      // Source times are the robot's stamps on the cockpit clock: one period apart, to the 10 ms physics step.
      const gapsMs = stream.log.items.slice(1).map((each, index) => each.sourceTimeMs - stream.log.items[index]!.sourceTimeMs);
      expect(Math.abs(median(gapsMs) - 1000 / stream.rateHz), `${stream.topic} period by its stamps`).toBeLessThanOrEqual(11);
      expect(
        stream.log.items.every((each) => each.sourceTimeMs <= each.receiveTimeMs),
        `${stream.topic} arrives after it was stamped`,
      ).toBe(true);
    }

    const [image] = streams[0]!.log.items as Array<Received<Image>>;
    expect(image!.msg).toMatchObject({ width: CAMERA.widthPx, height: CAMERA.heightPx, encoding: 'rgb8', step: CAMERA.widthPx * 3 });
    expect(image!.msg.data).toHaveLength(CAMERA.widthPx * CAMERA.heightPx * 3);
    const [laser] = scan.items as Array<Received<LaserScan>>;
    const rangesM = [...laser!.msg.rangesM];
    expect(rangesM).toHaveLength(SCAN.beams);
    expect(rangesM.filter((rangeM) => rangeM >= 0.12 && rangeM <= 8).length).toBeGreaterThan(SCAN.beams / 2);
    // The rest are dropouts (NaN) or beyond range (inf); JSON carries both as null, read as NaN.
    expect(rangesM.every((rangeM) => Number.isNaN(rangeM) || (rangeM >= 0.12 && rangeM <= 8) || (rangeM === Infinity && compression === 'cbor'))).toBe(true);
    const [joints] = streams[2]!.log.items as Array<Received<JointState>>;
    expect(joints!.msg.names).toHaveLength(2);
    expect(joints!.msg.velocitiesRadps).toHaveLength(2);
    const [imu] = streams[3]!.log.items as Array<Received<Imu>>;
    expect(imu!.msg.linearAccelerationMps2.z).toBeCloseTo(9.81, 0);
    const [cloud] = streams[5]!.log.items as Array<Received<PointCloud2>>;
    expect(cloud!.msg).toMatchObject({ frameId: 'base_link', height: 1, pointStepBytes: 16, bigEndian: false, isDense: true });
    expect(cloud!.msg.fields.map((field) => field.name)).toEqual(['x', 'y', 'z', 'intensity']);
    expect(cloud!.msg.width).toBeGreaterThan(0);
    expect(cloud!.msg.width).toBeLessThanOrEqual(POINTS.layers * POINTS.beams);
    expect(cloud!.msg.data).toHaveLength(cloud!.msg.width * 16);
  });
});

describe('RosbridgeLink ↔ simulated robot', () => {
  it('discovers the robot topics and their types through rosapi', async () => {
    const { link: robotLink } = link();
    // Subscriptions wait for discovery, so a first message means discovery has run.
    await waitForMessage(robotLink, '/imu');
    const offered = robotLink.topics();
    for (const { topic, type, kind } of SENSORS) expect(offered).toContainEqual({ topic, type, kind });
    // Only rosapi knows of the command topic; the link's defaults list sensors alone.
    expect(offered).toContainEqual({ topic: '/cmd_vel', type: 'geometry_msgs/Twist', kind: 'Twist' });
    // Ground truth is for tests and benchmarks: not a kind the link decodes, so not offered.
    expect(offered.map((each) => each.topic)).not.toContain('/sim/ground_truth');
  });

  it('drives the robot with a command through the link, and the robot stops by itself 0.5 s after the last one', async () => {
    const { link: robotLink } = link();
    const odom = collect<Odometry>(robotLink, '/odom');
    await waitForPresence(robotLink, 'present');
    await odom.until(() => odom.items.length > 0, 'odometry');
    const startYawRad = odom.items.at(-1)!.msg.odomFromBaseYawRad;
    // Turning on the spot moves the robot whatever the arena has in front of it.
    const turn = twistFromDrive({ linearMps: 0, angularRadps: 1.5 });
    let lastCommandMs = 0;
    const send = () => {
      expect(robotLink.publish('/cmd_vel', turn)).toBe(true);
      lastCommandMs = Date.now();
    };
    send();
    const operator = setInterval(send, 100);
    try {
      await odom.until(() => Math.abs(odom.items.at(-1)!.msg.angularRadps) > 1.2, 'the robot turning');
    } finally {
      clearInterval(operator);
    }
    expect(odom.items.at(-1)!.msg.odomFromBaseYawRad).not.toBe(startYawRad);
    const sinceLast = odom.items.length;
    await odom.until(() => odom.items.slice(sinceLast).some(({ msg }) => msg.angularRadps === 0), 'the robot at rest');
    const after = odom.items.slice(sinceLast);
    const firstAtRest = after.find(({ msg }) => msg.angularRadps === 0)!;
    // It kept turning on the last command for its 0.5 s timeout, then braked (6 rad/s²: 0.25 s from 1.5 rad/s).
    const beforeTimeout = after.filter((each) => each.sourceTimeMs < lastCommandMs + 400);
    expect(beforeTimeout.length).toBeGreaterThan(0);
    expect(beforeTimeout.every(({ msg }) => Math.abs(msg.angularRadps) > 1)).toBe(true);
    const stoppedAfterMs = firstAtRest.sourceTimeMs - lastCommandMs;
    expect(stoppedAfterMs).toBeGreaterThan(450);
    expect(stoppedAfterMs).toBeLessThan(1100);
  });

  it('answers /sim/identify through the link with the identity the sim was started with', async () => {
    const { link: robotLink } = link();
    await waitForPresence(robotLink, 'present');
    await expect(robotLink.callService('/sim/identify', 'reins_sim/Identify', {}, 1000)).resolves.toEqual({ identity: IDENTITY, robot_name: 'reins-sim' });
  });

  it('estimates a clock offset near zero from /rosapi/get_time, the robot being on the same machine', async () => {
    const { link: robotLink } = link();
    // Each IMU message (100 Hz) is a moment to look: wait until the opening burst of round trips is in.
    const imu = await waitForMessage<Imu>(robotLink, '/imu', () => (robotLink.clockOffset()?.sampleCount ?? 0) >= 3);
    const estimate = robotLink.clockOffset()!;
    expect(estimate.source).toBe('round-trip');
    expect(estimate.uncertaintyMs).toBeLessThan(50);
    // Same clock on both sides: what is left is the sim's step (10 ms) and the round trip's asymmetry.
    expect(Math.abs(estimate.offsetMs)).toBeLessThan(20);
    const latencyMs = imu.receiveTimeMs - imu.sourceTimeMs;
    expect(latencyMs).toBeGreaterThanOrEqual(0);
    expect(latencyMs).toBeLessThan(100);
  });
});
