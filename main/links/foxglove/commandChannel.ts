// How a command goes to a robot over the foxglove protocol: the client channel to advertise (topic,
// encoding, schema in the robot's command type) and the bytes of each command in it. The type comes
// from the server's own channel for that topic where it advertises one (someone publishes there),
// else from the type the operator configured; a robot that says neither gets an error, never a guess.
import { parse } from '@foxglove/rosmsg';
import { MessageWriter as Ros1Writer } from '@foxglove/rosmsg-serialization';
import { MessageWriter as CdrWriter } from '@foxglove/rosmsg2-serialization';
import type { CoreAlert } from '../../core/alert.ts';
import { fullMessageDefinition, fullRos2MessageDefinition, ros2TypeName } from '../../core/rosMessageDefinitions.ts';
import { commandMessage, commandShapeOf, type CommandShape } from '../rosbridge/commandMessage.ts';
import type { WireTwist } from '../rosbridge/decode/twists.ts';
import type { AdvertisedChannel } from './channelList.ts';

export interface CommandChannel {
  topic: string;
  encoding: 'cdr' | 'ros1' | 'json';
  schemaName: string;
  schemaEncoding: string;
  schema: string;
  shape: CommandShape;
  /** The command's bytes: the twist, or a TwistStamped stamped `stampMs` (undefined: zero) in `frameId`. */
  encode(twist: WireTwist, frameId: string, stampMs: number | undefined): Uint8Array;
}

export type CommandChannelOutcome = { ok: true; channel: CommandChannel } | { ok: false; alert: CoreAlert };

export interface CommandChannelSource {
  topic: string;
  /** The server's channel on the command topic, where it advertises one. */
  advertised: AdvertisedChannel | undefined;
  /** The command type the operator configured, where they did. */
  configuredType: string | undefined;
  /** What the server says it takes from clients (serverInfo.supportedEncodings); undefined where it does not say. */
  supportedEncodings: readonly string[] | undefined;
}

const textEncoder = new TextEncoder();

export function commandChannel({ topic, advertised, configuredType, supportedEncodings }: CommandChannelSource): CommandChannelOutcome {
  const key = `command-type:${topic}`;
  const rosType = advertised?.schemaName ?? configuredType;
  if (rosType === undefined) {
    return {
      ok: false,
      alert: {
        key,
        severity: 'error',
        message: `The robot advertises no channel ${topic}, so its command type is not known and no command is sent.`,
        hint: "foxglove_bridge lists a topic only while something publishes it: give the command type (geometry_msgs/msg/Twist or geometry_msgs/msg/TwistStamped) in the topic settings, or point the command role at the topic the robot's base controller takes.",
      },
    };
  }
  const shape = commandShapeOf(rosType);
  if (shape === undefined) {
    return {
      ok: false,
      alert: {
        key,
        severity: 'error',
        message: `${topic} carries ${rosType}; the cockpit sends geometry_msgs/Twist or geometry_msgs/TwistStamped, so nothing was sent.`,
        hint: 'Point the command role at a Twist or TwistStamped topic (a twist_mux input, say), or relay one to this type on the robot.',
      },
    };
  }
  const encoding = chooseEncoding(advertised?.encoding, supportedEncodings);
  if (encoding === undefined) {
    return {
      ok: false,
      alert: {
        key,
        severity: 'error',
        message: `The robot takes ${topic} as ${advertised?.encoding ?? supportedEncodings?.join(', ')}, which the cockpit cannot write, so nothing was sent.`,
        hint: 'The cockpit publishes cdr (ROS 2), ros1 or json.',
      },
    };
  }
  try {
    return { ok: true, channel: build(topic, rosType, shape, encoding, advertised) };
  } catch (error) {
    return {
      ok: false,
      alert: {
        key,
        severity: 'error',
        message: `The robot's schema for ${topic} (${rosType}) cannot be written: ${error instanceof Error ? error.message : String(error)}; nothing was sent.`,
        hint: "Check the message package on the robot; the cockpit's own geometry_msgs definition is used where the robot advertises none.",
      },
    };
  }
}

function chooseEncoding(advertised: string | undefined, supported: readonly string[] | undefined): CommandChannel['encoding'] | undefined {
  const writable = (encoding: string): encoding is CommandChannel['encoding'] => encoding === 'cdr' || encoding === 'ros1' || encoding === 'json';
  if (advertised !== undefined) return writable(advertised) ? advertised : undefined;
  if (supported === undefined || supported.length === 0) return 'cdr';
  return supported.find(writable);
}

function build(
  topic: string,
  rosType: string,
  shape: CommandShape,
  encoding: CommandChannel['encoding'],
  advertised: AdvertisedChannel | undefined,
): CommandChannel {
  const ros2 = encoding !== 'ros1';
  const schemaName = advertised?.schemaName ?? (ros2 ? ros2TypeName(rosType) : rosType.replace('/msg/', '/'));
  // The robot's own schema where it sent one that parses like ours; else the standard definition.
  const ownSchema = advertised !== undefined && advertised.schema !== '' && advertised.schemaEncoding !== 'ros2idl' ? advertised.schema : undefined;
  const schema = ownSchema ?? (ros2 ? fullRos2MessageDefinition(rosType) : fullMessageDefinition(rosType.replace('/msg/', '/')));
  const schemaEncoding = encoding === 'cdr' ? 'ros2msg' : encoding === 'ros1' ? 'ros1msg' : 'jsonschema';
  const messageOf = (twist: WireTwist, frameId: string, stampMs: number | undefined) => commandMessage(twist, ros2TypeName(rosType), shape, frameId, stampMs);
  if (encoding === 'json') {
    return {
      topic,
      encoding,
      schemaName,
      schemaEncoding,
      schema: '',
      shape,
      encode: (twist, frameId, stampMs) => textEncoder.encode(JSON.stringify(messageOf(twist, frameId, stampMs))),
    };
  }
  const definitions = parse(schema, { ros2 });
  if (encoding === 'cdr') {
    const writer = new CdrWriter(definitions);
    return {
      topic,
      encoding,
      schemaName,
      schemaEncoding,
      schema,
      shape,
      encode: (twist, frameId, stampMs) => writer.writeMessage(messageOf(twist, frameId, stampMs)),
    };
  }
  const writer = new Ros1Writer(definitions);
  return {
    topic,
    encoding,
    schemaName,
    schemaEncoding,
    schema,
    shape,
    encode: (twist, frameId, stampMs) => writer.writeMessage(ros1Times(messageOf(twist, frameId, stampMs))),
  };
}

/** commandMessage writes ROS 2 times `{sec, nanosec}`; the ROS 1 writer takes `{sec, nsec}`. */
function ros1Times(message: unknown): unknown {
  const stamped = message as { header?: { stamp: { sec: number; nanosec: number }; frame_id: string } };
  if (stamped.header === undefined) return message;
  const { sec, nanosec } = stamped.header.stamp;
  return { ...stamped, header: { seq: 0, stamp: { sec, nsec: nanosec }, frame_id: stamped.header.frame_id } };
}
