// The serial link against the reference firmware running under simavr, UART on a pseudo-terminal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AnalogInputs, JointState } from '../../main/core/messages.ts';
import { twistFromDrive } from '../../main/core/messages.ts';
import { SerialLink, type CommandAck } from '../../main/links/serial/serialLink.ts';
import { STATUS_FLAG, type Sensor } from '../../main/links/serial/protocolMessages.ts';
import { waitFor, waitForAlert, waitForMessage, waitForPresence } from '../support/linkEvents.ts';
import { isType, RawSerialClient } from '../support/rawSerialClient.ts';
import { buildNative, startFirmware, type RunningFirmware } from '../../main/links/serial/firmwareSimulator.ts';
import { probeRoundTrip } from '../../main/links/serial/roundTripProbe.ts';

const drive = (linearMps: number, angularRadps: number) => twistFromDrive({ linearMps, angularRadps });
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function firmware(linkPath?: string): Promise<RunningFirmware> {
  const running = await startFirmware(linkPath ? { linkPath } : {});
  cleanups.push(() => running.stop());
  return running;
}

function serialLink(path: string): SerialLink {
  const link = new SerialLink({ path, baud: 115200 }, { listPortPaths: async () => [] });
  cleanups.push(() => link.close());
  return link;
}

function nextAck(link: SerialLink): Promise<CommandAck> {
  return waitFor('an ACK', (resolve) => link.onAck(resolve));
}

