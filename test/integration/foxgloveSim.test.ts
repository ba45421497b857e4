// The foxglove link driving the simulated robot served as foxglove_bridge 3.x serves a ROS 2 robot
// (subprotocol foxglove.sdk.v1, cdr channels with ros2msg schemas), its /cmd_vel taking
// geometry_msgs/msg/TwistStamped with Jazzy's rules: sensors arrive decoded, the command type is
// read from the bridge's channel list, the robot moves, stops on release and on a lapsed
// heartbeat, nothing issued while the link was down arrives later, and the probe lists the channels.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import pino from 'pino';
import { RobotConnections } from '../../main/api/robotConnections.ts';
import { probeLink } from '../../main/cli/probe/runProbe.ts';
import { twistFromDrive, ZERO_DRIVE, type DriveCommand, type Image, type LaserScan, type Odometry } from '../../main/core/messages.ts';
import { FoxgloveLink } from '../../main/links/foxglove/foxgloveLink.ts';
import type { FoxgloveLinkOptions } from '../../main/links/foxglove/foxgloveOptions.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { SwitchableLink } from '../../main/links/switchableLink.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { openRobot } from '../../main/session/openRobot.ts';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import { startFoxgloveSim, type FoxgloveSim } from '../support/foxgloveSim.ts';
import { waitForMessage, waitForPresence } from '../support/linkEvents.ts';
import { operatorAtTheStick } from '../support/operatorAtTheStick.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';
import { WaitableLog } from '../support/waitableLog.ts';

const FAST = { backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0.2 } };

interface ReceivedCommand extends DriveCommand {
  ageSecs: number;
}

/** The simulated robot, noting every command its controller took (a dropped stale one never gets here). */
class CommandLoggingRobot extends SimRobot {
  readonly received = new WaitableLog<ReceivedCommand>('commands the robot took');

