// A multi-layer 3D range sensor (a 16-beam spinning LiDAR, say) on the robot's mast: layers of
// beams fanned between a lowest and a highest elevation, each cast against the floor and the
// solids with their heights, so low obstacles, wall tops and the floor all show. Like the planar
// LiDAR it is solved analytically against the same solids the Rapier world is built from (a few
// hundred microseconds a sweep), and misses are left out: the cloud is unorganised and dense.
import type { PointCloud2, PointField } from '../core/messages.ts';
import type { Rgb } from './arena.ts';
import type { EpisodeSolids } from './episodeSolids.ts';
import type { Pose2D } from './geometry.ts';
import type { SeededRandom } from './random.ts';

export interface RangeCloudOptions {
  /** Off, the robot publishes no point cloud at all. */
  enabled: boolean;
  layers: number;
  /** Beams per layer, spread evenly over 360°. */
  beams: number;
  rateHz: number;
  /** Elevation of the lowest and the highest layer, up from the horizontal. */
  elevationMinRad: number;
  elevationMaxRad: number;
  /** The sensor's height above the floor (base_link sits on the floor under the robot's centre). */
  mountHeightM: number;
  rangeMinM: number;
  rangeMaxM: number;
  rangeNoiseSigmaM: number;
  dropoutProbability: number;
}

const DEG = Math.PI / 180;

export const DEFAULT_RANGE_CLOUD_OPTIONS: Readonly<RangeCloudOptions> = Object.freeze({
  enabled: true,
  layers: 16,
  beams: 360,
  rateHz: 10,
  elevationMinRad: -15 * DEG,
  elevationMaxRad: 15 * DEG,
  mountHeightM: 0.3,
  rangeMinM: 0.12,
  rangeMaxM: 8,
  rangeNoiseSigmaM: 0.01,
  dropoutProbability: 0.002,
});

/** x, y, z and intensity, float32 each, little-endian: what most ROS LiDAR drivers publish. */
export const CLOUD_FIELDS: readonly PointField[] = Object.freeze([
  { name: 'x', offsetBytes: 0, datatype: 'float32', count: 1 },
  { name: 'y', offsetBytes: 4, datatype: 'float32', count: 1 },
  { name: 'z', offsetBytes: 8, datatype: 'float32', count: 1 },
  { name: 'intensity', offsetBytes: 12, datatype: 'float32', count: 1 },
]);
export const CLOUD_POINT_STEP_BYTES = 16;
export const CLOUD_FRAME_ID = 'base_link';

/** The floor's intensity; solids return their colour's brightness (0–255). */
const FLOOR_INTENSITY = 40;

export class RangeCloudSensor {
  /** Per layer: the elevation's tangent and cosine. */
  private readonly layerTangents: Float64Array;
  private readonly layerCosines: Float64Array;
  /** Per beam of a layer: the azimuth's cosine and sine in the robot frame. */
  private readonly beamCosines: Float64Array;
  private readonly beamSines: Float64Array;
  /** Reused between sweeps; each message gets its own copy of the points it holds. */
  private readonly scratch: Float32Array;

  constructor(
    readonly options: RangeCloudOptions,
    private readonly solids: EpisodeSolids,
  ) {
    const { layers, beams, elevationMinRad, elevationMaxRad } = options;
    if (!Number.isInteger(layers) || layers < 1) throw new RangeError(`point cloud layers must be a whole number ≥ 1, got ${layers}`);
    if (!Number.isInteger(beams) || beams < 1) throw new RangeError(`point cloud beams must be a whole number ≥ 1, got ${beams}`);
    if (!(elevationMaxRad >= elevationMinRad) || Math.abs(elevationMinRad) >= Math.PI / 2 || Math.abs(elevationMaxRad) >= Math.PI / 2) {
      throw new RangeError(`point cloud elevations must lie within ±90° with min ≤ max, got ${elevationMinRad} to ${elevationMaxRad} rad`);
    }
    this.layerTangents = new Float64Array(layers);
    this.layerCosines = new Float64Array(layers);
    for (let layer = 0; layer < layers; layer++) {
      const elevationRad = layers === 1 ? elevationMinRad : elevationMinRad + ((elevationMaxRad - elevationMinRad) * layer) / (layers - 1);
      this.layerTangents[layer] = Math.tan(elevationRad);
      this.layerCosines[layer] = Math.cos(elevationRad);
    }
    this.beamCosines = new Float64Array(beams);
    this.beamSines = new Float64Array(beams);
    for (let beam = 0; beam < beams; beam++) {
      const azimuthRad = -Math.PI + (2 * Math.PI * beam) / beams;
      this.beamCosines[beam] = Math.cos(azimuthRad);
      this.beamSines[beam] = Math.sin(azimuthRad);
    }
    this.scratch = new Float32Array(layers * beams * 4);
  }

