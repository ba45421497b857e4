// ROS 1 or ROS 2 from a message as rosbridge sends it (JSON or CBOR), for a robot whose rosapi cannot
// list its types: a std_msgs/Header's stamp is `{sec, nanosec}` on ROS 2 (builtin_interfaces/Time) and
// `{secs, nsecs}` on ROS 1, and a ROS 1 header also carries `seq`. Undefined where the message says
// neither (no header: a Twist, a String), so the version stays unknown rather than guessed.
import type { RosVersion } from './rosapi.ts';

export function rosVersionOfMessage(wire: unknown): RosVersion | undefined {
  if (!isObject(wire)) return undefined;
  const header = firstHeader(wire);
  if (header === undefined) return undefined;
  const stamp = header['stamp'];
  if (!isObject(stamp)) return undefined;
  if ('nanosec' in stamp && 'sec' in stamp) return 2;
  if ('nsecs' in stamp && 'secs' in stamp) return 1;
  return undefined;
}

/** The message's own header, or the first of a list's items (a TFMessage's transforms, a MarkerArray's markers). */
function firstHeader(message: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> | undefined {
  if (isObject(message['header'])) return message['header'];
  for (const value of Object.values(message)) {
    if (Array.isArray(value) && isObject(value[0]) && isObject(value[0]['header'])) return value[0]['header'];
  }
  return undefined;
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}
