// Turns one advertised channel's payloads into message objects, by its encoding and schema: `cdr`
// with a `ros2msg` or `ros2idl` schema (foxglove_bridge on ROS 2), `ros1` with a `ros1msg` schema
// (foxglove_bridge on ROS 1) and `json`. The schema is parsed once per channel; a schema that does not
// parse, or a payload that does not match it, is a problem in words, never an exception.
import { parseRos2idl } from '@foxglove/ros2idl-parser';
import { parse } from '@foxglove/rosmsg';
import { MessageReader as Ros1Reader } from '@foxglove/rosmsg-serialization';
import { MessageReader as CdrReader } from '@foxglove/rosmsg2-serialization';
import type { AdvertisedChannel } from './channelList.ts';

const textDecoder = new TextDecoder('utf-8', { fatal: true });

/** Reads one payload; throws a ChannelPayloadError saying why it does not match the channel. */
export type PayloadReader = (payload: Uint8Array) => unknown;

export class ChannelPayloadError extends Error {
  override readonly name = 'ChannelPayloadError';
}

export type ReaderOutcome = { ok: true; read: PayloadReader } | { ok: false; problem: string; hint: string };

type Definitions = ReturnType<typeof parse>;

/** The message encodings a channel may have for the cockpit to read it (its schema may still not parse). */
export function readsEncoding(encoding: string): boolean {
  return encoding === 'cdr' || encoding === 'ros1' || encoding === 'json';
}

export function payloadReader(channel: AdvertisedChannel): ReaderOutcome {
  const { encoding, schemaName } = channel;
  const schemaEncoding = channel.schemaEncoding ?? defaultSchemaEncoding(encoding);
  if (encoding === 'json') return { ok: true, read: readJson };
  const expected = encoding === 'cdr' ? ['ros2msg', 'ros2idl'] : encoding === 'ros1' ? ['ros1msg'] : undefined;
  if (expected === undefined) {
    return {
      ok: false,
      problem: `${channel.topic} is encoded as "${encoding}", which the cockpit does not read`,
      hint: 'The cockpit reads cdr (ROS 2), ros1 and json channels; foxglove_bridge on a ROS robot sends cdr or ros1.',
    };
  }
  if (schemaEncoding === undefined || !expected.includes(schemaEncoding)) {
    return {
      ok: false,
      problem: `${channel.topic} (${encoding}) comes with a "${schemaEncoding ?? 'missing'}" schema; ${encoding} needs ${expected.join(' or ')}`,
      hint: 'A server bug or an unusual bridge: check its version.',
    };
  }
  let definitions: Definitions;
  try {
    definitions = parseSchema(channel.schema, schemaEncoding, schemaName);
    if (definitions.length === 0 || definitions[0]!.definitions.length === 0) throw new Error('it defines no message fields');
  } catch (error) {
    return {
      ok: false,
      problem: `the ${schemaEncoding} schema of ${channel.topic} (${schemaName}) does not parse: ${error instanceof Error ? error.message : String(error)}`,
      hint: "The robot's bridge sent a schema the cockpit cannot read; its other topics keep working. Check the message package on the robot.",
    };
  }
  try {
    return { ok: true, read: encoding === 'cdr' ? cdrReader(definitions, schemaName) : ros1Reader(definitions, schemaName) };
  } catch (error) {
    return {
      ok: false,
      problem: `the schema of ${channel.topic} (${schemaName}) parses, but no reader can be built from it: ${error instanceof Error ? error.message : String(error)}`,
      hint: 'A type the message libraries do not support; its other topics keep working.',
    };
  }
}

function defaultSchemaEncoding(encoding: string): string | undefined {
  // Older foxglove_bridge releases sent no schemaEncoding: cdr meant ros2msg, ros1 meant ros1msg.
  if (encoding === 'cdr') return 'ros2msg';
  if (encoding === 'ros1') return 'ros1msg';
  return undefined;
}

function parseSchema(text: string, schemaEncoding: string, schemaName: string): Definitions {
  if (schemaEncoding !== 'ros2idl') return parse(text, { ros2: schemaEncoding === 'ros2msg' });
  // An IDL lists its structs in any order; the readers take the first as the message itself.
  const definitions = withRos2TimeFields(parseRos2idl(text));
  const root = definitions.findIndex((definition) => definition.name === schemaName);
  if (root < 0) throw new Error(`it defines no ${schemaName}`);
  return [definitions[root]!, ...definitions.filter((_, index) => index !== root)];
}

function cdrReader(definitions: Definitions, schemaName: string): PayloadReader {
  const reader = new CdrReader(definitions);
  return (payload) => {
    let message: unknown;
    try {
      message = reader.readMessage(payload);
    } catch (error) {
      throw mismatch(schemaName, payload, error);
    }
    if (reader.lastReadHadTrailingBytes()) {
      throw new ChannelPayloadError(
        `${payload.byteLength} bytes do not match ${schemaName}: ${payload.byteLength - reader.lastReadByteLength()} bytes left over`,
      );
    }
    return message;
  };
}

function ros1Reader(definitions: Definitions, schemaName: string): PayloadReader {
  const reader = new Ros1Reader(definitions);
  return (payload) => {
    try {
      return ros1TimesAsRosbridge(reader.readMessage(payload));
    } catch (error) {
      throw mismatch(schemaName, payload, error);
    }
  };
}

function readJson(payload: Uint8Array): unknown {
  try {
    return JSON.parse(textDecoder.decode(payload));
  } catch (error) {
    throw new ChannelPayloadError(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function mismatch(schemaName: string, payload: Uint8Array, error: unknown): ChannelPayloadError {
  return new ChannelPayloadError(`${payload.byteLength} bytes do not match ${schemaName}: ${error instanceof Error ? error.message : String(error)}`);
}

const TIME_TYPES = new Set(['builtin_interfaces/msg/Time', 'builtin_interfaces/msg/Duration']);

/** @foxglove/ros2idl-parser names Time's `nanosec` field `nsec` (ROS 1's name): renamed back, so both schema encodings decode alike. */
function withRos2TimeFields(definitions: Definitions): Definitions {
  return definitions.map((definition) =>
    definition.name !== undefined && TIME_TYPES.has(definition.name)
      ? { ...definition, definitions: definition.definitions.map((field) => (field.name === 'nsec' ? { ...field, name: 'nanosec' } : field)) }
      : definition,
  );
}

/** The ROS 1 reader gives times as `{sec, nsec}`; the decoders read rosbridge's ROS 1 `{secs, nsecs}`. */
function ros1TimesAsRosbridge(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ros1TimesAsRosbridge);
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 2 && typeof record['sec'] === 'number' && typeof record['nsec'] === 'number') return { secs: record['sec'], nsecs: record['nsec'] };
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = ros1TimesAsRosbridge(record[key]);
  return out;
}
