// The rosbridge link driving a simulated robot whose /cmd_vel takes geometry_msgs/TwistStamped with
// ROS 2 Jazzy's rules (a zero stamp is "now", a stamp 0.5 s old is dropped silently) and whose clock
// runs 10 s ahead of the cockpit's: the link reads the type from rosapi, stamps zero or the robot's
// clock (never its own), every command moves the robot, the loop's stops go out in that type, nothing
// issued while the link was down arrives later, and the probe shows the command type and the offset.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { RobotConnections } from '../../main/api/robotConnections.ts';
import { probeLink } from '../../main/cli/probe/runProbe.ts';
import { twistFromDrive, ZERO_DRIVE, type DriveCommand, type Odometry } from '../../main/core/messages.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import { SwitchableLink } from '../../main/links/switchableLink.ts';
import type { RosbridgeLinkOptions, RosbridgeTimings } from '../../main/links/rosbridge/rosbridgeOptions.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { startSimRosbridgeServer, type SimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import { waitForAlert, waitForMessage, waitForPresence } from '../support/linkEvents.ts';
import { operatorAtTheStick } from '../support/operatorAtTheStick.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';
import { WaitableLog } from '../support/waitableLog.ts';

const CLOCK_AHEAD_MS = 10_000;
const FAST: Partial<RosbridgeTimings> = { backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0.2 }, serviceTimeoutMs: 1000 };

