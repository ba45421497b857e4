// Messages of every type the cockpit has no kind of its own for (tf2_msgs/TFMessage, std_msgs/String,
// nav_msgs/OccupancyGrid, visualization_msgs/MarkerArray, ...): delivered as `RosFields`, the fields
// exactly as the transport decoded them (JSON or CBOR shapes, ROS 1 `{secs, nsecs}` or ROS 2
// `{sec, nanosec}` stamps), so the scene and plots read them and the recorder keeps them whole.
import type { RosFields } from '../../../core/messages.ts';
import { decodeWith, readStampMs, type Decoded } from './decoded.ts';
import type { WireObject } from './wireFields.ts';

const HINT = 'The robot sent a message that is not an object of fields; check the publisher of this topic.';

/** The decoder that delivers any message of `rosType` as RosFields; its stamp is `header.stamp` where the message has a header. */
export function rosFieldsDecoder(rosType: string): (wire: unknown) => Decoded<RosFields> {
  return (wire) =>
    decodeWith(wire, rosType, HINT, (message) => ({
      msg: { kind: 'RosFields', rosType, fields: wire as Record<string, unknown> },
      stampMs: headerStampMs(message),
    }));
}

/**
 * `header.stamp` in ms on the robot's clock; undefined where the message has no std_msgs/Header (a
 * TFMessage stamps each transform instead) or a `header` field of another shape: such a message is
 * still delivered, on its receive time.
 */
function headerStampMs(message: WireObject): number | undefined {
  if (!message.has('header')) return undefined;
  try {
    return readStampMs(message.object('header').object('stamp'));
  } catch {
    return undefined;
  }
}
