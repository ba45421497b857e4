// Turns one ObservationFrame into one embedding. The skeleton's encoder computes fixed features by
// hand (a coarse colour grid, scan sector minima, proprioception); the perception issue replaces the
// inside with ONNX encoders and keeps this interface.
import type { ObservationFrame } from '../loop/synchroniser.ts';

export interface ModalityMask {
  camera: boolean;
  scan: boolean;
  proprio: boolean;
}

export interface Embedding {
  values: Float32Array;
  /** Which modalities were present; a missing one is zeros in `values`, never old data. */
  mask: ModalityMask;
}

export interface Perception {
  /** Part of every memory row: embeddings of different versions are never mixed. */
  readonly version: string;
  readonly embeddingSize: number;
  encode(frame: ObservationFrame, lastCommand: { linearMps: number; angularRadps: number }): Embedding;
}

export const CAMERA_GRID = { columns: 8, rows: 6 } as const;
export const SCAN_SECTORS = 16;

/** Where each modality's features sit in the embedding. */
export const FEATURE_LAYOUT = {
  camera: { offset: 0, size: CAMERA_GRID.columns * CAMERA_GRID.rows * 3 },
  scan: { offset: CAMERA_GRID.columns * CAMERA_GRID.rows * 3, size: SCAN_SECTORS },
  proprio: { offset: CAMERA_GRID.columns * CAMERA_GRID.rows * 3 + SCAN_SECTORS, size: 6 },
  mask: { offset: CAMERA_GRID.columns * CAMERA_GRID.rows * 3 + SCAN_SECTORS + 6, size: 3 },
} as const;

export class HandFeaturePerception implements Perception {
  readonly version = 'hand-features-1';
  readonly embeddingSize = FEATURE_LAYOUT.mask.offset + FEATURE_LAYOUT.mask.size;

  encode(frame: ObservationFrame, lastCommand: { linearMps: number; angularRadps: number }): Embedding {
    const values = new Float32Array(this.embeddingSize);
    const mask: ModalityMask = { camera: false, scan: false, proprio: false };

    const image = frame.camera?.received.msg;
    if (image && image.encoding !== 'mono8') {
      colourGrid(image.data, image.width, image.height, image.step, image.encoding === 'bgr8', values, FEATURE_LAYOUT.camera.offset);
      mask.camera = true;
    }

    const scan = frame.scan?.received.msg;
    if (scan) {
      const sectors = scanSectorMinima(scan.rangesM, scan.angleMinRad, scan.angleIncrementRad, scan.rangeMaxM);
      for (let i = 0; i < SCAN_SECTORS; i++) values[FEATURE_LAYOUT.scan.offset + i] = sectors[i]! / scan.rangeMaxM;
      mask.scan = true;
    }

    const joints = frame.joints?.received.msg;
    const imu = frame.imu?.received.msg;
    if (joints && imu) {
      const at = FEATURE_LAYOUT.proprio.offset;
      values[at] = joints.velocitiesRadps[0] ?? 0;
      values[at + 1] = joints.velocitiesRadps[1] ?? 0;
      values[at + 2] = imu.angularVelocityRadps.z;
      values[at + 3] = imu.linearAccelerationMps2.x;
      values[at + 4] = lastCommand.linearMps;
      values[at + 5] = lastCommand.angularRadps;
      mask.proprio = true;
    }

    values[FEATURE_LAYOUT.mask.offset] = mask.camera ? 1 : 0;
    values[FEATURE_LAYOUT.mask.offset + 1] = mask.scan ? 1 : 0;
    values[FEATURE_LAYOUT.mask.offset + 2] = mask.proprio ? 1 : 0;
    return { values, mask };
  }
}

/** Mean colour of each grid cell, scaled to 0..1, written row-major as r, g, b. */
function colourGrid(data: Uint8Array, width: number, height: number, step: number, bgr: boolean, out: Float32Array, offset: number): void {
  const { columns, rows } = CAMERA_GRID;
  const sums = new Float64Array(columns * rows * 3);
  const counts = new Uint32Array(columns * rows);
  for (let y = 0; y < height; y++) {
    const cellRow = Math.min(rows - 1, Math.floor((y * rows) / height));
    for (let x = 0; x < width; x++) {
      const cell = cellRow * columns + Math.min(columns - 1, Math.floor((x * columns) / width));
      const at = y * step + x * 3;
      sums[cell * 3]! += data[at] ?? 0;
      sums[cell * 3 + 1]! += data[at + 1] ?? 0;
      sums[cell * 3 + 2]! += data[at + 2] ?? 0;
      counts[cell]! += 1;
    }
  }
  for (let cell = 0; cell < columns * rows; cell++) {
    const n = Math.max(1, counts[cell]!) * 255;
    const [r, b] = bgr ? [2, 0] : [0, 2];
    out[offset + cell * 3] = sums[cell * 3 + r]! / n;
    out[offset + cell * 3 + 1] = sums[cell * 3 + 1]! / n;
    out[offset + cell * 3 + 2] = sums[cell * 3 + b]! / n;
  }
}

/**
 * Nearest valid range in each of SCAN_SECTORS equal sectors around the robot, sector 0 starting
 * straight behind (−π) and going counter-clockwise. Invalid (NaN) beams are skipped; a sector with
 * nothing in range reads rangeMax.
 */
export function scanSectorMinima(rangesM: Float32Array, angleMinRad: number, angleIncrementRad: number, rangeMaxM: number): Float32Array {
  const sectors = new Float32Array(SCAN_SECTORS).fill(rangeMaxM);
  const sectorRad = (2 * Math.PI) / SCAN_SECTORS;
  for (let i = 0; i < rangesM.length; i++) {
    const range = rangesM[i]!;
    if (Number.isNaN(range)) continue;
    const angle = angleMinRad + i * angleIncrementRad;
    const wrapped = ((((angle + Math.PI) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI));
    const sector = Math.min(SCAN_SECTORS - 1, Math.floor(wrapped / sectorRad));
    const clipped = Math.min(range, rangeMaxM);
    if (clipped < sectors[sector]!) sectors[sector] = clipped;
  }
  return sectors;
}
