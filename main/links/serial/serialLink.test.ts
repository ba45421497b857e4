import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeSerialPorts, TEST_SERIAL_DEVICE } from '../../../test/fakes/fakeSerialPort.ts';
import type { JointState, Odometry } from '../../core/messages.ts';
import { twistFromDrive } from '../../core/messages.ts';
import { STATUS_FLAG } from './protocolMessages.ts';
import { SerialLink } from './serialLink.ts';

const DEVICE = TEST_SERIAL_DEVICE;
const forward = twistFromDrive({ linearMps: 0.2, angularRadps: 0 });

describe('SerialLink', () => {
  let ports: FakeSerialPorts;
  let link: SerialLink;

  beforeEach(() => {
    vi.useFakeTimers();
    ports = new FakeSerialPorts();
  });
  afterEach(async () => {
    await link.close();
    vi.useRealTimers();
  });

  const open = async (): Promise<void> => {
    link = new SerialLink({ path: '/dev/ttyTEST', baud: 115200 }, { openTransport: ports.open, listPortPaths: async () => ['/dev/ttyACM0'] });
    await vi.advanceTimersByTimeAsync(0);
  };
  const present = async (): Promise<void> => {
    await open();
    ports.latest().reply({ type: 'helloReply', ...DEVICE });
  };

  it('says HELLO until answered, then heartbeats every 100 ms', async () => {
    await open();
    expect(link.presence()).toBe('connecting');
    await vi.advanceTimersByTimeAsync(1000);
    expect(ports.latest().sentOfType('hello').length).toBeGreaterThanOrEqual(2);
    ports.latest().reply({ type: 'helloReply', ...DEVICE });
    expect(link.presence()).toBe('present');
    expect(link.robotName).toBe('test-board');
    const before = ports.latest().sentOfType('heartbeat').length;
    ports.latest().reply({ type: 'heartbeat', senderTimeUs: 1, status: STATUS_FLAG.armed });
    await vi.advanceTimersByTimeAsync(300);
    expect(ports.latest().sentOfType('heartbeat').length - before).toBe(3);
  });

  it('drops commands while not present instead of queueing them', async () => {
    await open();
    expect(link.publish('/cmd_vel', forward)).toBe(false);
    ports.latest().reply({ type: 'helloReply', ...DEVICE });
    expect(link.publish('/cmd_vel', forward)).toBe(true);
    expect(link.publish('/other', forward)).toBe(false);
    expect(link.publish('/cmd_vel', twistFromDrive({ linearMps: Number.NaN, angularRadps: 0 }))).toBe(false);
    expect(
      ports
        .latest()
        .sentOfType('velocity')
        .map((frame) => frame.message.linearMps),
    ).toEqual([expect.closeTo(0.2, 5)]);
  });

  it('maps wheel samples to joint states and odometry on the cockpit clock', async () => {
    await present();
    const joints: JointState[] = [];
    const odometry: Odometry[] = [];
    link.subscribe<JointState>('/joint_states', ({ msg }) => joints.push(msg));
    link.subscribe<Odometry>('/odom', ({ msg }) => odometry.push(msg));
    const wheels = (counts: number) => [
      { encoderCounts: counts, velocityRadps: 2, dutyPermille: 100 },
      { encoderCounts: counts, velocityRadps: 2, dutyPermille: 100 },
    ];
    ports.latest().reply({ type: 'sensor', deviceTimeUs: 1_000_000, wheels: wheels(0) });
    ports.latest().reply({ type: 'sensor', deviceTimeUs: 1_020_000, wheels: wheels(1000) });
    expect(joints[1]!.positionsRad[0]).toBeCloseTo(2 * Math.PI);
    // One revolution of both wheels: 2π · 0.05 m straight ahead.
    expect(odometry[1]!.odomFromBaseXM).toBeCloseTo(2 * Math.PI * 0.05);
    expect(odometry[1]!.linearMps).toBeCloseTo(0.1);
  });

  it('keeps delivering to the other subscribers when one throws, and says so', async () => {
    await present();
    const received: number[] = [];
    link.subscribe<JointState>('/joint_states', () => {
      throw new Error('panel bug');
    });
    link.subscribe<JointState>('/joint_states', ({ msg }) => received.push(msg.positionsRad[0]!));
    const wheel = { encoderCounts: 0, velocityRadps: 0, dutyPermille: 0 };
    ports.latest().reply({ type: 'sensor', deviceTimeUs: 1_000_000, wheels: [wheel, wheel] });
    ports.latest().reply({ type: 'sensor', deviceTimeUs: 1_020_000, wheels: [wheel, wheel] });
    expect(received).toHaveLength(2);
    expect(link.presence()).toBe('present');
    expect(link.alerts().find((a) => a.key === 'serial-subscriber:/joint_states')).toMatchObject({
      severity: 'error',
      message: expect.stringMatching(/failed 2 times: panel bug/),
    });
  });

  it('goes to reconnecting when the device falls silent, and says HELLO again', async () => {
    await present();
    const hellos = ports.latest().sentOfType('hello').length;
    await vi.advanceTimersByTimeAsync(1700);
    expect(link.presence()).toBe('reconnecting');
    expect(link.alerts().map((a) => a.key)).toContain('serial-silent');
    expect(ports.latest().sentOfType('hello').length).toBeGreaterThan(hellos);
    ports.latest().reply({ type: 'helloReply', ...DEVICE });
    expect(link.presence()).toBe('present');
    expect(link.alerts().map((a) => a.key)).not.toContain('serial-silent');
  });

  it('reopens a port that vanished, with an alert whose hint lists the ports there are', async () => {
    await present();
    ports.failWith = new Error('Error: No such file or directory, cannot open /dev/ttyTEST');
    ports.latest().unplug();
    expect(link.presence()).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(150);
    const alert = link.alerts().find((a) => a.key === 'serial-port');
    expect(alert?.hint).toContain('/dev/ttyACM0');
    ports.failWith = undefined;
    await vi.advanceTimersByTimeAsync(2000);
    ports.latest().reply({ type: 'helloReply', ...DEVICE });
    expect(link.presence()).toBe('present');
    expect(ports.opened).toHaveLength(2);
  });

  it('refuses a device of another protocol version', async () => {
    await open();
    ports.latest().reply({ type: 'helloReply', ...DEVICE, protocolVersion: 2 });
    expect(link.presence()).toBe('error');
    expect(link.alerts().find((a) => a.key === 'serial-version')?.message).toMatch(/version 2/);
    expect(link.publish('/cmd_vel', forward)).toBe(false);
  });

  it('tracks acknowledgements, and alerts on commands the device never answers', async () => {
    await present();
    link.publish('/cmd_vel', forward);
    const { seq } = ports.latest().sentOfType('velocity')[0]!;
    await vi.advanceTimersByTimeAsync(4);
    ports.latest().reply({ type: 'ack', ackedSeq: seq, result: 'applied', appliedLinearMps: 0.2, appliedAngularRadps: 0 });
    expect(link.roundTripStats()).toMatchObject({ count: 1, p50Ms: 4 });
    ports.latest().reply({ type: 'heartbeat', senderTimeUs: 2, status: 0 });
    link.publish('/cmd_vel', forward);
    await vi.advanceTimersByTimeAsync(1200);
    expect(link.alerts().find((a) => a.key === 'serial-command-unanswered')?.message).toMatch(/^1 drive command/);
  });

  it('tells the operator when the device stopped its motors on its own', async () => {
    await present();
    ports.latest().reply({ type: 'heartbeat', senderTimeUs: 1, status: STATUS_FLAG.watchdogStopped });
    expect(link.alerts().find((a) => a.key === 'serial-device-watchdog')?.message).toMatch(/400 ms/);
    ports.latest().reply({ type: 'heartbeat', senderTimeUs: 2, status: STATUS_FLAG.armed });
    expect(link.alerts().find((a) => a.key === 'serial-device-watchdog')).toBeUndefined();
  });

  it('counts gaps in the device sequence as lost frames', async () => {
    await present();
    ports.latest().reply({ type: 'heartbeat', senderTimeUs: 1, status: 1 }, 10);
    ports.latest().reply({ type: 'heartbeat', senderTimeUs: 2, status: 1 }, 14);
    expect(link.alerts().find((a) => a.key === 'serial-frames-lost')?.message).toMatch(/^3 frames/);
  });

  it('sends one zero command when it closes while present', async () => {
    await present();
    const port = ports.latest();
    await link.close();
    expect(port.sentOfType('velocity').at(-1)?.message).toMatchObject({ linearMps: 0, angularRadps: 0 });
    expect(link.presence()).toBe('closed');
  });
});
