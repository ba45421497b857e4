import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzz } from '../../../test/support/fuzz.ts';
import { utf8Truncated } from './byteCursor.ts';
import { cobsDecode, cobsEncode, CobsError } from './cobs.ts';
import { crc16CcittFalse } from './crc16.ts';
import { decodeFrame, encodeFrame, MAX_ENCODED_FRAME_BYTES } from './frames.ts';
import { FrameStreamDecoder } from './frameStream.ts';
import { ACK_RESULTS, ERROR_CODES, type ProtocolMessage } from './protocolMessages.ts';

const textUpTo = (maxBytes: number) => fc.string({ unit: 'grapheme', maxLength: 8 }).filter((text) => new TextEncoder().encode(text).length <= maxBytes);
const f32 = fc.float();
const u16 = fc.integer({ min: 0, max: 0xffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });

const messageArbitrary: fc.Arbitrary<ProtocolMessage> = fc.oneof(
  fc.record({ type: fc.constant('hello' as const), protocolVersion: fc.integer({ min: 0, max: 255 }), heartbeatPeriodMs: u16, hostName: textUpTo(32) }),
  fc.record({
    type: fc.constant('helloReply' as const),
    protocolVersion: fc.integer({ min: 0, max: 255 }),
    capabilities: u16,
    wheelCount: fc.integer({ min: 0, max: 4 }),
    analogCount: fc.integer({ min: 0, max: 8 }),
    sensorRateHz: u16,
    heartbeatTimeoutMs: u16,
    heartbeatPeriodMs: u16,
    encoderCountsPerRev: u16,
    wheelRadiusM: f32,
    trackM: f32,
    maxLinearMps: f32,
    maxAngularRadps: f32,
    name: textUpTo(32),
    firmwareVersion: textUpTo(16),
  }),
  fc.record({ type: fc.constant('heartbeat' as const), senderTimeUs: u32, status: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ type: fc.constant('velocity' as const), linearMps: f32, angularRadps: f32 }),
  fc.record({ type: fc.constant('ack' as const), ackedSeq: u16, result: fc.constantFrom(...ACK_RESULTS), appliedLinearMps: f32, appliedAngularRadps: f32 }),
  fc.record(
    {
      type: fc.constant('sensor' as const),
      deviceTimeUs: u32,
      wheels: fc.array(
        fc.record({
          encoderCounts: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
          velocityRadps: f32,
          dutyPermille: fc.integer({ min: -1000, max: 1000 }),
        }),
        { maxLength: 4 },
      ),
      analogMillivolts: fc.array(u16, { maxLength: 8 }),
      imu: fc.record({
        orientation: fc.tuple(f32, f32, f32, f32),
        angularVelocityRadps: fc.tuple(f32, f32, f32),
        linearAccelerationMps2: fc.tuple(f32, f32, f32),
      }),
      status: fc.integer({ min: 0, max: 255 }),
    },
    { requiredKeys: ['type', 'deviceTimeUs'] },
  ),
  fc.record({ type: fc.constant('error' as const), code: fc.constantFrom(...ERROR_CODES), text: textUpTo(64) }),
);

