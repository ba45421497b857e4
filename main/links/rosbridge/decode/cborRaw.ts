// rosbridge's `cbor-raw` from a ROS 2 robot: `{secs, nsecs, bytes}`, where `bytes` is the message's
// CDR with its 4-byte encapsulation header and `secs`/`nsecs` is the bridge's receive clock (not the
// message's stamp, which is inside the CDR). The CDR is read with the definition the robot itself
// gave in `/rosapi/topics_and_raw_types`, then handed to the type's usual decoder: the message read
// from CDR has the shape of a CBOR one (byte arrays as Uint8Array, float arrays as typed arrays).
import { parse } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg2-serialization';
import type { RobotMessage } from '../../../core/messages.ts';
import type { Decoded } from './decoded.ts';
import { describeWireValue, isWireRecord } from './wireFields.ts';

/** Reads a message from its CDR bytes; throws when the bytes do not match the definition. */
export type CdrRead = (bytes: Uint8Array) => unknown;

export type CdrReading = { ok: true; read: CdrRead } | { ok: false; problem: string };

/** A reader for a type from the robot's definition text, or why none can be built. */
export function cdrReaderFor(rosType: string, definitionText: string | undefined): CdrReading {
  if (definitionText === undefined || definitionText.trim() === '') {
    return { ok: false, problem: `the robot gave no definition of ${rosType}` };
  }
  try {
    const reader = new MessageReader(parse(definitionText, { ros2: true }));
    return { ok: true, read: (bytes) => reader.readMessage(bytes) };
  } catch (error) {
    return { ok: false, problem: `the robot's definition of ${rosType} does not parse (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** The decoder of a cbor-raw topic: envelope, then CDR, then the type's own decoder on the fields read. */
export function cborRawDecoder(rosType: string, read: CdrRead, decode: (wire: unknown) => Decoded<RobotMessage>): (wire: unknown) => Decoded<RobotMessage> {
  return (wire) => {
    const bytes = cborRawBytes(wire);
    if (typeof bytes === 'string') {
      return { ok: false, problem: `a cbor-raw ${rosType} ${bytes}`, hint: 'Usually a server fault; check the rosbridge_server version and log.' };
    }
    let fields: unknown;
    try {
      fields = read(bytes);
    } catch (error) {
      return {
        ok: false,
        problem: `${bytes.byteLength} bytes of CDR do not match the robot's definition of ${rosType} (${error instanceof Error ? error.message : String(error)})`,
        hint: 'The publisher and rosapi disagree on the message definition (a rebuilt message package?); restart rosbridge_server after rebuilding.',
      };
    }
    const decoded = decode(fields);
    return decoded.ok ? { ...decoded, fields, cdr: bytes } : decoded;
  };
}

/** The CDR bytes of a cbor-raw message, or what is wrong with its envelope. */
function cborRawBytes(wire: unknown): Uint8Array | string {
  if (!isWireRecord(wire)) return `message is ${describeWireValue(wire)}, not {secs, nsecs, bytes}`;
  const bytes = wire['bytes'];
  if (!(bytes instanceof Uint8Array)) return `message's "bytes" is ${describeWireValue(bytes)}, not a byte string`;
  return bytes;
}