describe('serial link ↔ reference firmware under simavr', () => {
  let scratch: string;
  beforeAll(async () => {
    await buildNative();
    scratch = mkdtempSync(join(tmpdir(), 'reins-fw-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('shakes hands and learns what the device has', async () => {
    const { ptyPath } = await firmware();
    const link = serialLink(ptyPath);
    await waitForPresence(link, 'present');
    expect(link.robotName).toBe('reins-ref-uno');
    expect(link.deviceInfo()).toMatchObject({ wheelCount: 2, analogCount: 3, sensorRateHz: 50, heartbeatTimeoutMs: 400, encoderCountsPerRev: 720 });
    expect(link.topics().map((topic) => topic.topic)).toEqual(['/joint_states', '/odom', '/analog']);
  });

  it('streams wheel and analog samples stamped on the cockpit clock', async () => {
    const { ptyPath } = await firmware();
    const link = serialLink(ptyPath);
    const joints = await waitForMessage<JointState>(link, '/joint_states');
    expect(joints.msg.names).toEqual(['left_wheel_joint', 'right_wheel_joint']);
    expect(joints.sourceTimeMs).toBeLessThanOrEqual(joints.receiveTimeMs);
    expect(joints.receiveTimeMs - joints.sourceTimeMs).toBeLessThan(100);
    const analog = await waitForMessage<AnalogInputs>(link, '/analog');
    expect(analog.msg.voltagesV[0]).toBeCloseTo(3.7, 1); // the board's battery divider at rest
    expect(analog.msg.voltagesV[1]).toBeCloseTo(1.65, 1);
  });

  it('acknowledges a command, and the wheels turn as commanded', async () => {
    const { ptyPath } = await firmware();
    const link = serialLink(ptyPath);
    await waitForPresence(link, 'present');
    const ack = nextAck(link);
    expect(link.publish('/cmd_vel', drive(0.2, 0.5))).toBe(true);
    expect(await ack).toMatchObject({ result: 'applied', appliedLinearMps: expect.closeTo(0.2, 5), appliedAngularRadps: 0.5 });
    // Left (0.2 − 0.5·0.08) / 0.035 = 4.57 rad/s, right (0.2 + 0.04) / 0.035 = 6.86 rad/s, open loop.
    const moving = await waitForMessage<JointState>(link, '/joint_states', ({ msg }) => msg.velocitiesRadps[1]! > 6, 10_000);
    expect(moving.msg.velocitiesRadps[0]).toBeGreaterThan(3.8);
    expect(moving.msg.velocitiesRadps[0]).toBeLessThan(5.2);
    expect(moving.msg.positionsRad[1]!).toBeGreaterThan(moving.msg.positionsRad[0]!);

    const clamped = nextAck(link);
    link.publish('/cmd_vel', drive(5, 0));
    expect(await clamped).toMatchObject({ result: 'clamped', appliedLinearMps: expect.closeTo(0.4, 5) });
    expect(link.roundTripStats()?.count).toBe(2);
  });

  it('stops the motors by itself when heartbeats stop, and does not resume on its own', async () => {
    const { ptyPath } = await firmware();
    const client = await RawSerialClient.open(ptyPath);
    cleanups.push(() => client.close());
    const sensor = (label: string, matches: (sensor: Sensor) => boolean, timeoutMs = 3000) =>
      client.next(label, (message): message is Sensor => message.type === 'sensor' && matches(message), timeoutMs);

    client.sendRaw(Uint8Array.of(0));
    client.send({ type: 'hello', protocolVersion: 1, heartbeatPeriodMs: 100, hostName: 'test' });
    await client.next('HELLO_REPLY', isType('helloReply'));
    const refused = client.next('ACK', isType('ack'));
    await new Promise((resolve) => setTimeout(resolve, 450)); // let the HELLO's liveness lapse
    client.send({ type: 'velocity', linearMps: 0.2, angularRadps: 0 });
    expect((await refused).message.result).toBe('not-armed');

    client.startHeartbeats();
    const accepted = client.next('ACK', isType('ack'));
    client.send({ type: 'velocity', linearMps: 0.2, angularRadps: 0 });
    expect((await accepted).message.result).toBe('applied');
    await sensor('moving wheels', (s) => (s.wheels?.[0]?.dutyPermille ?? 0) > 200);

    const lastHeartbeatMs = client.stopHeartbeats();
    const stopped = await sensor('stopped motors', (s) => s.wheels?.[0]?.dutyPermille === 0 && s.wheels?.[1]?.dutyPermille === 0);
    const stopAfterMs = stopped.receiveTimeMs - lastHeartbeatMs;
    expect(stopAfterMs).toBeGreaterThan(300);
    expect(stopAfterMs).toBeLessThan(600); // 400 ms timeout + one 20 ms sample + scheduling slack
    expect(stopped.message.status! & STATUS_FLAG.watchdogStopped).toBeTruthy();

    client.startHeartbeats();
    const rearmed = await sensor('armed again', (s) => ((s.status ?? 0) & STATUS_FLAG.armed) !== 0);
    expect(rearmed.message.wheels?.[0]?.dutyPermille).toBe(0);
    expect(rearmed.message.status! & STATUS_FLAG.watchdogStopped).toBeTruthy();
  });

  it('answers line noise with a rate-limited ERROR and keeps working', async () => {
    const { ptyPath } = await firmware();
    const client = await RawSerialClient.open(ptyPath);
    cleanups.push(() => client.close());
    const error = client.next('ERROR', isType('error'));
    client.sendRaw(Uint8Array.from({ length: 400 }, (_, i) => (i * 37 + 11) % 256));
    client.sendRaw(Uint8Array.of(0));
    expect((await error).message.code).toMatch(/bad-frame|crc-mismatch/);
    const reply = client.next('HELLO_REPLY', isType('helloReply'));
    client.send({ type: 'hello', protocolVersion: 1, heartbeatPeriodMs: 100, hostName: 'test' });
    expect((await reply).message.name).toBe('reins-ref-uno');
  });

  it('alerts when the port vanishes and recovers when it comes back', async () => {
    const linkPath = join(scratch, 'ttyREINS0');
    const first = await startFirmware({ linkPath });
    const link = serialLink(linkPath);
    await waitForPresence(link, 'present');

    await first.stop(); // the board is unplugged: the harness removes the pty and its link
    await waitForPresence(link, 'reconnecting');
    const alert = await waitForAlert(link, (a) => a.key === 'serial-port');
    expect(alert.hint).toMatch(/reconnects/);
    expect(link.publish('/cmd_vel', drive(0.1, 0))).toBe(false); // dropped, never queued

    await firmware(linkPath);
    await waitForPresence(link, 'present', 8000);
    expect(link.alerts().some((a) => a.key === 'serial-port')).toBe(false);
    const ack = nextAck(link);
    expect(link.publish('/cmd_vel', drive(0.1, 0))).toBe(true);
    expect((await ack).result).toBe('applied');
  });

  it('measures the command round trip', async () => {
    const { ptyPath } = await firmware();
    const link = serialLink(ptyPath);
    await waitForPresence(link, 'present');
    const stats = await probeRoundTrip(link, { count: 40, periodMs: 20 });
    console.info(`serial round trip to the firmware under simavr: p50 ${stats.p50Ms.toFixed(2)} ms, p95 ${stats.p95Ms.toFixed(2)} ms (n=${stats.count})`);
    expect(stats.count).toBe(40);
    expect(stats.p50Ms).toBeLessThan(50);
  });
});
