// One frame of PROTOCOL.md §1: version, type, seq, payload and CRC-16, COBS-encoded and ended by
// 0x00. Decoding never throws: damaged input becomes a FrameFault that says what was wrong.
import { PayloadError } from './byteCursor.ts';
import { cobsDecode, cobsEncode, CobsError } from './cobs.ts';
import { crc16CcittFalse } from './crc16.ts';
import { decodePayload, encodePayload, UnknownTypeError } from './messageCodec.ts';
import { FIRST_VENDOR_TYPE, LIMITS, PROTOCOL_VERSION, type ProtocolMessage } from './protocolMessages.ts';

export const FRAME_HEADER_BYTES = 4;
export const FRAME_CRC_BYTES = 2;
export const MIN_FRAME_BYTES = FRAME_HEADER_BYTES + FRAME_CRC_BYTES;
export const MAX_FRAME_BYTES = FRAME_HEADER_BYTES + LIMITS.maxPayloadBytes + FRAME_CRC_BYTES;
/** The longest COBS block a valid frame becomes (one overhead byte: frames are under 254 bytes). */
export const MAX_ENCODED_FRAME_BYTES = MAX_FRAME_BYTES + 1;
export const FRAME_DELIMITER = 0x00;

export interface Frame {
  seq: number;
  message: ProtocolMessage;
}

export type FrameFaultKind = 'bad-cobs' | 'too-short' | 'too-long' | 'crc-mismatch' | 'unsupported-version' | 'unknown-type' | 'bad-payload';

export interface FrameFault {
  kind: FrameFaultKind;
  detail: string;
  /** Present when the header could be trusted (the CRC matched). */
  seq?: number;
  typeCode?: number;
}

export type FrameDecodeResult =
  | { status: 'frame'; frame: Frame }
  /** A vendor-extension type (0x80–0xFF) this host does not know: skipped without complaint. */
  | { status: 'ignored'; seq: number; typeCode: number }
  | { status: 'fault'; fault: FrameFault };

/** The bytes to write for one message: COBS-encoded frame plus the 0x00 delimiter. */
export function encodeFrame(message: ProtocolMessage, seq: number): Uint8Array {
  const { typeCode, payload } = encodePayload(message);
  if (payload.length > LIMITS.maxPayloadBytes) {
    throw new RangeError(`${message.type} payload is ${payload.length} bytes; the protocol allows ${LIMITS.maxPayloadBytes}`);
  }
  const frame = new Uint8Array(FRAME_HEADER_BYTES + payload.length + FRAME_CRC_BYTES);
  frame[0] = PROTOCOL_VERSION;
  frame[1] = typeCode;
  frame[2] = seq & 0xff;
  frame[3] = (seq >> 8) & 0xff;
  frame.set(payload, FRAME_HEADER_BYTES);
  const crc = crc16CcittFalse(frame.subarray(0, frame.length - FRAME_CRC_BYTES));
  frame[frame.length - 2] = crc & 0xff;
  frame[frame.length - 1] = crc >> 8;
  const encoded = cobsEncode(frame);
  const wire = new Uint8Array(encoded.length + 1);
  wire.set(encoded);
  wire[encoded.length] = FRAME_DELIMITER;
  return wire;
}

/** Decodes one COBS block (the bytes between two delimiters). */
export function decodeFrame(encoded: Uint8Array): FrameDecodeResult {
  if (encoded.length > MAX_ENCODED_FRAME_BYTES) {
    return fault('too-long', `${encoded.length} bytes between delimiters; a frame is at most ${MAX_ENCODED_FRAME_BYTES}`);
  }
  let frame: Uint8Array;
  try {
    frame = cobsDecode(encoded);
  } catch (error) {
    if (error instanceof CobsError) return fault('bad-cobs', error.message);
    throw error;
  }
  if (frame.length < MIN_FRAME_BYTES) return fault('too-short', `${frame.length} bytes; a frame is at least ${MIN_FRAME_BYTES}`);
  const body = frame.subarray(0, frame.length - FRAME_CRC_BYTES);
  const sentCrc = frame[frame.length - 2]! | (frame[frame.length - 1]! << 8);
  const computedCrc = crc16CcittFalse(body);
  if (sentCrc !== computedCrc) return fault('crc-mismatch', `CRC 0x${hex4(sentCrc)} sent, 0x${hex4(computedCrc)} computed`);

  const version = frame[0]!;
  const typeCode = frame[1]!;
  const seq = frame[2]! | (frame[3]! << 8);
  if (version !== PROTOCOL_VERSION) {
    return fault('unsupported-version', `protocol version ${version}; this side speaks ${PROTOCOL_VERSION}`, seq, typeCode);
  }
  try {
    return { status: 'frame', frame: { seq, message: decodePayload(typeCode, body.subarray(FRAME_HEADER_BYTES)) } };
  } catch (error) {
    if (error instanceof UnknownTypeError) {
      return typeCode >= FIRST_VENDOR_TYPE ? { status: 'ignored', seq, typeCode } : fault('unknown-type', error.message, seq, typeCode);
    }
    if (error instanceof PayloadError) return fault('bad-payload', error.message, seq, typeCode);
    throw error;
  }
}

function fault(kind: FrameFaultKind, detail: string, seq?: number, typeCode?: number): FrameDecodeResult {
  const result: FrameFault = { kind, detail };
  if (seq !== undefined) result.seq = seq;
  if (typeCode !== undefined) result.typeCode = typeCode;
  return { status: 'fault', fault: result };
}

function hex4(value: number): string {
  return value.toString(16).padStart(4, '0');
}
