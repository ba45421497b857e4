// geometry_msgs/Twist and geometry_msgs/TwistStamped as a client publishes them to /cmd_vel. Like
// rosbridge, a missing field is zero; unlike a lenient parser, a field of the wrong type, an unknown
// field, or a non-finite number (JSON sends NaN and inf as null) refuses the whole message: a robot
// must not guess a velocity.
import { z } from 'zod';
import type { DriveCommand } from '../../core/messages.ts';
import { describeIssues } from './protocol.ts';
import type { RosMessage } from './rosMessages.ts';

const Vector3 = z.strictObject({
  x: z.number().default(0),
  y: z.number().default(0),
  z: z.number().default(0),
});
const ZERO_VECTOR = { x: 0, y: 0, z: 0 };

const TwistMessage = z.strictObject({
  linear: Vector3.default(ZERO_VECTOR),
  angular: Vector3.default(ZERO_VECTOR),
});

const NANOS = z.number().int().min(0).max(999_999_999).optional();
const SECONDS = z.number().int().min(0).optional();
/** ROS 1 writes `{secs, nsecs}`, ROS 2 `{sec, nanosec}`; rosbridge takes either. */
const Time = z.strictObject({ secs: SECONDS, nsecs: NANOS, sec: SECONDS, nanosec: NANOS });

const TwistStampedMessage = z.strictObject({
  header: z
    .strictObject({ seq: z.number().int().min(0).optional(), stamp: Time.default({}), frame_id: z.string().default('') })
    .default({ stamp: {}, frame_id: '' }),
  twist: TwistMessage.default({ linear: ZERO_VECTOR, angular: ZERO_VECTOR }),
});

export type ParsedTwist = { ok: true; command: DriveCommand; msg: RosMessage } | { ok: false; message: string };
/** A TwistStamped's stamp in ms on the robot's clock; undefined for a zero stamp ("now", to Jazzy's controller). */
export type ParsedTwistStamped = { ok: true; command: DriveCommand; stampMs: number | undefined; msg: RosMessage } | { ok: false; message: string };

/** A differential drive obeys linear.x and angular.z; the other components are accepted and unused. */
export function parseTwist(msg: unknown): ParsedTwist {
  const result = TwistMessage.safeParse(msg);
  if (!result.success) return { ok: false, message: `not a valid geometry_msgs/Twist: ${describeIssues(result.error)}` };
  const { linear, angular } = result.data;
  return { ok: true, command: { linearMps: linear.x, angularRadps: angular.z }, msg: { linear: { ...linear }, angular: { ...angular } } };
}

export function parseTwistStamped(msg: unknown): ParsedTwistStamped {
  const result = TwistStampedMessage.safeParse(msg);
  if (!result.success) return { ok: false, message: `not a valid geometry_msgs/TwistStamped: ${describeIssues(result.error)}` };
  const { header, twist } = result.data;
  const secs = header.stamp.sec ?? header.stamp.secs ?? 0;
  const nanos = header.stamp.nanosec ?? header.stamp.nsecs ?? 0;
  const stampMs = secs === 0 && nanos === 0 ? undefined : secs * 1000 + nanos / 1e6;
  return {
    ok: true,
    command: { linearMps: twist.linear.x, angularRadps: twist.angular.z },
    stampMs,
    msg: {
      header: { seq: header.seq ?? 0, stamp: { secs, nsecs: nanos }, frame_id: header.frame_id },
      twist: { linear: { ...twist.linear }, angular: { ...twist.angular } },
    },
  };
}
