// Bad input on a real pseudo-terminal: the device end is driven by this test, which mixes line
// noise, damaged frames and frames of unknown types into an otherwise healthy device's stream.
// Every kind gets a keyed alert, and the link keeps delivering what is intact.
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JointState } from '../../main/core/messages.ts';
import { cobsEncode } from '../../main/links/serial/cobs.ts';
import { crc16CcittFalse } from '../../main/links/serial/crc16.ts';
import { encodeFrame } from '../../main/links/serial/frames.ts';
import { SerialLink } from '../../main/links/serial/serialLink.ts';
import { SimSerialDevice } from '../../main/sim/serial/simSerialDevice.ts';
import { openPtyPair, type PtyPair } from '../../main/sim/serial/socatPty.ts';
import { fuzzSample } from '../support/fuzz.ts';
import { waitForAlert, waitForMessage, waitForPresence } from '../support/linkEvents.ts';

const JOINTS: JointState = {
  kind: 'JointState',
  names: ['left_wheel_joint', 'right_wheel_joint'],
  positionsRad: Float64Array.of(1, 2),
  velocitiesRadps: Float64Array.of(0, 0),
  effortsNm: new Float64Array(2),
};

/** A frame built by hand, so it can be wrong in ways encodeFrame never is. */
function rawFrame(bytes: number[], options: { corruptCrc?: boolean } = {}): Uint8Array {
  const body = Uint8Array.from(bytes);
  const crc = crc16CcittFalse(body) ^ (options.corruptCrc ? 0x0101 : 0);
  const encoded = cobsEncode(Uint8Array.of(...body, crc & 0xff, crc >> 8));
  return Uint8Array.of(...encoded, 0);
}

describe('serial link under bad input', () => {
  let scratch: string;
  let pty: PtyPair;
  let devicePort: SerialPort;
  let link: SerialLink;
  let sampleTimer: NodeJS.Timeout;
  let count = 0;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'reins-serial-garbage-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  beforeEach(async () => {
    pty = await openPtyPair(join(scratch, `ttyBAD${count++}`));
    devicePort = new SerialPort({ path: pty.devicePath, baudRate: 115200, autoOpen: false });
    await new Promise<void>((resolve, reject) => devicePort.open((error) => (error ? reject(error) : resolve())));
    const startMs = performance.now();
    const device = new SimSerialDevice({ write: (bytes) => devicePort.write(Buffer.from(bytes)), drive: () => undefined, nowMs: () => performance.now() });
    devicePort.on('data', (chunk: Buffer) => device.receive(chunk));
    sampleTimer = setInterval(() => {
      const deviceTimeUs = Math.round((performance.now() - startMs) * 1000);
      device.sample(deviceTimeUs, JOINTS, undefined);
      device.poll(deviceTimeUs);
    }, 20);
    link = new SerialLink({ path: pty.linkPath, baud: 115200 }, { listPortPaths: async () => [] });
    await waitForPresence(link, 'present');
  });

  afterEach(async () => {
    clearInterval(sampleTimer);
    await link.close();
    if (devicePort.isOpen) await new Promise<void>((resolve) => devicePort.close(() => resolve()));
    await pty.close();
  });

  const inject = (bytes: Uint8Array): void => {
    devicePort.write(Buffer.from(bytes));
  };
  const stillDelivering = () => waitForMessage<JointState>(link, '/joint_states');

  it('survives generated line noise, with a garbage or CRC alert, and keeps delivering', async () => {
    const noise = fuzzSample(fc.uint8Array({ minLength: 1, maxLength: 300 }), 20);
    for (const chunk of noise) inject(chunk);
    inject(Uint8Array.of(0));
    const alert = await waitForAlert(link, (a) => a.key === 'serial-garbage' || a.key === 'serial-crc');
    expect(alert.hint).toBeTruthy();
    await stillDelivering();
    expect(link.presence()).toBe('present');
  });

  it('names a wrong CRC', async () => {
    inject(rawFrame([1, 0x03, 9, 0, 1, 2, 3, 4, 0], { corruptCrc: true }));
    const alert = await waitForAlert(link, (a) => a.key === 'serial-crc');
    expect(alert.message).toMatch(/CRC/);
    expect(alert.hint).toMatch(/baud/);
    await stillDelivering();
  });

  it('names truncated frames and runs without delimiters', async () => {
    const wire = encodeFrame({ type: 'heartbeat', senderTimeUs: 5, status: 1 }, 3);
    inject(wire.subarray(0, 4));
    inject(Uint8Array.of(0));
    inject(new Uint8Array(500).fill(0x41));
    inject(Uint8Array.of(0));
    const alert = await waitForAlert(link, (a) => a.key === 'serial-garbage');
    expect(alert.message).toMatch(/damaged or unframed/);
    await stillDelivering();
  });

  it('names unknown message types, and ignores vendor extensions', async () => {
    inject(rawFrame([1, 0x90, 1, 0, 42])); // vendor type: skipped silently
    inject(rawFrame([1, 0x42, 2, 0, 42]));
    const alert = await waitForAlert(link, (a) => a.key === 'serial-unknown-type');
    expect(alert.message).toMatch(/0x42/);
    expect(link.alerts().filter((a) => a.key === 'serial-unknown-type')).toHaveLength(1);
    await stillDelivering();
  });

  it('names a malformed payload and a device-reported error', async () => {
    inject(rawFrame([1, 0x20, 4, 0, 1, 2])); // SENSOR shorter than its timestamp
    inject(encodeFrame({ type: 'error', code: 'crc-mismatch', text: 'CRC mismatch' }, 5));
    expect((await waitForAlert(link, (a) => a.key === 'serial-bad-payload')).message).toMatch(/deviceTimeUs/);
    expect((await waitForAlert(link, (a) => a.key === 'serial-device-error-crc-mismatch')).hint).toMatch(/cable/);
    await stillDelivering();
  });

  it('keys repeated faults into one alert with a count', async () => {
    for (let i = 0; i < 30; i++) inject(rawFrame([1, 0x03, i, 0, 1, 2, 3, 4, 0], { corruptCrc: true }));
    await waitForAlert(link, (a) => a.key === 'serial-crc' && /^30 frames/.test(a.message), 3000);
    expect(link.alerts().filter((a) => a.key === 'serial-crc')).toHaveLength(1);
  });
});
