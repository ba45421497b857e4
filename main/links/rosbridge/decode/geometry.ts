// geometry_msgs building blocks shared by the IMU, odometry and twist decoders.
import type { Quaternion, Vector3 } from '../../../core/messages.ts';
import type { WireObject } from './wireFields.ts';

export function readVector3(parent: WireObject, name: string): Vector3 {
  const vector = parent.object(name);
  return { x: vector.finite('x'), y: vector.finite('y'), z: vector.finite('z') };
}

export function readQuaternion(parent: WireObject, name: string): Quaternion {
  const quaternion = parent.object(name);
  return { x: quaternion.finite('x'), y: quaternion.finite('y'), z: quaternion.finite('z'), w: quaternion.finite('w') };
}

/** Rotation about z of a quaternion (ZYX convention), in radians in (-π, π]. */
export function yawRad(q: Quaternion): number {
  return Math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z));
}
