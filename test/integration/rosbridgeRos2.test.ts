// The rosbridge link against the simulated robot's ROS 2 persona (`reins sim --ros2`), which behaves
// like rosbridge_suite's ROS 2 server: the link tells ROS 2 from the robot's type names, images, scans
// and point clouds come as cbor-raw (CDR read with the definitions from topics_and_raw_types) and the
// rest as JSON with `sec`/`nanosec` stamps; /cmd_vel takes geometry_msgs/msg/TwistStamped, as on Jazzy.
// The robot moves, stops on release and on a lapsed heartbeat, nothing issued while the link was down
// arrives later, and with the cockpit's clock 10 s ahead of the robot's and the stop lost, it brakes
// within 0.6 s of the last drive command.
import { decode as decodeCbor } from 'cbor-x';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Image, LaserScan, Odometry, PointCloud2, Received, RobotMessage } from '../../main/core/messages.ts';
import { twistFromDrive, ZERO_DRIVE, type DriveCommand } from '../../main/core/messages.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import type { RosbridgeLinkOptions, RosbridgeTimings } from '../../main/links/rosbridge/rosbridgeOptions.ts';
import { openWsSocket, type SocketPort } from '../../main/links/rosbridge/socketPort.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import { startSimRosbridgeServer, type SimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { SimRobot, type SimRobotOptions } from '../../main/sim/simRobot.ts';
import type { SensorSink } from '../../main/sim/simRobot.ts';
import { waitForMessage, waitForPresence } from '../support/linkEvents.ts';
import { operatorAtTheStick } from '../support/operatorAtTheStick.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';
import { WaitableLog } from '../support/waitableLog.ts';

const FAST: Partial<RosbridgeTimings> = { backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0.2 }, serviceTimeoutMs: 1000 };
const SENSORS: Partial<SimRobotOptions> = {
  camera: { widthPx: 32, heightPx: 24, rateHz: 20 },
  scan: { beams: 90, rateHz: 15 },
  points: { layers: 4, beams: 90, rateHz: 10 },
};

interface TakenCommand extends DriveCommand {
  ageSecs: number;
  simTimeSecs: number;
}

/** The simulated robot, noting every command its controller took and its true forward speed after every step. */
class WatchedRobot extends SimRobot {
  readonly taken = new WaitableLog<TakenCommand>('commands the robot took');
  readonly speeds = new WaitableLog<{ simTimeSecs: number; linearMps: number }>('true speeds');

  override drive(command: DriveCommand, ageSecs = 0): boolean {
    this.taken.push({ linearMps: command.linearMps, angularRadps: command.angularRadps, ageSecs, simTimeSecs: this.simTimeSecs() });
    return super.drive(command, ageSecs);
  }

