// The serial link against the simulated robot exposed on a socat pseudo-terminal.
import type { SentCommand } from '../../main/core/tickReport.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Imu, JointState, Odometry, Twist } from '../../main/core/messages.ts';
import { twistFromDrive } from '../../main/core/messages.ts';
import { STATUS_FLAG, type Sensor } from '../../main/links/serial/protocolMessages.ts';
import { SerialLink, type CommandAck } from '../../main/links/serial/serialLink.ts';
import { startSimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { startSerialSim, type SerialSim } from '../../main/sim/serial/serialSim.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';
import { WaitableLog } from '../support/waitableLog.ts';
import { waitFor, waitForAlert, waitForMessage, waitForPresence } from '../support/linkEvents.ts';
import { isType, RawSerialClient } from '../support/rawSerialClient.ts';
import { SimRosbridgeClient, type ReceivedFrame } from '../support/simRosbridgeClient.ts';
import { operatorAtTheStick } from '../support/operatorAtTheStick.ts';

const drive = (linearMps: number, angularRadps: number) => twistFromDrive({ linearMps, angularRadps });
/** The simulated device's heartbeat timeout (simSerialDevice.ts), then braking and a loaded machine's timers. */
const DEVICE_HEARTBEAT_TIMEOUT_MS = 400;
const BRAKING_AND_SLACK_MS = 600;
const PORT_AWAY_MS = 1500;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('serial link ↔ simulated robot on a pseudo-terminal', () => {
  let scratch: string;
  let count = 0;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'reins-serial-sim-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  async function sim(): Promise<SerialSim> {
    const started = await startSerialSim({ ptyPath: join(scratch, `ttySIM${count++}`) });
    cleanups.push(() => started.close());
    return started;
  }

  function serialLink(path: string): SerialLink {
    const link = new SerialLink({ path, baud: 115200 }, { listPortPaths: async () => [] });
    cleanups.push(() => link.close());
    return link;
  }

  it('shakes hands and streams wheels, odometry and IMU', async () => {
    const { ptyPath } = await sim();
    const link = serialLink(ptyPath);
    await waitForPresence(link, 'present');
    expect(link.robotName).toBe('reins-sim');
    expect(link.topics()).toEqual([
      { topic: '/joint_states', kind: 'JointState' },
      { topic: '/odom', kind: 'Odometry' },
      { topic: '/imu', kind: 'Imu' },
    ]);
    const imu = await waitForMessage<Imu>(link, '/imu');
    expect(imu.msg.linearAccelerationMps2.z).toBeCloseTo(9.81, 0);
    const joints = await waitForMessage<JointState>(link, '/joint_states');
    expect(joints.receiveTimeMs - joints.sourceTimeMs).toBeGreaterThanOrEqual(0);
    expect(joints.receiveTimeMs - joints.sourceTimeMs).toBeLessThan(100);
  });

  it('drives the simulated robot and acknowledges each command', async () => {
    const { ptyPath } = await sim();
    const link = serialLink(ptyPath);
    await waitForPresence(link, 'present');
    const ack = waitFor<CommandAck>('an ACK', (resolve) => link.onAck(resolve));
    expect(link.publish('/cmd_vel', drive(0.3, 0))).toBe(true);
    expect(await ack).toMatchObject({ result: 'applied', appliedLinearMps: expect.closeTo(0.3, 5) });
    const release = holdCommand(link, drive(0.3, 0));
    try {
      const moving = await waitForMessage<Odometry>(link, '/odom', ({ msg }) => msg.odomFromBaseXM > 0.05, 10_000);
      expect(moving.msg.linearMps).toBeGreaterThan(0.2);
    } finally {
      release();
    }
  });

  it('stops the robot when the heartbeats stop', async () => {
    const { ptyPath } = await sim();
    const client = await RawSerialClient.open(ptyPath);
    cleanups.push(() => client.close());
    client.send({ type: 'hello', protocolVersion: 1, heartbeatPeriodMs: 100, hostName: 'test' });
    await client.next('HELLO_REPLY', isType('helloReply'));
    client.startHeartbeats();
    client.send({ type: 'velocity', linearMps: 0.3, angularRadps: 0 });
    const sensor = (label: string, matches: (sensor: Sensor) => boolean) =>
      client.next(label, (message): message is Sensor => message.type === 'sensor' && matches(message));
    await sensor('moving wheels', (s) => (s.wheels?.[0]?.velocityRadps ?? 0) > 4);
    client.stopHeartbeats();
    const stopped = await sensor('the watchdog', (s) => ((s.status ?? 0) & STATUS_FLAG.watchdogStopped) !== 0);
    expect(stopped.message.status! & STATUS_FLAG.armed).toBe(0);
    await sensor('wheels at rest', (s) => Math.abs(s.wheels?.[0]?.velocityRadps ?? 1) < 0.01);
  });

  it('alerts when socat dies, and recovers when the pty comes back', async () => {
    const serialSim = await sim();
    const link = serialLink(serialSim.ptyPath);
    await waitForPresence(link, 'present');
    const lost = waitForAlert(link, (alert) => alert.key === 'serial-port');
    process.kill(serialSim.socatPid()!, 'SIGKILL'); // the cable is pulled mid-stream
    expect((await lost).severity).toBe('error');
    expect(link.presence()).toBe('reconnecting');
    await waitForPresence(link, 'present', 8000);
    await waitForMessage<JointState>(link, '/joint_states');
    const ack = waitFor<CommandAck>('an ACK', (resolve) => link.onAck(resolve));
    expect(link.publish('/cmd_vel', drive(0.1, 0))).toBe(true);
    expect((await ack).result).toBe('applied');
  });

  // Fault test (docs/reliability.md): the serial port vanishes under a driving operator.
  it('stops the robot when the port is pulled mid-drive, refuses commands while it is gone, and drives again when it returns', async () => {
    const robot = new SimRobot({ camera: { widthPx: 32, heightPx: 24 } });
    // The port stays away well past the device's heartbeat timeout (an outage shorter than it rightly
    // leaves the robot on its last command).
    const serialSim = await startSerialSim({ ptyPath: join(scratch, `ttySIM${count++}`), robot, restartDelayMs: PORT_AWAY_MS });
    cleanups.push(() => serialSim.close());
    const server = await startSimRosbridgeServer({ robot, port: 0, sensorTaps: [serialSim.sensors] }); // steps the robot
    cleanups.push(() => server.close());
    const link = serialLink(serialSim.ptyPath);
    await waitForPresence(link, 'present');
    const loop = await createControlLoop(link, { perception: await loadPerception(testEncoderManifest()) });
    const sent = new WaitableLog<SentCommand>('commands the loop sent');
    loop.onSent((command) => sent.push(command));
    const speeds = new WaitableLog<{ atMs: number; speedMps: number }>('robot speed');
    const watch = setInterval(() => speeds.push({ atMs: Date.now(), speedMps: Math.abs(robot.groundTruth().linearMps) }), 10);
    loop.start();
    const stopOperator = operatorAtTheStick(loop, () => ({ linearMps: 0.3, angularRadps: 0 }));
    cleanups.push(async () => {
      stopOperator();
      clearInterval(watch);
      await loop.close();
    });
    await speeds.until((all) => (all.at(-1)?.speedMps ?? 0) > 0.15, 'the robot driving', 10_000);

    const pulledAtMs = Date.now();
    process.kill(serialSim.socatPid()!, 'SIGKILL'); // the cable is pulled mid-drive
    // The device hears no more heartbeats and stops the robot itself.
    await speeds.until((all) => all.at(-1)!.atMs > pulledAtMs && all.at(-1)!.speedMps < 0.01, 'the robot to stop', PORT_AWAY_MS);
    const stopMs = speeds.items.at(-1)!.atMs - pulledAtMs;
    expect(stopMs).toBeLessThanOrEqual(DEVICE_HEARTBEAT_TIMEOUT_MS + BRAKING_AND_SLACK_MS);
    await waitForAlert(link, (alert) => alert.key === 'serial-port');
    const noticedAtMs = Date.now();
    await sent.until((all) => all.filter((each) => each.atMs > noticedAtMs && !each.delivered).length >= 3, 'commands refused while the port is gone');

    await waitForPresence(link, 'present', 8000);
    const recoveredMs = Date.now() - pulledAtMs;
    expect(recoveredMs).toBeGreaterThanOrEqual(PORT_AWAY_MS);
    await speeds.until((all) => (all.at(-1)?.speedMps ?? 0) > 0.15, 'the robot driving again', 10_000);
    console.info(`serial port pulled: robot stopped by itself ${stopMs} ms after; link back and driving ${recoveredMs} ms after`);
  }, 30_000);

  it('exposes the robot the rosbridge server steps, fed by its sensor taps (as `reins sim --serial-pty` does)', async () => {
    const robot = new SimRobot({ camera: { widthPx: 32, heightPx: 24 } });
    const serialSim = await startSerialSim({ ptyPath: join(scratch, `ttySIM${count++}`), robot });
    cleanups.push(() => serialSim.close());
    const server = await startSimRosbridgeServer({ robot, port: 0, sensorTaps: [serialSim.sensors] });
    cleanups.push(() => server.close());
    const rosClient = await SimRosbridgeClient.open(server.url);
    cleanups.push(() => rosClient.close());
    rosClient.send({ op: 'subscribe', topic: '/odom' });
    const link = serialLink(serialSim.ptyPath);
    await waitForPresence(link, 'present');
    const release = holdCommand(link, drive(0.3, 0));
    try {
      await waitForMessage<Odometry>(link, '/odom', ({ msg }) => msg.odomFromBaseXM > 0.02, 10_000);
    } finally {
      release();
    }
    // The same steps reach the rosbridge clients: they see the robot the serial link drives move.
    const forwardMps = (frame: ReceivedFrame) => (frame.op['msg'] as { twist: { twist: { linear: { x: number } } } }).twist.twist.linear.x;
    await rosClient.waitFor(
      (frame) => frame.op.op === 'publish' && frame.op.topic === '/odom' && forwardMps(frame) > 0.1,
      3000,
      'odometry of a moving robot over rosbridge',
    );
    expect(robot.groundTruth().linearMps).toBeGreaterThan(0.1);
  });

  it('is what `reins sim --serial-pty PATH` serves, beside rosbridge', async () => {
    const ptyPath = join(scratch, `ttySIM${count++}`);
    const reins = fileURLToPath(new URL('../../main/cli/reins.mjs', import.meta.url));
    const child = spawn(process.execPath, [reins, 'sim', '--rosbridge-port', '0', '--camera', '32x24@5', '--serial-pty', ptyPath], {
      env: { ...process.env, REINS_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    cleanups.push(async () => {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    });
    await waitFor(
      'the sim to listen',
      (resolve) => {
        const lines = createInterface({ input: child.stdout! });
        lines.on('line', (line) => line.startsWith('Reins sim: ') && resolve(line));
        return () => lines.close();
      },
      20_000,
    );
    const link = serialLink(ptyPath);
    await waitForPresence(link, 'present');
    const ack = waitFor<CommandAck>('an ACK', (resolve) => link.onAck(resolve));
    link.publish('/cmd_vel', drive(0.3, 0));
    expect((await ack).result).toBe('applied');
    const release = holdCommand(link, drive(0.3, 0));
    try {
      await waitForMessage<Odometry>(link, '/odom', ({ msg }) => msg.odomFromBaseXM > 0.02, 10_000);
    } finally {
      release();
    }
  });
});

/**
 * Resends a command at the control rate, as an operator holding a key does: on a loaded machine the
 * robot's 0.5 s command timeout may pass before one command alone has moved it far. Returns the release.
 */
function holdCommand(link: { publish(topic: string, twist: Twist): boolean }, twist: Twist): () => void {
  const timer = setInterval(() => link.publish('/cmd_vel', twist), 100);
  return () => clearInterval(timer);
}
