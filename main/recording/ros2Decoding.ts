// ROS 2 messages as `ros2 bag`, mcap_ros2 and foxglove_bridge write them: `cdr` bytes described by a
// `ros2msg` schema (the .msg text with its dependencies) or a `ros2idl` one (the IDL the message
// was generated from). The schema is parsed once per channel into definitions, and one reader built
// from them decodes every message; stamps read as `{sec, nanosec}`, as rosbridge's ROS 2 server sends them.
import { parseRos2idl } from '@foxglove/ros2idl-parser';
import { parse } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg2-serialization';
import type { McapTypes } from '@mcap/core';

const textDecoder = new TextDecoder();

export type Ros2SchemaEncoding = 'ros2msg' | 'ros2idl';

export function isRos2Schema(schema: McapTypes.Schema | undefined): schema is McapTypes.Schema & { encoding: Ros2SchemaEncoding } {
  return schema?.encoding === 'ros2msg' || schema?.encoding === 'ros2idl';
}

/** The decoder of a `cdr` channel with this schema; throws, in words, when the schema does not parse. */
export function cdrDecoder(schema: McapTypes.Schema & { encoding: Ros2SchemaEncoding }): (data: Uint8Array) => unknown {
  const text = textDecoder.decode(schema.data);
  let definitions: ReturnType<typeof parseRos2idl>;
  try {
    definitions = schema.encoding === 'ros2msg' ? parse(text, { ros2: true }) : withRos2TimeFields(parseRos2idl(text));
  } catch (error) {
    throw new Error(`its ${schema.encoding} schema ${schema.name} does not parse: ${(error as Error).message}`);
  }
  const reader = new MessageReader(definitions);
  return (data) => reader.readMessage(data);
}

const TIME_TYPES = new Set(['builtin_interfaces/msg/Time', 'builtin_interfaces/msg/Duration']);

/** @foxglove/ros2idl-parser names Time's and Duration's `nanosec` field `nsec` (ROS 1's name): renamed back, so both schema encodings decode alike. */
function withRos2TimeFields(definitions: ReturnType<typeof parseRos2idl>): ReturnType<typeof parseRos2idl> {
  return definitions.map((definition) =>
    definition.name !== undefined && TIME_TYPES.has(definition.name)
      ? { ...definition, definitions: definition.definitions.map((field) => (field.name === 'nsec' ? { ...field, name: 'nanosec' } : field)) }
      : definition,
  );
}
