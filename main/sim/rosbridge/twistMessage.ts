// geometry_msgs/Twist as a client publishes it to /cmd_vel. Like rosbridge, a missing field is zero;
// unlike a lenient parser, a field of the wrong type, an unknown field, or a non-finite number
// (JSON sends NaN and inf as null) refuses the whole message: a robot must not guess a velocity.
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

export type ParsedTwist = { ok: true; command: DriveCommand; msg: RosMessage } | { ok: false; message: string };

/** A differential drive obeys linear.x and angular.z; the other components are accepted and unused. */
export function parseTwist(msg: unknown): ParsedTwist {
  const result = TwistMessage.safeParse(msg);
  if (!result.success) return { ok: false, message: `not a valid geometry_msgs/Twist: ${describeIssues(result.error)}` };
  const { linear, angular } = result.data;
  return { ok: true, command: { linearMps: linear.x, angularRadps: angular.z }, msg: { linear: { ...linear }, angular: { ...angular } } };
}