  override drive(command: DriveCommand, ageSecs = 0): boolean {
    this.received.push({ linearMps: command.linearMps, angularRadps: command.angularRadps, ageSecs });
    return super.drive(command, ageSecs);
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function stampedRobot(port = 0): Promise<{ robot: CommandLoggingRobot; sim: FoxgloveSim }> {
  const robot = new CommandLoggingRobot({ camera: { widthPx: 32, heightPx: 24 } });
  return startFoxgloveSim(robot, { commandType: 'twist-stamped', port }).then((sim) => ({ robot, sim }));
}

let robot: CommandLoggingRobot;
let sim: FoxgloveSim;
beforeAll(async () => {
  ({ robot, sim } = await stampedRobot());
});
afterAll(async () => {
  await sim.close();
});

async function readyLink(options: Partial<FoxgloveLinkOptions> = {}, url = sim.foxglove.url): Promise<{ link: FoxgloveLink; odom: WaitableLog<Odometry> }> {
  const link = new FoxgloveLink({ url, simulated: true, timings: FAST, ...options });
  cleanups.push(() => link.close());
  const odom = new WaitableLog<Odometry>('/odom');
  cleanups.push(link.subscribe<Odometry>('/odom', (received) => odom.push(received.msg)));
  await odom.until((items) => items.length > 0, 'odometry');
  return { link, odom };
}

const turn = twistFromDrive({ linearMps: 0, angularRadps: 1.5 });

describe('FoxgloveLink ↔ simulated robot served as foxglove_bridge 3.x, /cmd_vel taking TwistStamped', () => {
  it('selects foxglove.sdk.v1, lists the channels with ROS 2 types, and decodes cdr camera, scan and odometry', async () => {
    const { link, odom } = await readyLink();
    expect(link.alerts().find((alert) => alert.key === 'subprotocol')).toBeUndefined();
    expect(link.topics()).toEqual(
      expect.arrayContaining([
        { topic: '/camera/image_raw', kind: 'Image', type: 'sensor_msgs/msg/Image' },
        { topic: '/scan', kind: 'LaserScan', type: 'sensor_msgs/msg/LaserScan' },
        { topic: '/odom', kind: 'Odometry', type: 'nav_msgs/msg/Odometry' },
        { topic: '/cmd_vel', kind: 'Twist', type: 'geometry_msgs/msg/TwistStamped' },
      ]),
    );
    const images = new WaitableLog<Image>('/camera/image_raw');
    const scans = new WaitableLog<LaserScan>('/scan');
    cleanups.push(link.subscribe<Image>('/camera/image_raw', (received) => images.push(received.msg)));
    cleanups.push(link.subscribe<LaserScan>('/scan', (received) => scans.push(received.msg)));
    await images.until((items) => items.length > 0, 'a camera frame');
    await scans.until((items) => items.length > 0, 'a scan');
    expect(images.items[0]).toMatchObject({ kind: 'Image', width: 32, height: 24, encoding: 'rgb8' });
    expect(images.items[0]!.data.byteLength).toBe(32 * 24 * 3);
    expect(scans.items[0]!.rangesM.length).toBeGreaterThan(0);
    expect(odom.items[0]).toMatchObject({ kind: 'Odometry' });
    expect(link.alerts().filter((alert) => alert.severity !== 'info')).toEqual([]);
  });

  it('publishes TwistStamped (stamp zero, frame base_link) through client publishing: every command moves the robot', async () => {
    const { link, odom } = await readyLink();
    const before = robot.received.items.length;
    let sent = 0;
    const send = () => {
      expect(link.publish('/cmd_vel', turn)).toBe(true);
      sent++;
    };
    send();
    const operator = setInterval(send, 100);
    try {
      await odom.until((items) => Math.abs(items.at(-1)!.angularRadps) > 1.2, 'the robot turning');
    } finally {
      clearInterval(operator);
    }
    await robot.received.until((items) => items.length - before >= sent, 'every command at the robot');
    expect(robot.received.items.slice(before).every((command) => command.angularRadps === 1.5 && command.ageSecs === 0)).toBe(true);
  });

  it('through the control loop, stops the robot on release and on a lapsed heartbeat', async () => {
    const { link } = await readyLink();
    const loop = await createControlLoop(link, { perception: await loadPerception(testEncoderManifest()) });
    loop.start();
    cleanups.push(() => loop.close());
    const atRobot = () => robot.received.items.at(-1);

    let stopOperator = operatorAtTheStick(loop, () => ({ linearMps: 0, angularRadps: 1 }));
    await robot.received.until(() => atRobot()?.angularRadps === 1, 'the operator driving');
    stopOperator();
    const heartbeat = setInterval(() => loop.heartbeat(), 50);
    loop.operatorDrive(ZERO_DRIVE);
    await robot.received.until(() => atRobot()?.angularRadps === 0, 'the stop on release');
    clearInterval(heartbeat);

    stopOperator = operatorAtTheStick(loop, () => ({ linearMps: 0, angularRadps: 1 }));
    await robot.received.until(() => atRobot()?.angularRadps === 1, 'the operator driving again');
    stopOperator();
    const lapsedAtMs = Date.now();
    await robot.received.until(() => atRobot()?.angularRadps === 0 && atRobot()?.linearMps === 0, 'the watchdog stop');
    expect(Date.now() - lapsedAtMs).toBeLessThan(1500);
  });

  it('lists every channel with its type, rate, bytes per second and latency in the probe', async () => {
    const { link } = await readyLink();
    const report = await probeLink(link, sim.foxglove.url, 1);
    expect(report.connected).toBe(true);
    expect(report.command).toEqual({ topic: '/cmd_vel', type: 'geometry_msgs/msg/TwistStamped' });
    const odom = report.topics.find((topic) => topic.name === '/odom');
    expect(odom).toMatchObject({ type: 'nav_msgs/msg/Odometry' });
    expect(odom!.hz).toBeGreaterThan(10);
    expect(odom!.bytesPerSec).toBeGreaterThan(0);
    expect(odom!.latencyMsP50).toBeGreaterThanOrEqual(0);
    expect(report.topics.map((topic) => topic.name)).toEqual(expect.arrayContaining(['/camera/image_raw', '/scan', '/imu', '/joint_states']));
  });

  it('is refused with HTTP 400 when it offers only foxglove.websocket.v1, as foxglove_bridge 3.x does', async () => {
    const socket = new WebSocket(sim.foxglove.url, ['foxglove.websocket.v1']);
    socket.on('error', () => undefined);
    const status = await new Promise<number>((resolve, reject) => {
      socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.once('open', () => reject(new Error('the server accepted the old subprotocol alone')));
    });
    socket.terminate();
    expect(status).toBe(400);
  });
});

describe('the Connect-robot dialog', () => {
  it('connects to foxglove://HOST:PORT and shows the command topic in its type', async () => {
    const start = new FoxgloveLink({ url: sim.foxglove.url, simulated: true });
    const switchable = new SwitchableLink(start);
    const connections = new RobotConnections(
      switchable,
      { robot: 'start', opened: { link: start, close: () => start.close() } },
      { openRobot: (spec, topics) => openRobot(spec, pino({ level: 'silent' }), [], topics), driver: () => 'idle' },
    );
    cleanups.push(() => connections.close());
    const port = new URL(sim.foxglove.url).port;
    const outcome = connections.connect(`foxglove://127.0.0.1:${port}`, undefined);
    expect(outcome.ok).toBe(true);
    await outcome.settled;
    const state = connections.state();
    expect(state).toMatchObject({ robot: `foxglove://127.0.0.1:${port}`, status: 'connected' });
    await waitForPresence(start, 'closed');
    // A first message means the channel list (which follows serverInfo) has been read: the dialog reads the command type from it.
    await waitForMessage(switchable, '/odom');
    expect(connections.state().command).toEqual({ topic: '/cmd_vel', type: 'geometry_msgs/msg/TwistStamped' });
  });
});

describe('an older foxglove server (--foxglove-legacy, foxglove.websocket.v1 only)', () => {
  it('the link falls back to the old subprotocol and works, saying so', async () => {
    const own = new CommandLoggingRobot({ camera: { widthPx: 32, heightPx: 24 } });
    const legacy = await startFoxgloveSim(own, { commandType: 'twist', legacy: true });
    cleanups.push(() => legacy.close());
    const { link } = await readyLink({}, legacy.foxglove.url);
    expect(link.alerts()).toContainEqual(expect.objectContaining({ key: 'subprotocol', message: expect.stringContaining('foxglove.websocket.v1') }));
    expect(link.topics()).toContainEqual({ topic: '/cmd_vel', kind: 'Twist', type: 'geometry_msgs/msg/Twist' });
    expect(link.publish('/cmd_vel', twistFromDrive({ linearMps: 0.2, angularRadps: 0 }))).toBe(true);
    await own.received.until((items) => items.some((command) => command.linearMps === 0.2), 'the Twist command at the robot');
  });
});

describe('a foxglove dropout with a TwistStamped command topic', () => {
  it('nothing issued while the link was down reaches the robot later: only commands issued after the reconnect', async () => {
    const { robot: own, sim: first } = await stampedRobot();
    const port = first.foxglove.port;
    let current = first;
    cleanups.push(() => current.close());
    const { link } = await readyLink({}, first.foxglove.url);
    const forward = (linearMps: number) => twistFromDrive({ linearMps, angularRadps: 0 });
    for (const speed of [0.11, 0.12]) expect(link.publish('/cmd_vel', forward(speed))).toBe(true);
    await own.received.until((items) => items.length === 2, 'the commands before the dropout');

    await first.close();
    await waitForPresence(link, 'reconnecting');
    for (const speed of [0.21, 0.22]) expect(link.publish('/cmd_vel', forward(speed))).toBe(false);
    current = await startFoxgloveSim(own, { commandType: 'twist-stamped', port });
    await waitForPresence(link, 'present');
    // The channel list arrives right after serverInfo; the command type comes from it.
    const odom = new WaitableLog<Odometry>('/odom after the reconnect');
    cleanups.push(link.subscribe<Odometry>('/odom', (received) => odom.push(received.msg)));
    await odom.until((items) => items.length > 0, 'odometry after the reconnect');
    for (const speed of [0.31, 0.32]) expect(link.publish('/cmd_vel', forward(speed))).toBe(true);
    await own.received.until((items) => items.length >= 4, 'the commands after the reconnect');
    expect(own.received.items.map((command) => command.linearMps)).toEqual([0.11, 0.12, 0.31, 0.32]);
    expect(link.alerts().find((alert) => alert.key === 'connection')).toBeUndefined();
  });
});