  /** Beams per sweep: layers × beams. */
  get beamCount(): number {
    return this.layerTangents.length * this.beamCosines.length;
  }

  /**
   * One sweep from this robot pose, in base_link; `random` supplies the range noise and dropouts.
   * Every solid is an upright prism (a box or a cylinder standing on the floor), so each azimuth's
   * plan-view entry and exit are found once and shared by all its layers, which then only check the
   * heights: a sweep costs about as much as one planar scan per layer's worth of comparisons.
   */
  sweep(pose: Pose2D, random: SeededRandom): PointCloud2 {
    const { mountHeightM, rangeMinM, rangeMaxM, rangeNoiseSigmaM, dropoutProbability } = this.options;
    const cosYaw = Math.cos(pose.yawRad);
    const sinYaw = Math.sin(pose.yawRad);
    const { layerTangents, layerCosines, beamCosines, beamSines } = this;
    const points = this.scratch;
    // Read afresh each sweep: a dropped obstacle joins the solids mid-episode.
    const { boxes, pillars } = this.solids;
    const solidCount = boxes.length + pillars.length;
    const entersM = new Float64Array(solidCount);
    const exitsM = new Float64Array(solidCount);
    const heightsM = new Float64Array(solidCount);
    const intensities = new Float64Array(solidCount);
    const candidates = new Int32Array(solidCount);
    for (let index = 0; index < boxes.length; index++) {
      heightsM[index] = boxes[index]!.heightM;
      intensities[index] = brightness(boxes[index]!.colour);
    }
    for (let index = 0; index < pillars.length; index++) {
      heightsM[boxes.length + index] = pillars[index]!.heightM;
      intensities[boxes.length + index] = brightness(pillars[index]!.colour);
    }
    let count = 0;
    for (let beam = 0; beam < beamCosines.length; beam++) {
      const localX = beamCosines[beam]!;
      const localY = beamSines[beam]!;
      const worldX = cosYaw * localX - sinYaw * localY;
      const worldY = sinYaw * localX + cosYaw * localY;
      // Plan view: where this azimuth's vertical half-plane enters and leaves each solid.
      let candidateCount = 0;
      for (let index = 0; index < boxes.length; index++) {
        const box = boxes[index]!;
        if (planEntersBox(pose.xM, pose.yM, worldX, worldY, box.minXM, box.minYM, box.maxXM, box.maxYM, entersM, exitsM, index))
          candidates[candidateCount++] = index;
      }
      for (let index = 0; index < pillars.length; index++) {
        const pillar = pillars[index]!;
        const slot = boxes.length + index;
        if (planEntersCircle(pose.xM, pose.yM, worldX, worldY, pillar.xM, pillar.yM, pillar.radiusM, entersM, exitsM, slot))
          candidates[candidateCount++] = slot;
      }
      for (let layer = 0; layer < layerTangents.length; layer++) {
        const tangent = layerTangents[layer]!;
        // Distances here are horizontal: the beam's height at horizontal distance d is mount + d·tan.
        let hitM = tangent < 0 ? mountHeightM / -tangent : Infinity;
        let intensity = FLOOR_INTENSITY;
        for (let c = 0; c < candidateCount; c++) {
          const index = candidates[c]!;
          const heightM = heightsM[index]!;
          let enterM = entersM[index]!;
          let exitM = exitsM[index]!;
          if (tangent > 0) exitM = Math.min(exitM, (heightM - mountHeightM) / tangent);
          else if (tangent < 0) {
            enterM = Math.max(enterM, (heightM - mountHeightM) / tangent);
            exitM = Math.min(exitM, mountHeightM / -tangent);
          } else if (mountHeightM > heightM) continue;
          if (enterM <= exitM && enterM < hitM) {
            hitM = enterM;
            intensity = intensities[index]!;
          }
        }
        // Draw both numbers for every beam, so one beam's outcome never shifts the next beam's noise.
        const dropped = random.next() < dropoutProbability;
        const rangeM = hitM / layerCosines[layer]! + rangeNoiseSigmaM * random.gaussian();
        if (dropped || !(rangeM >= rangeMinM && rangeM <= rangeMaxM)) continue;
        const horizontalM = rangeM * layerCosines[layer]!;
        const out = count * 4;
        points[out] = horizontalM * localX;
        points[out + 1] = horizontalM * localY;
        points[out + 2] = mountHeightM + horizontalM * tangent;
        points[out + 3] = intensity;
        count++;
      }
    }
    return cloudMessage(points.slice(0, count * 4), count);
  }
}