  override step(dtSecs: number, sink?: SensorSink): void {
    super.step(dtSecs, sink);
    this.speeds.push({ simTimeSecs: this.simTimeSecs(), linearMps: this.groundTruth().linearMps });
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function ros2Robot(
  options: { port?: number; clockAheadMs?: number; robot?: WatchedRobot } = {},
): Promise<{ robot: WatchedRobot; server: SimRosbridgeServer }> {
  const robot = options.robot ?? new WatchedRobot({ arenaSeed: 3, episodeSeed: 5, ...SENSORS });
  const server = await startSimRosbridgeServer({ robot, port: options.port ?? 0, rosVersion: 2, clockAheadMs: options.clockAheadMs ?? 0 });
  cleanups.push(() => server.close());
  return { robot, server };
}

/** How each topic's messages arrived: JSON text, CBOR, or cbor-raw (a CBOR `msg` of exactly {secs, nsecs, bytes}). */
type WireLog = Map<string, Set<string>>;

function watchWire(socket: SocketPort, wire: WireLog, envelopes: Array<Record<string, unknown>>): SocketPort {
  const note = (op: { op?: string; topic?: unknown; msg?: unknown }, encoding: string) => {
    if (op.op === 'publish' && typeof op.topic === 'string') wire.set(op.topic, (wire.get(op.topic) ?? new Set()).add(encoding));
  };
  return {
    ...socket,
    listen: (handlers) =>
      socket.listen({
        ...handlers,
        frame: (data) => {
          if (typeof data === 'string') {
            note(JSON.parse(data) as { op?: string; topic?: unknown }, 'json');
          } else {
            const op = decodeCbor(new Uint8Array(data)) as { op?: string; topic?: unknown; msg?: Record<string, unknown> };
            const raw = op.msg !== undefined && Object.keys(op.msg).sort().join() === 'bytes,nsecs,secs';
            if (raw) envelopes.push(op.msg!);
            note(op, raw ? 'cbor-raw' : 'cbor');
          }
          handlers.frame(data);
        },
      }),
  };
}

function ros2Link(
  server: SimRosbridgeServer,
  options: Partial<RosbridgeLinkOptions> = {},
): { link: RosbridgeLink; wire: WireLog; envelopes: Array<Record<string, unknown>> } {
  const wire: WireLog = new Map();
  const envelopes: Array<Record<string, unknown>> = [];
  const link = new RosbridgeLink({
    url: server.url,
    simulated: true,
    timings: FAST,
    openSocket: (url) => watchWire(openWsSocket(url), wire, envelopes),
    ...options,
  });
  cleanups.push(() => link.close());
  return { link, wire, envelopes };
}

/** Subscribes until a first odometry message: discovery has run by then. */
async function ready(link: RosbridgeLink): Promise<WaitableLog<Odometry>> {
  const odom = new WaitableLog<Odometry>('/odom');
  cleanups.push(link.subscribe<Odometry>('/odom', (received) => odom.push(received.msg)));
  await odom.until((items) => items.length > 0, 'odometry', 10_000);
  return odom;
}

describe('RosbridgeLink ↔ the simulated robot as a ROS 2 rosbridge server', () => {
  it('tells ROS 2 from the robot, takes images, scans and point clouds as cbor-raw and the rest as JSON, stamps from inside the CDR', async () => {
    const { server } = await ros2Robot();
    const { link, wire, envelopes } = ros2Link(server);
    await ready(link);
    expect(link.topics()).toContainEqual({ topic: '/camera/image_raw', type: 'sensor_msgs/msg/Image', kind: 'Image' });
    expect(link.topics()).toContainEqual({ topic: '/cmd_vel', type: 'geometry_msgs/msg/TwistStamped', kind: 'Twist' });

    const image = await waitForMessage<Image>(link, '/camera/image_raw', () => true, 10_000);
    const scan = await waitForMessage<LaserScan>(link, '/scan', () => true, 10_000);
    const cloud = await waitForMessage<PointCloud2>(link, '/points', () => true, 10_000);
    const odom = await waitForMessage<Odometry>(link, '/odom', () => true, 10_000);
    expect([image.msg.width, image.msg.height, image.msg.data.byteLength]).toEqual([32, 24, 32 * 24 * 3]);
    expect(scan.msg.rangesM).toBeInstanceOf(Float32Array);
    expect(scan.msg.rangesM.length).toBe(90);
    expect(cloud.msg.width * cloud.msg.height).toBeGreaterThan(0);
    expect(cloud.msg.data.byteLength).toBe(cloud.msg.rowStepBytes * cloud.msg.height);

    for (const topic of ['/camera/image_raw', '/scan', '/points']) expect(wire.get(topic)).toEqual(new Set(['cbor-raw']));
    expect(wire.get('/odom')).toEqual(new Set(['json']));
    // rosbridge_suite's shape: the CDR with its encapsulation header (0x00 0x01: little-endian CDR).
    const bytes = envelopes[0]!['bytes'] as Uint8Array;
    expect([...bytes.subarray(0, 4)]).toEqual([0, 1, 0, 0]);
    // The received message keeps the robot's ROS 2 origin: its type, definition and (cbor-raw) CDR bytes.
    expect(image.ros2).toMatchObject({ rosType: 'sensor_msgs/msg/Image', definitionText: expect.stringContaining('MSG: builtin_interfaces/Time') });
    expect(image.ros2?.cdr?.subarray(0, 2)).toEqual(new Uint8Array([0, 1]));
    expect(odom.ros2).toMatchObject({ rosType: 'nav_msgs/msg/Odometry' });
    expect(odom.ros2?.cdr).toBeUndefined();
    // JSON stamps are sec/nanosec on ROS 2, read from the message's header.
    expect((odom.raw as { header: { stamp: object } }).header.stamp).toEqual({ sec: expect.any(Number), nanosec: expect.any(Number) });
    for (const received of [image, scan, cloud, odom] as Received<RobotMessage>[]) {
      expect(Math.abs(received.sourceTimeMs - received.receiveTimeMs)).toBeLessThan(1000);
    }
    expect(link.alerts().filter((alert) => alert.severity !== 'info')).toEqual([]);
  }, 20_000);

  it('drives with TwistStamped through the control loop: moves, stops on release and on a lapsed heartbeat', async () => {
    const { robot, server } = await ros2Robot();
    const { link } = ros2Link(server);
    await ready(link);
    const loop = await createControlLoop(link, { perception: await loadPerception(testEncoderManifest()) });
    loop.start();
    cleanups.push(() => loop.close());
    const atRobot = () => robot.taken.items.at(-1);

    let stopOperator = operatorAtTheStick(loop, () => ({ linearMps: 0.3, angularRadps: 0 }));
    await robot.speeds.until((items) => items.at(-1)!.linearMps > 0.2, 'the robot moving', 10_000);
    stopOperator();
    const heartbeat = setInterval(() => loop.heartbeat(), 50);
    loop.operatorDrive(ZERO_DRIVE);
    await robot.taken.until(() => atRobot()?.linearMps === 0, 'the stop on release');
    clearInterval(heartbeat);
    await robot.speeds.until((items) => items.at(-1)!.linearMps < 0.01, 'the robot at rest');

    stopOperator = operatorAtTheStick(loop, () => ({ linearMps: 0.3, angularRadps: 0 }));
    await robot.speeds.until((items) => items.at(-1)!.linearMps > 0.2, 'the robot moving again', 10_000);
    stopOperator();
    await robot.taken.until(() => atRobot()?.linearMps === 0 && atRobot()?.angularRadps === 0, 'the watchdog stop');
    await robot.speeds.until((items) => items.at(-1)!.linearMps < 0.01, 'the robot at rest again');
  }, 30_000);

  it('delivers nothing issued while the link was down: only commands issued after the reconnect', async () => {
    const robot = new WatchedRobot({ arenaSeed: 3, ...SENSORS });
    const first = await ros2Robot({ robot });
    const { link } = ros2Link(first.server);
    await ready(link);
    const forward = (linearMps: number) => twistFromDrive({ linearMps, angularRadps: 0 });
    for (const speed of [0.11, 0.12]) expect(link.publish('/cmd_vel', forward(speed))).toBe(true);
    await robot.taken.until((items) => items.length === 2, 'the commands before the dropout');

    await first.server.close();
    await waitForPresence(link, 'reconnecting');
    for (const speed of [0.21, 0.22]) expect(link.publish('/cmd_vel', forward(speed))).toBe(false);
    await ros2Robot({ robot, port: first.server.port });
    await waitForPresence(link, 'present', 10_000);
    for (const speed of [0.31, 0.32]) expect(link.publish('/cmd_vel', forward(speed))).toBe(true);
    await robot.taken.until((items) => items.length >= 4, 'the commands after the reconnect');
    expect(robot.taken.items.map((command) => command.linearMps)).toEqual([0.11, 0.12, 0.31, 0.32]);
  }, 20_000);
});

describe('cbor-raw where it cannot be served', () => {
  /** The status error the server answers a subscribe op with. */
  async function refusal(server: SimRosbridgeServer, subscribe: object): Promise<string> {
    const socket = new WebSocket(server.url);
    cleanups.push(() => socket.terminate());
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const status = new Promise<string>((resolve) =>
      socket.on('message', (data, isBinary) => {
        const op = isBinary ? undefined : (JSON.parse(String(data)) as { op: string; msg: string });
        if (op?.op === 'status') resolve(op.msg);
      }),
    );
    socket.send(JSON.stringify({ op: 'subscribe', ...subscribe }));
    return status;
  }

  it('refuses it in words: on a type without a fixed definition, and on the ROS 1 persona', async () => {
    const { server } = await ros2Robot();
    expect(await refusal(server, { topic: '/sim/ground_truth', compression: 'cbor-raw' })).toMatch(
      /no fixed definition, so it cannot be sent as cbor-raw; use cbor/,
    );
    const ros1 = await startSimRosbridgeServer({ robot: new SimRobot({ camera: { widthPx: 32, heightPx: 24 } }), port: 0 });
    cleanups.push(() => ros1.close());
    expect(await refusal(ros1, { topic: '/scan', compression: 'cbor-raw' })).toBe('compression "cbor-raw" is not served; use none, cbor, png');
  });
});

describe("the ROS 2 persona with the cockpit's clock 10 s ahead of the robot's and the stop command lost", () => {
  for (const stamp of ['zero', 'robot'] as const) {
    it(`brakes within 0.6 s of the last drive command (stamp ${stamp})`, async () => {
      const { robot, server } = await ros2Robot({ clockAheadMs: -10_000 });
      const { link } = ros2Link(server, { command: { stamp } });
      const odom = await ready(link);
      if (stamp === 'robot') await odom.until(() => (link.clockOffset()?.sampleCount ?? 0) >= 3, 'the clock offset', 10_000);
      const drive = () => expect(link.publish('/cmd_vel', twistFromDrive({ linearMps: 0.3, angularRadps: 0 }))).toBe(true);
      drive();
      const operator = setInterval(drive, 100);
      try {
        await robot.speeds.until((items) => items.at(-1)!.linearMps > 0.25, 'the robot at speed', 10_000);
      } finally {
        clearInterval(operator);
      }
      // No stop is sent: the robot's own timeout must brake it, on its clock, from the last command.
      const lastTakenCount = robot.taken.items.length;
      await robot.speeds.until((items) => items.at(-1)!.linearMps < 0.01, 'the robot braked to rest', 10_000);
      expect(robot.taken.items.length).toBe(lastTakenCount);
      const last = robot.taken.items.at(-1)!;
      // Stamped zero or on the robot's clock, never 10 s from its future.
      expect(Math.abs(last.ageSecs)).toBeLessThan(0.1);
      // Braking: the first step after the last command at which the true speed falls.
      const speeds = robot.speeds.items;
      const braking = speeds.find((sample, index) => sample.simTimeSecs > last.simTimeSecs && sample.linearMps < speeds[index - 1]!.linearMps - 1e-3)!;
      expect(braking.simTimeSecs - last.simTimeSecs).toBeLessThanOrEqual(0.6);
      expect(braking.simTimeSecs - last.simTimeSecs).toBeGreaterThanOrEqual(0.45);
    }, 30_000);
  }
});
