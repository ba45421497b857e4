// Rigid transforms as TF composes them: a translation in metres and a unit quaternion, named by the
// frames they map between (`parentFromChild`: a point in the child frame, expressed in the parent).
import type { Quaternion, Vector3 } from '../messages.ts';

export interface RigidTransform {
  translation: Vector3;
  rotation: Quaternion;
}

export const IDENTITY_TRANSFORM: Readonly<RigidTransform> = Object.freeze({
  translation: Object.freeze({ x: 0, y: 0, z: 0 }),
  rotation: Object.freeze({ x: 0, y: 0, z: 0, w: 1 }),
});

/** tf2's QUATERNION_NORMALIZATION_TOLERANCE: a quaternion whose squared length is further than this from 1 is refused, not normalised. */
export const QUATERNION_LENGTH2_TOLERANCE = 1e-2;

/** The quaternion scaled to unit length; undefined when it is not near unit length to begin with (a zero quaternion, a typo) or not finite. */
export function unitQuaternion(q: Quaternion): Quaternion | undefined {
  const length2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  if (!Number.isFinite(length2) || Math.abs(length2 - 1) > QUATERNION_LENGTH2_TOLERANCE) return undefined;
  const scale = 1 / Math.sqrt(length2);
  return { x: q.x * scale, y: q.y * scale, z: q.z * scale, w: q.w * scale };
}

export function multiplyQuaternions(a: Quaternion, b: Quaternion): Quaternion {
  return {
    x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
    y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
    z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
    w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
  };
}

/** `v` rotated by the unit quaternion `q` (q v q*, expanded). */
export function rotateVector(q: Quaternion, v: Vector3): Vector3 {
  // t = 2 (q.xyz × v); v' = v + w t + q.xyz × t
  const tx = 2 * (q.y * v.z - q.z * v.y);
  const ty = 2 * (q.z * v.x - q.x * v.z);
  const tz = 2 * (q.x * v.y - q.y * v.x);
  return {
    x: v.x + q.w * tx + (q.y * tz - q.z * ty),
    y: v.y + q.w * ty + (q.z * tx - q.x * tz),
    z: v.z + q.w * tz + (q.x * ty - q.y * tx),
  };
}

/** aFromC = aFromB ∘ bFromC. */
export function composeTransforms(aFromB: RigidTransform, bFromC: RigidTransform): RigidTransform {
  const moved = rotateVector(aFromB.rotation, bFromC.translation);
  return {
    translation: { x: aFromB.translation.x + moved.x, y: aFromB.translation.y + moved.y, z: aFromB.translation.z + moved.z },
    rotation: multiplyQuaternions(aFromB.rotation, bFromC.rotation),
  };
}

/** bFromA from aFromB. */
export function invertTransform(aFromB: RigidTransform): RigidTransform {
  const q = aFromB.rotation;
  const inverse = { x: -q.x, y: -q.y, z: -q.z, w: q.w };
  const back = rotateVector(inverse, aFromB.translation);
  return { translation: { x: -back.x, y: -back.y, z: -back.z }, rotation: inverse };
}

/** Between `from` (fraction 0) and `to` (fraction 1): translation interpolated linearly, rotation along the shorter great arc (slerp). */
export function interpolateTransforms(from: RigidTransform, to: RigidTransform, fraction: number): RigidTransform {
  const a = from.translation;
  const b = to.translation;
  return {
    translation: { x: a.x + (b.x - a.x) * fraction, y: a.y + (b.y - a.y) * fraction, z: a.z + (b.z - a.z) * fraction },
    rotation: slerp(from.rotation, to.rotation, fraction),
  };
}

export function slerp(a: Quaternion, b: Quaternion, fraction: number): Quaternion {
  let cos = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  // q and -q are the same rotation: take the one on a's side, so the arc is the short one.
  const sign = cos < 0 ? -1 : 1;
  cos *= sign;
  let fromWeight = 1 - fraction;
  let toWeight = fraction;
  // Nearly the same rotation: sin(angle) is too small to divide by, and the straight line is as good.
  if (cos < 0.9995) {
    const angle = Math.acos(cos);
    const sin = Math.sin(angle);
    fromWeight = Math.sin((1 - fraction) * angle) / sin;
    toWeight = Math.sin(fraction * angle) / sin;
  }
  toWeight *= sign;
  const mixed = {
    x: a.x * fromWeight + b.x * toWeight,
    y: a.y * fromWeight + b.y * toWeight,
    z: a.z * fromWeight + b.z * toWeight,
    w: a.w * fromWeight + b.w * toWeight,
  };
  const length = Math.hypot(mixed.x, mixed.y, mixed.z, mixed.w);
  return { x: mixed.x / length, y: mixed.y / length, z: mixed.z / length, w: mixed.w / length };
}