function decodeAll(bytes: Uint8Array): ReturnType<FrameStreamDecoder['push']> {
  return new FrameStreamDecoder().push(bytes);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

describe('CRC-16/CCITT-FALSE', () => {
  it('has the standard check value', () => {
    expect(crc16CcittFalse(new TextEncoder().encode('123456789'))).toBe(0x29b1);
  });
});

describe('COBS', () => {
  it('round-trips any bytes, and the encoding holds no zero', () => {
    fuzz(
      [fc.uint8Array({ maxLength: 600 })],
      (data) => {
        const encoded = cobsEncode(data);
        expect(encoded.includes(0)).toBe(false);
        expect(cobsDecode(encoded)).toEqual(data);
      },
      { runs: 500 },
    );
  });

  it('rejects malformed blocks with a CobsError and nothing else', () => {
    fuzz(
      [fc.uint8Array({ maxLength: 300 })],
      (data) => {
        try {
          cobsDecode(data);
        } catch (error) {
          expect(error).toBeInstanceOf(CobsError);
        }
      },
      { runs: 2000 },
    );
  });
});

describe('frames', () => {
  it('round-trip every message through the wire encoding', () => {
    fuzz(
      [messageArbitrary, u16],
      (message, seq) => {
        const wire = encodeFrame(message, seq);
        expect(wire.length).toBeLessThanOrEqual(MAX_ENCODED_FRAME_BYTES + 1);
        expect(decodeAll(wire)).toEqual([{ status: 'frame', frame: { seq, message } }]);
      },
      { runs: 500 },
    );
  });

  it('decode the same whatever the chunking of the byte stream', () => {
    fuzz(
      [fc.array(messageArbitrary, { maxLength: 5 }), fc.array(fc.integer({ min: 1, max: 40 }))],
      (messages, cuts) => {
        const wire = concat(...messages.map((message, index) => encodeFrame(message, index)));
        const decoder = new FrameStreamDecoder();
        const events = [];
        let offset = 0;
        for (const cut of [...cuts, wire.length]) {
          events.push(...decoder.push(wire.subarray(offset, offset + cut)));
          offset += cut;
          if (offset >= wire.length) break;
        }
        expect(events.map((event) => (event.status === 'frame' ? event.frame.message : event))).toEqual(messages);
      },
      { runs: 300 },
    );
  });

  it('never throw on random garbage, and report every damaged frame as a fault', () => {
    fuzz(
      [fc.uint8Array({ maxLength: 2000 })],
      (garbage) => {
        for (const event of decodeAll(garbage)) {
          if (event.status === 'fault') expect(event.fault.detail.length).toBeGreaterThan(0);
        }
      },
      { runs: 1000 },
    );
  });

  it('resynchronise at the next delimiter after garbage or a truncated frame', () => {
    fuzz(
      [fc.uint8Array({ maxLength: 400 }), messageArbitrary, messageArbitrary],
      (garbage, cutOff, message) => {
        const truncated = encodeFrame(cutOff, 1).subarray(0, -1 - (garbage.length % 4));
        const events = decodeAll(concat(garbage, truncated, Uint8Array.of(0), encodeFrame(message, 7)));
        expect(events.at(-1)).toEqual({ status: 'frame', frame: { seq: 7, message } });
      },
      { runs: 500 },
    );
  });

  it('catch every single-bit error with the CRC', () => {
    fuzz(
      [messageArbitrary, fc.nat()],
      (message, bitSeed) => {
        const frame = cobsDecode(encodeFrame(message, 3).subarray(0, -1));
        const bit = bitSeed % (frame.length * 8);
        frame[bit >> 3]! ^= 1 << (bit & 7);
        const result = decodeFrame(cobsEncode(frame));
        expect(result.status).toBe('fault');
      },
      { runs: 1000 },
    );
  });

  it('survive bit flips anywhere on the wire: no throw, and the next frame still decodes', () => {
    fuzz(
      [messageArbitrary, messageArbitrary, fc.nat()],
      (damaged, next, bitSeed) => {
        const wire = encodeFrame(damaged, 1);
        const bit = bitSeed % (wire.length * 8);
        wire[bit >> 3]! ^= 1 << (bit & 7);
        const events = decodeAll(concat(wire, Uint8Array.of(0), encodeFrame(next, 2)));
        expect(events.at(-1)).toEqual({ status: 'frame', frame: { seq: 2, message: next } });
      },
      { runs: 1000 },
    );
  });

  it('name what is wrong: unknown types, vendor types, versions, short payloads', () => {
    const raw = (bytes: number[]): Uint8Array => {
      const frame = Uint8Array.from(bytes);
      const crc = crc16CcittFalse(frame);
      return cobsEncode(concat(frame, Uint8Array.of(crc & 0xff, crc >> 8)));
    };
    expect(decodeFrame(raw([1, 0x42, 5, 0]))).toMatchObject({ status: 'fault', fault: { kind: 'unknown-type', seq: 5, typeCode: 0x42 } });
    expect(decodeFrame(raw([1, 0x90, 6, 0, 1, 2]))).toEqual({ status: 'ignored', seq: 6, typeCode: 0x90 });
    expect(decodeFrame(raw([2, 0x03, 0, 0]))).toMatchObject({ status: 'fault', fault: { kind: 'unsupported-version' } });
    expect(decodeFrame(raw([1, 0x10, 0, 0, 1, 2, 3]))).toMatchObject({
      status: 'fault',
      fault: { kind: 'bad-payload', detail: expect.stringContaining('linearMps') },
    });
    expect(decodeFrame(Uint8Array.of(3, 1, 2))).toMatchObject({ status: 'fault', fault: { kind: 'too-short' } });
  });

  it('drop an over-long run without a delimiter and report it once', () => {
    const events = decodeAll(concat(new Uint8Array(1000).fill(0x55), Uint8Array.of(0), encodeFrame({ type: 'heartbeat', senderTimeUs: 1, status: 0 }, 9)));
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ status: 'fault', fault: { kind: 'too-long', detail: expect.stringContaining('1000 bytes') } });
    expect(events[1]).toMatchObject({ status: 'frame' });
  });
});

describe('utf8Truncated', () => {
  it('cuts text to whole characters within the byte limit', () => {
    fuzz(
      [fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 0, max: 64 })],
      (text, maxBytes) => {
        const cut = utf8Truncated(text, maxBytes);
        expect(cut.length).toBeLessThanOrEqual(maxBytes);
        const decoded = new TextDecoder('utf-8', { fatal: true }).decode(cut);
        expect(new TextEncoder().encode(text).subarray(0, cut.length)).toEqual(cut);
        expect(decoded.length).toBeLessThanOrEqual(text.length);
      },
      { runs: 500 },
    );
  });
});