/**
 * The horizontal distances (≥ 0) at which a plan-view ray from the origin along the unit direction
 * enters and leaves the rectangle, written at `slot`; false when it misses.
 */
function planEntersBox(
  ox: number,
  oy: number,
  dx: number,
  dy: number,
  minX: number,
  minY: number,
  maxX: number,
  maxY: number,
  enters: Float64Array,
  exits: Float64Array,
  slot: number,
): boolean {
  let near = 0;
  let far = Infinity;
  if (dx === 0) {
    if (ox < minX || ox > maxX) return false;
  } else {
    const t1 = (minX - ox) / dx;
    const t2 = (maxX - ox) / dx;
    near = Math.max(near, Math.min(t1, t2));
    far = Math.min(far, Math.max(t1, t2));
  }
  if (dy === 0) {
    if (oy < minY || oy > maxY) return false;
  } else {
    const t1 = (minY - oy) / dy;
    const t2 = (maxY - oy) / dy;
    near = Math.max(near, Math.min(t1, t2));
    far = Math.min(far, Math.max(t1, t2));
  }
  if (near > far) return false;
  enters[slot] = near;
  exits[slot] = far;
  return true;
}

/** Like planEntersBox, for a circle. */
function planEntersCircle(
  ox: number,
  oy: number,
  dx: number,
  dy: number,
  centreX: number,
  centreY: number,
  radiusM: number,
  enters: Float64Array,
  exits: Float64Array,
  slot: number,
): boolean {
  const offsetX = ox - centreX;
  const offsetY = oy - centreY;
  const halfB = dx * offsetX + dy * offsetY;
  const c = offsetX * offsetX + offsetY * offsetY - radiusM * radiusM;
  const discriminant = halfB * halfB - c;
  if (discriminant < 0) return false;
  const root = Math.sqrt(discriminant);
  const far = -halfB + root;
  if (far < 0) return false;
  enters[slot] = Math.max(0, -halfB - root);
  exits[slot] = far;
  return true;
}

/** Packs `count` points (x, y, z, intensity) as a sensor_msgs/PointCloud2 of one row. */
export function cloudMessage(xyzi: Float32Array, count: number): PointCloud2 {
  return {
    kind: 'PointCloud2',
    frameId: CLOUD_FRAME_ID,
    height: 1,
    width: count,
    fields: CLOUD_FIELDS.map((field) => ({ ...field })),
    bigEndian: false,
    pointStepBytes: CLOUD_POINT_STEP_BYTES,
    rowStepBytes: count * CLOUD_POINT_STEP_BYTES,
    isDense: true,
    // Float32Array's bytes are the platform's order; every platform Node runs on is little-endian.
    data: new Uint8Array(xyzi.buffer, xyzi.byteOffset, count * CLOUD_POINT_STEP_BYTES),
  };
}

function brightness(colour: Rgb): number {
  return 0.2126 * colour[0] + 0.7152 * colour[1] + 0.0722 * colour[2];
}
