// Payload encoders and decoders for every message type of PROTOCOL.md §3. Decoding throws a
// PayloadError (short or inconsistent payload) or an UnknownTypeError; framing and CRC live in
// frames.ts.
import { ByteReader, ByteWriter, PayloadError } from './byteCursor.ts';
import { ACK_RESULTS, ERROR_CODES, LIMITS, MESSAGE_TYPE, type AckResult, type ProtocolErrorCode, type ProtocolMessage } from './protocolMessages.ts';
import { decodeSensor, encodeSensor } from './sensorBlocks.ts';

export class UnknownTypeError extends Error {
  override readonly name = 'UnknownTypeError';
  constructor(readonly typeCode: number) {
    super(`unknown message type 0x${typeCode.toString(16).padStart(2, '0')}`);
  }
}

export function encodePayload(message: ProtocolMessage): { typeCode: number; payload: Uint8Array } {
  const writer = new ByteWriter();
  switch (message.type) {
    case 'hello':
      writer.u8(message.protocolVersion).u16(message.heartbeatPeriodMs).text(message.hostName, LIMITS.hostNameBytes);
      break;
    case 'helloReply': {
      writer
        .u8(message.protocolVersion)
        .u16(message.capabilities)
        .u8(message.wheelCount)
        .u8(message.analogCount)
        .u16(message.sensorRateHz)
        .u16(message.heartbeatTimeoutMs)
        .u16(message.heartbeatPeriodMs)
        .u16(message.encoderCountsPerRev)
        .f32(message.wheelRadiusM)
        .f32(message.trackM)
        .f32(message.maxLinearMps)
        .f32(message.maxAngularRadps);
      const name = new ByteWriter();
      const nameBytes = name.text(message.name, LIMITS.deviceNameBytes);
      writer.u8(nameBytes).bytes(name.finish()).text(message.firmwareVersion, LIMITS.firmwareVersionBytes);
      break;
    }
    case 'heartbeat':
      writer.u32(message.senderTimeUs >>> 0).u8(message.status & 0xff);
      break;
    case 'velocity':
      writer.f32(message.linearMps).f32(message.angularRadps);
      break;
    case 'ack':
      writer
        .u16(message.ackedSeq & 0xffff)
        .u8(ACK_RESULTS.indexOf(message.result))
        .f32(message.appliedLinearMps)
        .f32(message.appliedAngularRadps);
      break;
    case 'sensor':
      return { typeCode: MESSAGE_TYPE.sensor, payload: encodeSensor(message) };
    case 'error':
      writer.u8(errorCodeNumber(message.code)).text(message.text, LIMITS.errorTextBytes);
      break;
  }
  return { typeCode: MESSAGE_TYPE[message.type], payload: writer.finish() };
}

export function decodePayload(typeCode: number, payload: Uint8Array): ProtocolMessage {
  const reader = new ByteReader(payload);
  switch (typeCode) {
    case MESSAGE_TYPE.hello:
      return { type: 'hello', protocolVersion: reader.u8('protocolVersion'), heartbeatPeriodMs: reader.u16('heartbeatPeriodMs'), hostName: reader.restText() };
    case MESSAGE_TYPE.helloReply:
      return decodeHelloReply(reader);
    case MESSAGE_TYPE.heartbeat:
      return { type: 'heartbeat', senderTimeUs: reader.u32('senderTimeUs'), status: reader.u8('status') };
    case MESSAGE_TYPE.velocity:
      return { type: 'velocity', linearMps: reader.f32('linearMps'), angularRadps: reader.f32('angularRadps') };
    case MESSAGE_TYPE.ack:
      return {
        type: 'ack',
        ackedSeq: reader.u16('ackedSeq'),
        result: ackResult(reader.u8('result')),
        appliedLinearMps: reader.f32('appliedLinearMps'),
        appliedAngularRadps: reader.f32('appliedAngularRadps'),
      };
    case MESSAGE_TYPE.sensor:
      return decodeSensor(payload);
    case MESSAGE_TYPE.error: {
      const code = reader.u8('error code');
      return { type: 'error', code: ERROR_CODES[code - 1] ?? code, text: reader.restText() };
    }
    default:
      throw new UnknownTypeError(typeCode);
  }
}

function decodeHelloReply(reader: ByteReader): ProtocolMessage {
  const fixed = {
    protocolVersion: reader.u8('protocolVersion'),
    capabilities: reader.u16('capabilities'),
    wheelCount: reader.u8('wheelCount'),
    analogCount: reader.u8('analogCount'),
    sensorRateHz: reader.u16('sensorRateHz'),
    heartbeatTimeoutMs: reader.u16('heartbeatTimeoutMs'),
    heartbeatPeriodMs: reader.u16('heartbeatPeriodMs'),
    encoderCountsPerRev: reader.u16('encoderCountsPerRev'),
    wheelRadiusM: reader.f32('wheelRadiusM'),
    trackM: reader.f32('trackM'),
    maxLinearMps: reader.f32('maxLinearMps'),
    maxAngularRadps: reader.f32('maxAngularRadps'),
  };
  if (fixed.wheelCount > LIMITS.maxWheels) throw new PayloadError(`HELLO_REPLY announces ${fixed.wheelCount} wheels; at most ${LIMITS.maxWheels}`);
  if (fixed.analogCount > LIMITS.maxAnalogChannels) {
    throw new PayloadError(`HELLO_REPLY announces ${fixed.analogCount} analog channels; at most ${LIMITS.maxAnalogChannels}`);
  }
  const nameLength = reader.u8('nameLength');
  const name = reader.text(nameLength, 'name');
  return { type: 'helloReply', ...fixed, name, firmwareVersion: reader.restText() };
}

function ackResult(code: number): AckResult {
  const result = ACK_RESULTS[code];
  if (result === undefined) throw new PayloadError(`ACK result ${code} is not one of 0–${ACK_RESULTS.length - 1}`);
  return result;
}

function errorCodeNumber(code: ProtocolErrorCode): number {
  return typeof code === 'number' ? code : ERROR_CODES.indexOf(code) + 1;
}
