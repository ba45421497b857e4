// tf2_msgs/TFMessage as a link delivers it (RosFields: JSON or CBOR shapes, ROS 1 `{secs, nsecs}` or
// ROS 2 `{sec, nanosec}` stamps), read into transforms stamped on the robot's clock. A malformed
// transform is skipped with a problem naming the field it failed on; the rest of the message is kept;
// nothing throws. Whether the numbers make a valid transform (NaN, a zero quaternion) is the tree's
// call, so its problem names the frames.
import { canonicalTypeName } from '../links/rosbridge/decode/messageTypes.ts';
import { readStampMs } from '../links/rosbridge/decode/decoded.ts';
import { describeWireValue, isWireRecord, WireObject } from '../links/rosbridge/decode/wireFields.ts';
import type { RigidTransform } from '../core/util/rigidTransform.ts';

/** The ROS 1 types whose messages carry TF (tf's old tfMessage has the same fields). */
const TF_TYPES: ReadonlySet<string> = new Set(['tf2_msgs/TFMessage', 'tf/tfMessage']);

/** A skipped transform's problems named in full before "and N more". */
const PROBLEMS_NAMED = 3;

export interface TfMessageTransform {
  parent: string;
  child: string;
  /** The robot's stamp; undefined for a zero stamp ("now", as static publishers send it). */
  stampMs: number | undefined;
  /** parentFromChild, as sent: unchecked, unnormalised. */
  transform: RigidTransform;
}

export interface TfMessage {
  transforms: TfMessageTransform[];
  /** What was skipped and why, in words. */
  problems: string[];
}

/** Whether a topic of this ROS type carries TF (`tf2_msgs/TFMessage` or `tf2_msgs/msg/TFMessage`). */
export function isTfType(rosType: string | undefined): boolean {
  return rosType !== undefined && TF_TYPES.has(canonicalTypeName(rosType));
}

/** A TFMessage's transforms; a message that is not one at all is a problem with no transforms. */
export function readTfMessage(fields: unknown, topic: string): TfMessage {
  const items = isWireRecord(fields) ? fields['transforms'] : undefined;
  if (!Array.isArray(items)) {
    const got = items === undefined ? 'no transforms list' : `transforms as ${describeWireValue(items)}`;
    return { transforms: [], problems: [`a message on ${topic} is not a TFMessage: it has ${got}`] };
  }
  const transforms: TfMessageTransform[] = [];
  const skipped: string[] = [];
  items.forEach((item: unknown, index) => {
    try {
      transforms.push(readTransformStamped(WireObject.root(item, `${topic}.transforms[${index}]`)));
    } catch (error) {
      skipped.push((error as Error).message);
    }
  });
  if (skipped.length === 0) return { transforms, problems: [] };
  const more = skipped.length > PROBLEMS_NAMED ? ` and ${skipped.length - PROBLEMS_NAMED} more` : '';
  return {
    transforms,
    problems: [
      `${topic}: ${skipped.length} malformed transform${skipped.length === 1 ? '' : 's'} skipped (${skipped.slice(0, PROBLEMS_NAMED).join('; ')}${more})`,
    ],
  };
}

/** geometry_msgs/TransformStamped; throws a WireFieldError naming the field. */
function readTransformStamped(item: WireObject): TfMessageTransform {
  const header = item.object('header');
  const transform = item.object('transform');
  const translation = transform.object('translation');
  const rotation = transform.object('rotation');
  return {
    parent: header.string('frame_id'),
    child: item.string('child_frame_id'),
    stampMs: readStampMs(header.object('stamp')),
    transform: {
      translation: { x: translation.number('x'), y: translation.number('y'), z: translation.number('z') },
      rotation: { x: rotation.number('x'), y: rotation.number('y'), z: rotation.number('z'), w: rotation.number('w') },
    },
  };
}
