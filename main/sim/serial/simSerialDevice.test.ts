import { describe, expect, it } from 'vitest';
import { cobsEncode } from '../../links/serial/cobs.ts';
import { crc16CcittFalse } from '../../links/serial/crc16.ts';
import { encodeFrame } from '../../links/serial/frames.ts';
import { FrameStreamDecoder } from '../../links/serial/frameStream.ts';
import type { ProtocolMessage } from '../../links/serial/protocolMessages.ts';
import type { DriveCommand, JointState } from '../../core/messages.ts';
import { SimSerialDevice } from './simSerialDevice.ts';

function harness() {
  let nowMs = 0;
  const drives: DriveCommand[] = [];
  const replies: ProtocolMessage[] = [];
  const decoder = new FrameStreamDecoder();
  const device = new SimSerialDevice({
    write: (bytes) => {
      for (const event of decoder.push(bytes)) if (event.status === 'frame') replies.push(event.frame.message);
    },
    drive: (command) => drives.push(command),
    nowMs: () => nowMs,
  });
  let seq = 0;
  return {
    device,
    drives,
    replies,
    send: (message: ProtocolMessage) => device.receive(encodeFrame(message, seq++)),
    advance: (ms: number) => {
      nowMs += ms;
      device.poll(nowMs * 1000);
    },
  };
}

const JOINTS: JointState = {
  kind: 'JointState',
  names: ['l', 'r'],
  positionsRad: Float64Array.of(Math.PI, 0),
  velocitiesRadps: Float64Array.of(1, 1),
  effortsNm: new Float64Array(2),
};

describe('SimSerialDevice', () => {
  it('stays silent until HELLO, then answers and samples', () => {
    const { device, replies, send } = harness();
    device.sample(0, JOINTS, undefined);
    expect(replies).toEqual([]);
    send({ type: 'hello', protocolVersion: 1, heartbeatPeriodMs: 100, hostName: 't' });
    device.sample(20_000, JOINTS, undefined);
    expect(replies.map((reply) => reply.type)).toEqual(['helloReply', 'sensor']);
    expect(replies[1]).toMatchObject({ wheels: [{ encoderCounts: 2048 }, { encoderCounts: 0 }] });
  });

  it('drives while heartbeats are fresh, clamps, and stops by itself when they stop', () => {
    const { replies, drives, send, advance } = harness();
    send({ type: 'hello', protocolVersion: 1, heartbeatPeriodMs: 100, hostName: 't' });
    send({ type: 'velocity', linearMps: 5, angularRadps: 0 });
    expect(replies.at(-1)).toMatchObject({ type: 'ack', result: 'clamped', appliedLinearMps: expect.closeTo(0.6, 5) });
    advance(200);
    expect(drives.at(-1)?.linearMps).toBeCloseTo(0.6); // renewed while armed
    advance(250);
    expect(drives.at(-1)).toEqual({ linearMps: 0, angularRadps: 0 });
    send({ type: 'velocity', linearMps: 0.1, angularRadps: 0 });
    expect(replies.at(-1)).toMatchObject({ type: 'ack', result: 'not-armed' });
  });

  it('answers damage with a rate-limited ERROR and ignores vendor types', () => {
    const { device, replies, advance } = harness();
    const vendor = Uint8Array.of(1, 0x90, 0, 0);
    const crc = crc16CcittFalse(vendor);
    device.receive(Uint8Array.of(...cobsEncode(Uint8Array.of(...vendor, crc & 0xff, crc >> 8)), 0));
    expect(replies).toEqual([]);
    device.receive(Uint8Array.of(1, 2, 3, 0, 4, 5, 6, 0));
    advance(10);
    device.receive(Uint8Array.of(7, 7, 0));
    expect(replies).toEqual([{ type: 'error', code: 'bad-frame', text: expect.any(String) }]);
  });
});
