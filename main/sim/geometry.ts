// Planar geometry for a world of axis-aligned boxes and upright cylinders: ray casts and distances,
// solved analytically so that sensors and planning cost microseconds. (Contacts are Rapier's.)

/** A pose in the arena's world frame (x east, y north, yaw counter-clockwise from east). */
export interface Pose2D {
  xM: number;
  yM: number;
  yawRad: number;
}

export interface Aabb {
  minXM: number;
  minYM: number;
  maxXM: number;
  maxYM: number;
}

export interface Circle {
  xM: number;
  yM: number;
  radiusM: number;
}

/** Wraps an angle into [-π, π). */
export function wrapAngleRad(angleRad: number): number {
  const turns = Math.floor((angleRad + Math.PI) / (2 * Math.PI));
  return angleRad - turns * 2 * Math.PI;
}

/**
 * Ray parameter t at which origin + t·direction enters the box, or Infinity if it misses or starts
 * inside. The direction need not be unit length: t is in units of its length.
 */
export function rayEntersAabb(originXM: number, originYM: number, directionX: number, directionY: number, box: Aabb): number {
  let tNear = -Infinity;
  let tFar = Infinity;
  if (directionX === 0) {
    if (originXM < box.minXM || originXM > box.maxXM) return Infinity;
  } else {
    const t1 = (box.minXM - originXM) / directionX;
    const t2 = (box.maxXM - originXM) / directionX;
    tNear = Math.max(tNear, Math.min(t1, t2));
    tFar = Math.min(tFar, Math.max(t1, t2));
  }
  if (directionY === 0) {
    if (originYM < box.minYM || originYM > box.maxYM) return Infinity;
  } else {
    const t1 = (box.minYM - originYM) / directionY;
    const t2 = (box.maxYM - originYM) / directionY;
    tNear = Math.max(tNear, Math.min(t1, t2));
    tFar = Math.min(tFar, Math.max(t1, t2));
  }
  if (tNear > tFar || tNear < 0) return Infinity;
  return tNear;
}

/** Like rayEntersAabb, for the wall of an upright cylinder. */
export function rayEntersCircle(originXM: number, originYM: number, directionX: number, directionY: number, circle: Circle): number {
  const offsetX = originXM - circle.xM;
  const offsetY = originYM - circle.yM;
  const a = directionX * directionX + directionY * directionY;
  const halfB = directionX * offsetX + directionY * offsetY;
  const c = offsetX * offsetX + offsetY * offsetY - circle.radiusM * circle.radiusM;
  if (c < 0) return Infinity;
  const discriminant = halfB * halfB - a * c;
  if (discriminant < 0) return Infinity;
  const t = (-halfB - Math.sqrt(discriminant)) / a;
  return t >= 0 ? t : Infinity;
}

/** Distance from a point to the box's surface (0 inside). */
export function distanceToAabbM(xM: number, yM: number, box: Aabb): number {
  const dx = Math.max(box.minXM - xM, 0, xM - box.maxXM);
  const dy = Math.max(box.minYM - yM, 0, yM - box.maxYM);
  // Not Math.hypot: this runs for every cell of every planning grid, and hypot is several times slower.
  return Math.sqrt(dx * dx + dy * dy);
}

/** Distance from a point to the circle's rim (0 inside). */
export function distanceToCircleM(xM: number, yM: number, circle: Circle): number {
  const dx = xM - circle.xM;
  const dy = yM - circle.yM;
  return Math.max(0, Math.sqrt(dx * dx + dy * dy) - circle.radiusM);
}
