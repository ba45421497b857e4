// The robot's recent trail: odometry poses kept for a time window in a bounded ring, and drawn in the
// robot's frame (x forward, y left) so the top-down LiDAR view can stay centred on the robot.
import type { OdomPose } from './contract.ts';

export const TRAIL_WINDOW_MS = 20_000;
/** At 10 Hz state events, 20 s is 200 poses; the cap only matters if events arrive faster. */
export const TRAIL_MAX_POINTS = 400;
/** Poses closer than this to the last one kept add nothing to the drawing. */
const MIN_STEP_M = 0.01;

interface TrailPoint {
  xM: number;
  yM: number;
  atMs: number;
}

export class PoseTrail {
  readonly #xM: Float64Array;
  readonly #yM: Float64Array;
  readonly #atMs: Float64Array;
  /** Index of the oldest point in the ring. */
  #start = 0;
  #count = 0;

  constructor(
    readonly windowMs = TRAIL_WINDOW_MS,
    readonly maxPoints = TRAIL_MAX_POINTS,
  ) {
    this.#xM = new Float64Array(maxPoints);
    this.#yM = new Float64Array(maxPoints);
    this.#atMs = new Float64Array(maxPoints);
  }

  get length(): number {
    return this.#count;
  }

  /** Keeps the pose unless the robot has barely moved since the last one; drops points past the window. */
  record(pose: Pick<OdomPose, 'xM' | 'yM'>, atMs: number): void {
    this.#dropOlderThan(atMs - this.windowMs);
    if (this.#count > 0) {
      const last = (this.#start + this.#count - 1) % this.maxPoints;
      if (Math.hypot(pose.xM - this.#xM[last]!, pose.yM - this.#yM[last]!) < MIN_STEP_M) return;
    }
    const slot = (this.#start + this.#count) % this.maxPoints;
    this.#xM[slot] = pose.xM;
    this.#yM[slot] = pose.yM;
    this.#atMs[slot] = atMs;
    if (this.#count < this.maxPoints) this.#count++;
    else this.#start = (this.#start + 1) % this.maxPoints;
  }

  clear(): void {
    this.#start = 0;
    this.#count = 0;
  }

  /** The points still inside the window at nowMs, oldest first, in the odometry frame. */
  points(nowMs: number): TrailPoint[] {
    this.#dropOlderThan(nowMs - this.windowMs);
    const points: TrailPoint[] = [];
    for (let i = 0; i < this.#count; i++) {
      const slot = (this.#start + i) % this.maxPoints;
      points.push({ xM: this.#xM[slot]!, yM: this.#yM[slot]!, atMs: this.#atMs[slot]! });
    }
    return points;
  }

  #dropOlderThan(cutoffMs: number): void {
    while (this.#count > 0 && this.#atMs[this.#start]! < cutoffMs) {
      this.#start = (this.#start + 1) % this.maxPoints;
      this.#count--;
    }
  }
}

/** Odometry-frame points seen from the robot at odomFromBase, as interleaved x, y pairs in metres. */
export function trailInRobotFrame(points: readonly Pick<TrailPoint, 'xM' | 'yM'>[], odomFromBase: OdomPose): Float32Array {
  const cos = Math.cos(odomFromBase.yawRad);
  const sin = Math.sin(odomFromBase.yawRad);
  const robotPoints = new Float32Array(points.length * 2);
  points.forEach((point, i) => {
    const dxM = point.xM - odomFromBase.xM;
    const dyM = point.yM - odomFromBase.yM;
    // Inverse rotation: R(-yaw) · (p − base).
    robotPoints[i * 2] = cos * dxM + sin * dyM;
    robotPoints[i * 2 + 1] = -sin * dxM + cos * dyM;
  });
  return robotPoints;
}
