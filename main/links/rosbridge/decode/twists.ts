// geometry_msgs/Twist in both directions: the command the link publishes, and the decoders for a Twist
// or TwistStamped topic the cockpit listens to (e.g. another controller's /cmd_vel).
import type { Twist, Vector3 } from '../../../core/messages.ts';
import { decodeWith, readHeader, type Decoded } from './decoded.ts';
import { readVector3 } from './geometry.ts';

export interface WireTwist {
  linear: Vector3;
  angular: Vector3;
}

export function decodeTwist(wire: unknown): Decoded<Twist> {
  return decodeWith(wire, 'geometry_msgs/Twist', 'geometry_msgs/Twist needs finite linear and angular vectors.', (message) => ({
    msg: { kind: 'Twist', linearMps: readVector3(message, 'linear'), angularRadps: readVector3(message, 'angular') },
    stampMs: undefined,
  }));
}

export function decodeTwistStamped(wire: unknown): Decoded<Twist> {
  return decodeWith(wire, 'geometry_msgs/TwistStamped', 'geometry_msgs/TwistStamped needs a header and finite linear and angular vectors.', (message) => {
    const twist = message.object('twist');
    return {
      msg: { kind: 'Twist', linearMps: readVector3(twist, 'linear'), angularRadps: readVector3(twist, 'angular') },
      stampMs: readHeader(message).stampMs,
    };
  });
}

/** The wire form of a command, or undefined when a value is not finite (JSON would send null). */
export function encodeTwist(twist: Twist): WireTwist | undefined {
  const linear = { x: twist.linearMps.x, y: twist.linearMps.y, z: twist.linearMps.z };
  const angular = { x: twist.angularRadps.x, y: twist.angularRadps.y, z: twist.angularRadps.z };
  const values = [linear.x, linear.y, linear.z, angular.x, angular.y, angular.z];
  return values.every(Number.isFinite) ? { linear, angular } : undefined;
}
