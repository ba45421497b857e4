// A planar 360° LiDAR at the robot's centre, above the floor and below every solid's top, so each
// beam returns the nearest wall, obstacle or pillar; with range noise and the odd missing return.
import type { LaserScan } from '../core/messages.ts';
import type { Solids } from './arena.ts';
import { rayEntersAabb, rayEntersCircle, type Pose2D } from './geometry.ts';
import type { SeededRandom } from './random.ts';

export interface ScanOptions {
  beams: number;
  rateHz: number;
  rangeMinM: number;
  rangeMaxM: number;
  rangeNoiseSigmaM: number;
  /** Chance that a beam returns nothing (a dark or glancing surface). */
  dropoutProbability: number;
}

/** The frame the scan is stamped in. */
export const LASER_FRAME_ID = 'laser';
/**
 * The scan plane's height above the floor. The sim casts in the plane, so it needs only to lie above
 * the 0.2 m body (the scan sweeps all round) and below the lowest solid's top (0.3 m, the shortest
 * obstacle), so that every solid returns: a LiDAR sitting on the body, its plane at 0.22 m.
 */
export const LASER_MOUNT_HEIGHT_M = 0.22;

export const DEFAULT_SCAN_OPTIONS: Readonly<ScanOptions> = Object.freeze({
  beams: 360,
  rateHz: 10,
  rangeMinM: 0.12,
  rangeMaxM: 8,
  rangeNoiseSigmaM: 0.01,
  dropoutProbability: 0.002,
});

/** A beam's direction in the robot frame. */
interface Beam {
  cosRad: number;
  sinRad: number;
}

export class Lidar {
  private readonly beams: readonly Beam[];
  private readonly angleIncrementRad: number;

  constructor(
    readonly options: ScanOptions,
    private readonly solids: Solids,
  ) {
    if (!Number.isInteger(options.beams) || options.beams < 1) {
      throw new RangeError(`scan beams must be a whole number ≥ 1, got ${options.beams}`);
    }
    this.angleIncrementRad = (2 * Math.PI) / options.beams;
    this.beams = Array.from({ length: options.beams }, (_, index) => {
      const angleRad = -Math.PI + index * this.angleIncrementRad;
      return { cosRad: Math.cos(angleRad), sinRad: Math.sin(angleRad) };
    });
  }

  /** One sweep from this robot pose; `random` supplies the range noise and dropouts. */
  scan(pose: Pose2D, random: SeededRandom): LaserScan {
    const { rangeMinM, rangeMaxM, rangeNoiseSigmaM, dropoutProbability } = this.options;
    const cosYaw = Math.cos(pose.yawRad);
    const sinYaw = Math.sin(pose.yawRad);
    const rangesM = new Float32Array(this.beams.length);
    this.beams.forEach((beam, index) => {
      const directionX = cosYaw * beam.cosRad - sinYaw * beam.sinRad;
      const directionY = sinYaw * beam.cosRad + cosYaw * beam.sinRad;
      const trueRangeM = nearestHitM(this.solids, pose.xM, pose.yM, directionX, directionY);
      // Draw both numbers for every beam, so one beam's outcome never shifts the next beam's noise.
      const dropped = random.next() < dropoutProbability;
      const measuredM = trueRangeM + rangeNoiseSigmaM * random.gaussian();
      if (dropped || measuredM < rangeMinM) rangesM[index] = Number.NaN;
      else if (measuredM > rangeMaxM) rangesM[index] = Infinity;
      else rangesM[index] = measuredM;
    });
    return this.message(rangesM);
  }

  /** A sweep in which no beam came back: a blinded or failing sensor still publishes, all NaN. */
  blindScan(): LaserScan {
    return this.message(new Float32Array(this.beams.length).fill(Number.NaN));
  }

  private message(rangesM: Float32Array): LaserScan {
    return {
      kind: 'LaserScan',
      frameId: LASER_FRAME_ID,
      angleMinRad: -Math.PI,
      angleMaxRad: -Math.PI + (this.beams.length - 1) * this.angleIncrementRad,
      angleIncrementRad: this.angleIncrementRad,
      rangeMinM: this.options.rangeMinM,
      rangeMaxM: this.options.rangeMaxM,
      rangesM,
    };
  }
}

/** Distance along a unit ray to the first solid surface; Infinity when it hits nothing. */
export function nearestHitM(solids: Solids, originXM: number, originYM: number, directionX: number, directionY: number): number {
  let nearestM = Infinity;
  for (const box of solids.boxes) {
    nearestM = Math.min(nearestM, rayEntersAabb(originXM, originYM, directionX, directionY, box));
  }
  for (const pillar of solids.pillars) {
    nearestM = Math.min(nearestM, rayEntersCircle(originXM, originYM, directionX, directionY, pillar));
  }
  return nearestM;
}
