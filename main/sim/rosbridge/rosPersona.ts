// Which ROS generation the simulated robot's rosbridge server behaves as. ROS 1 (rosbridge_suite
// 0.11): `pkg/Type` names, headers with `seq` and stamps as `{secs, nsecs}`. ROS 2 (rosbridge_suite
// 2.x, as in Jazzy): `pkg/msg/Type` names, headers without `seq`, times as `{sec, nanosec}`, rosapi's
// definitions in their ROS 2 form, `/rosapi/get_ros_version`, and `cbor-raw` subscriptions answered
// with the message's CDR (see cdrEncoding.ts).
import { fullMessageDefinition, fullRos2MessageDefinition, ros2TypeName } from '../../core/rosMessageDefinitions.ts';
import type { RosMessage, RosTime, RosValue } from './rosMessages.ts';
import { COMPRESSIONS, type Compression } from './wireEncoding.ts';

export type SimRosVersion = 1 | 2;

/** builtin_interfaces/Time, as ROS 2 names its fields. */
export type Ros2Time = { sec: number; nanosec: number };

export interface RosPersona {
  readonly rosVersion: SimRosVersion;
  /** A type as rosapi lists it, from its ROS 1 name. */
  typeName(ros1Type: string): string;
  /** A message built in its ROS 1 shape (rosMessages.ts), as this robot publishes it. */
  message(msg: RosMessage): RosMessage;
  time(stamp: RosTime): RosTime | Ros2Time;
  /** The full definition text rosapi answers for a type named as this robot names it. */
  definition(type: string): string;
  /** The `compression` values a subscription may ask for. */
  readonly compressions: readonly Compression[];
}

export const ROS1_PERSONA: RosPersona = Object.freeze({
  rosVersion: 1,
  typeName: (type: string) => type,
  message: (msg: RosMessage) => msg,
  time: (stamp: RosTime) => stamp,
  definition: fullMessageDefinition,
  compressions: COMPRESSIONS.filter((compression) => compression !== 'cbor-raw'),
});

export const ROS2_PERSONA: RosPersona = Object.freeze({
  rosVersion: 2,
  typeName: ros2TypeName,
  message: ros2Message,
  time: ros2Time,
  definition: fullRos2MessageDefinition,
  compressions: COMPRESSIONS,
});

export function personaOf(rosVersion: SimRosVersion): RosPersona {
  return rosVersion === 2 ? ROS2_PERSONA : ROS1_PERSONA;
}

function ros2Time(stamp: RosTime): Ros2Time {
  return { sec: stamp.secs, nanosec: stamp.nsecs };
}

/**
 * The differences in the robot's messages: every std_msgs/Header has no `seq`, and every time is a
 * builtin_interfaces/Time `{sec, nanosec}`, wherever they sit (a TFMessage's transforms, an
 * OccupancyGrid's map_load_time). Typed arrays are passed through untouched.
 */
function ros2Message(msg: RosMessage): RosMessage {
  const converted: RosMessage = {};
  for (const [field, value] of Object.entries(msg)) converted[field] = ros2Value(field, value);
  return converted;
}

function ros2Value(field: string, value: RosValue): RosValue {
  if (typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return value.map((item: RosValue) => ros2Value('', item));
  const message = value as RosMessage;
  if (isRosTime(message)) return ros2Time(message);
  const converted = ros2Message(message);
  if (field === 'header') delete converted['seq'];
  return converted;
}

function isRosTime(value: RosMessage): value is RosTime {
  const fields = Object.keys(value);
  return fields.length === 2 && typeof value['secs'] === 'number' && typeof value['nsecs'] === 'number';
}