interface ReceivedCommand extends DriveCommand {
  /** How old the command was by its stamp when the robot took it (0 for a zero stamp). */
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

function stampedRobot(port = 0): Promise<{ robot: CommandLoggingRobot; server: SimRosbridgeServer }> {
  const robot = new CommandLoggingRobot({ camera: { widthPx: 32, heightPx: 24 } });
  return startSimRosbridgeServer({ robot, port, commandType: 'twist-stamped', clockAheadMs: CLOCK_AHEAD_MS }).then((server) => ({ robot, server }));
}

let robot: CommandLoggingRobot;
let server: SimRosbridgeServer;
beforeAll(async () => {
  ({ robot, server } = await stampedRobot());
});
afterAll(async () => {
  await server.close();
});

/** A link that has discovered the robot's topics (a first odometry message comes only after discovery). */
async function readyLink(options: Partial<RosbridgeLinkOptions> = {}, url = server.url): Promise<{ link: RosbridgeLink; odom: WaitableLog<Odometry> }> {
  const link = new RosbridgeLink({ url, simulated: true, timings: FAST, ...options });
  cleanups.push(() => link.close());
  const odom = new WaitableLog<Odometry>('/odom');
  cleanups.push(link.subscribe<Odometry>('/odom', (received) => odom.push(received.msg)));
  await odom.until((items) => items.length > 0, 'odometry');
  return { link, odom };
}

/** A plain rosbridge client on the robot's /cmd_vel: what went over the wire, and a way to publish as any client could. */
async function rawClient(): Promise<{ seen: WaitableLog<Record<string, unknown>>; send(op: object): void }> {
  const socket = new WebSocket(server.url);
  cleanups.push(() => socket.terminate());
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const seen = new WaitableLog<Record<string, unknown>>('/cmd_vel on the wire');
  socket.on('message', (data) => {
    const op = JSON.parse(String(data)) as { op: string; topic?: string; msg?: Record<string, unknown> };
    if (op.op === 'publish' && op.topic === '/cmd_vel' && op.msg !== undefined) seen.push(op.msg);
  });
  const send = (op: object) => socket.send(JSON.stringify(op));
  send({ op: 'subscribe', topic: '/cmd_vel', type: 'geometry_msgs/TwistStamped' });
  return { seen, send };
}

const turn = twistFromDrive({ linearMps: 0, angularRadps: 1.5 });

/** Turns the robot through the link until odometry shows it turning; every publish went out. Returns how many were sent. */
async function driveUntilTurning(link: RosbridgeLink, odom: WaitableLog<Odometry>): Promise<number> {
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
  return sent;
}

describe('RosbridgeLink ↔ simulated robot taking TwistStamped, its clock 10 s ahead of the cockpit', () => {
  it('reads the command type from rosapi and sends stamp zero in frame base_link: every command moves the robot', async () => {
    const { link, odom } = await readyLink();
    expect(link.topics()).toContainEqual({ topic: '/cmd_vel', type: 'geometry_msgs/TwistStamped', kind: 'Twist' });
    const wire = await rawClient();
    const before = robot.received.items.length;
    const sent = await driveUntilTurning(link, odom);
    await robot.received.until((items) => items.length - before >= sent, 'every command at the robot');
    const taken = robot.received.items.slice(before);
    expect(taken.every((command) => command.angularRadps === 1.5 && command.ageSecs === 0)).toBe(true);
    await wire.seen.until((items) => items.length > 0, 'a command on the wire');
    expect(wire.seen.items[0]).toMatchObject({ header: { frame_id: 'base_link', stamp: { secs: 0, nsecs: 0 } }, twist: { angular: { z: 1.5 } } });
  });

  it("with --command-stamp robot, stamps the robot's clock (10 s ahead): every command moves the robot", async () => {
    const { link, odom } = await readyLink({ command: { stamp: 'robot', frameId: 'chassis' } });
    await odom.until(() => (link.clockOffset()?.sampleCount ?? 0) >= 3, 'the clock offset');
    const wire = await rawClient();
    const before = robot.received.items.length;
    const sent = await driveUntilTurning(link, odom);
    await robot.received.until((items) => items.length - before >= sent, 'every command at the robot');
    // Stamped on the robot's clock: within the round trip's uncertainty of "now" there, nowhere near 10 s off.
    for (const command of robot.received.items.slice(before)) expect(Math.abs(command.ageSecs)).toBeLessThan(0.1);
    await wire.seen.until((items) => items.length > 0, 'a command on the wire');
    const header = wire.seen.items[0]!['header'] as { frame_id: string; stamp: { secs: number } };
    expect(header.frame_id).toBe('chassis');
    expect(Math.abs(header.stamp.secs - (Date.now() + CLOCK_AHEAD_MS) / 1000)).toBeLessThan(2);
  });

  it("drops a command stamped with the cockpit's clock, as the robot's controller would", async () => {
    const { send } = await rawClient();
    send({ op: 'advertise', topic: '/cmd_vel', type: 'geometry_msgs/TwistStamped' });
    const before = robot.received.items.length;
    const nowMs = Date.now();
    const cockpitStamp = { secs: Math.floor(nowMs / 1000), nsecs: (nowMs % 1000) * 1e6 };
    send({ op: 'publish', topic: '/cmd_vel', msg: { header: { stamp: cockpitStamp }, twist: { linear: { x: 0.21 } } } });
    send({ op: 'publish', topic: '/cmd_vel', msg: { header: { stamp: { secs: 0, nsecs: 0 } }, twist: { linear: { x: 0.22 } } } });
    await robot.received.until((items) => items.length > before, 'the stamp-zero command');
    expect(robot.received.items.slice(before).map((command) => command.linearMps)).toEqual([0.22]);
  });

  it('through the control loop, stops the robot on release and on a lapsed heartbeat, each stop a TwistStamped', async () => {
    const { link } = await readyLink();
    const loop = await createControlLoop(link, { perception: await loadPerception(testEncoderManifest()) });
    loop.start();
    cleanups.push(() => loop.close());
    const atRobot = () => robot.received.items.at(-1);

    let stopOperator = operatorAtTheStick(loop, () => ({ linearMps: 0, angularRadps: 1 }));
    await robot.received.until(() => atRobot()?.angularRadps === 1, 'the operator driving');
    // Release: the stick at rest while the heartbeat goes on: one zero.
    stopOperator();
    const heartbeat = setInterval(() => loop.heartbeat(), 50);
    loop.operatorDrive(ZERO_DRIVE);
    await robot.received.until(() => atRobot()?.angularRadps === 0, 'the stop on release');
    clearInterval(heartbeat);

    stopOperator = operatorAtTheStick(loop, () => ({ linearMps: 0, angularRadps: 1 }));
    await robot.received.until(() => atRobot()?.angularRadps === 1, 'the operator driving again');
    // The cockpit goes silent mid-drive: the watchdog stops the robot.
    stopOperator();
    const lapsedAtMs = Date.now();
    await robot.received.until(() => atRobot()?.angularRadps === 0 && atRobot()?.linearMps === 0, 'the watchdog stop');
    expect(Date.now() - lapsedAtMs).toBeLessThan(1500);
    expect(atRobot()!.ageSecs).toBe(0);
  });

  it('shows the command topic, its type and the ~10 s clock offset in the probe', async () => {
    const { link } = await readyLink();
    await waitForMessage(link, '/imu', () => (link.clockOffset()?.sampleCount ?? 0) >= 3);
    const report = await probeLink(link, server.url, 0.3);
    expect(report.command).toEqual({ topic: '/cmd_vel', type: 'geometry_msgs/TwistStamped' });
    expect(report.commandProblem).toBeUndefined();
    expect(report.clockOffset?.source).toBe('round-trip');
    expect(Math.abs(report.clockOffset!.offsetMs - CLOCK_AHEAD_MS)).toBeLessThan(50);
  });

  it('gives the Connect-robot dialog the command topic, its type and the ~10 s clock offset', async () => {
    const { link } = await readyLink();
    await waitForMessage(link, '/imu', () => (link.clockOffset()?.sampleCount ?? 0) >= 3);
    const connections = new RobotConnections(
      new SwitchableLink(link),
      { robot: server.url, opened: { link, close: () => link.close() } },
      { openRobot: () => Promise.reject(new Error('not used here')), driver: () => 'idle' },
    );
    const state = connections.state();
    expect(state).toMatchObject({ status: 'connected', command: { topic: '/cmd_vel', type: 'geometry_msgs/TwistStamped' } });
    expect(Math.abs(state.clockOffsetMs! - CLOCK_AHEAD_MS)).toBeLessThan(50);
  });

  it('says in words that the robot offers no such command topic, sends nothing, and the probe shows it', async () => {
    const { link } = await readyLink({ topics: { command: '/base/cmd_vel' } });
    const alert = await waitForAlert(link, (each) => each.key === 'command-type:/base/cmd_vel');
    expect(alert).toMatchObject({ severity: 'error', message: expect.stringContaining('does not offer the command topic /base/cmd_vel') });
    const before = robot.received.items.length;
    expect(link.publish('/base/cmd_vel', turn)).toBe(false);
    const report = await probeLink(link, server.url, 0.1, '/base/cmd_vel');
    expect(report.command).toBeUndefined();
    expect(report.commandProblem).toMatch(/does not offer the command topic/);
    expect(robot.received.items.length).toBe(before);
  });
});

describe('a rosbridge dropout with a TwistStamped command topic', () => {
  it('nothing issued while the link was down reaches the robot later: only commands issued after the reconnect', async () => {
    let { robot: own, server: first } = await stampedRobot();
    const port = first.port;
    cleanups.push(() => first.close());
    const { link } = await readyLink({}, first.url);
    const forward = (linearMps: number) => twistFromDrive({ linearMps, angularRadps: 0 });
    for (const speed of [0.11, 0.12]) expect(link.publish('/cmd_vel', forward(speed))).toBe(true);
    await own.received.until((items) => items.length === 2, 'the commands before the dropout');

    await first.close();
    await waitForPresence(link, 'reconnecting');
    for (const speed of [0.21, 0.22]) expect(link.publish('/cmd_vel', forward(speed))).toBe(false);
    const second = await startSimRosbridgeServer({ robot: own, port, commandType: 'twist-stamped', clockAheadMs: CLOCK_AHEAD_MS });
    first = second;
    await waitForPresence(link, 'present');
    for (const speed of [0.31, 0.32]) expect(link.publish('/cmd_vel', forward(speed))).toBe(true);
    await own.received.until((items) => items.length >= 4, 'the commands after the reconnect');
    // Anything replayed would have gone out on connecting, ahead of 0.31 on the same socket.
    expect(own.received.items.map((command) => command.linearMps)).toEqual([0.11, 0.12, 0.31, 0.32]);
  });
});
