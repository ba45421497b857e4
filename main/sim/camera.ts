// The forward camera: a pinhole looking level from just ahead of the robot's centre, rendered by
// casting one ray per column (Wolfenstein-style). Every solid is an upright prism standing on the
// floor, so a column is the sky and floor with vertical spans painted over them by depth.
import type { Image } from '../core/messages.ts';
import type { Arena, Rgb, Solids } from './arena.ts';
import { rayEntersAabb, rayEntersCircle, type Pose2D } from './geometry.ts';
import type { SeededRandom } from './random.ts';

export interface CameraOptions {
  widthPx: number;
  heightPx: number;
  rateHz: number;
  horizontalFovRad: number;
}

export const DEFAULT_CAMERA_OPTIONS: Readonly<CameraOptions> = Object.freeze({
  widthPx: 160,
  heightPx: 120,
  rateHz: 15,
  horizontalFovRad: (70 * Math.PI) / 180,
});

/** The frame images are stamped in: the camera's body frame (x forward, z up), at its optical centre. */
export const CAMERA_FRAME_ID = 'camera_link';
/** Where the camera sits: its optical centre above the floor, and ahead of the robot's centre. */
export const CAMERA_HEIGHT_M = 0.25;
export const CAMERA_FORWARD_OFFSET_M = 0.1;
const SKY_ZENITH: Rgb = [80, 110, 160];
const SKY_HORIZON: Rgb = [165, 185, 210];
/** Faces seen along y are drawn darker than faces seen along x, so box corners read as corners. */
const Y_FACE_SHADE = 0.75;
/** Pixel noise spans ±3.5 levels per channel, like a cheap sensor in good light. */
const NOISE_OFFSET = 3.5;

/** A solid's face seen in one column: which rows it covers and its shaded colour. */
interface ColumnSpan {
  depthM: number;
  firstRow: number;
  lastRow: number;
  red: number;
  green: number;
  blue: number;
}

export class CameraRenderer {
  private readonly focalPx: number;
  private readonly horizonPx: number;
  /** Per column: the sideways offset of its ray per metre of depth (left positive). */
  private readonly lateralPerDepth: Float64Array;
  /** Per row: the depth of the floor seen in it and that depth's shade; NaN above the horizon. */
  private readonly floorDepthM: Float64Array;
  private readonly floorShade: Float64Array;
  /** Per row: the sky's colour, three channels. */
  private readonly sky: Float64Array;
  /** Scratch for one column: the index of the nearest span covering each row, −1 for none. */
  private readonly spanOfRow: Int32Array;
  /** Scratch for one frame: its pixel noise, in the order the pixels draw it (column by column). */
  private readonly noise: Uint32Array;

  constructor(
    readonly options: CameraOptions,
    private readonly arena: Arena,
    private readonly solids: Solids,
  ) {
    const { widthPx, heightPx, horizontalFovRad } = options;
    if (!Number.isInteger(widthPx) || !Number.isInteger(heightPx) || widthPx < 1 || heightPx < 1) {
      throw new RangeError(`camera size must be whole pixels ≥ 1, got ${widthPx}×${heightPx}`);
    }
    if (!(horizontalFovRad > 0 && horizontalFovRad < Math.PI)) {
      throw new RangeError(`camera field of view must be between 0 and π rad, got ${horizontalFovRad}`);
    }
    this.focalPx = widthPx / 2 / Math.tan(horizontalFovRad / 2);
    this.horizonPx = heightPx / 2;
    this.lateralPerDepth = Float64Array.from({ length: widthPx }, (_, indexPx) => -(indexPx + 0.5 - widthPx / 2) / this.focalPx);
    this.floorDepthM = new Float64Array(heightPx);
    this.floorShade = new Float64Array(heightPx);
    this.sky = new Float64Array(heightPx * 3);
    this.spanOfRow = new Int32Array(heightPx);
    this.noise = new Uint32Array(widthPx * heightPx);
    for (let row = 0; row < heightPx; row++) {
      const belowHorizonPx = row + 0.5 - this.horizonPx;
      const depthM = belowHorizonPx > 0 ? (this.focalPx * CAMERA_HEIGHT_M) / belowHorizonPx : NaN;
      this.floorDepthM[row] = depthM;
      this.floorShade[row] = distanceShade(depthM);
      this.sky.set(mix(SKY_ZENITH, SKY_HORIZON, Math.min(1, row / this.horizonPx)), row * 3);
    }
  }

  /**
   * Renders what the camera sees from this robot pose; `random` supplies the pixel noise, one draw
   * per pixel, column by column and top to bottom within a column.
   */
  render(pose: Pose2D, random: SeededRandom): Image {
    const { widthPx, heightPx } = this.options;
    const pixels = new Uint8ClampedArray(widthPx * heightPx * 3);
    const cosYaw = Math.cos(pose.yawRad);
    const sinYaw = Math.sin(pose.yawRad);
    const cameraXM = pose.xM + CAMERA_FORWARD_OFFSET_M * cosYaw;
    const cameraYM = pose.yM + CAMERA_FORWARD_OFFSET_M * sinYaw;
    const [tileA, tileB] = this.arena.floorColours;
    const tileM = this.arena.floorTileM;
    const { floorDepthM, floorShade, sky, spanOfRow, noise } = this;
    random.fillUint32(noise);
    const rowStride = widthPx * 3;

    for (let column = 0; column < widthPx; column++) {
      const lateralPerDepth = this.lateralPerDepth[column]!;
      // Forward component 1: a hit's ray parameter is its depth, so walls do not bow (no fisheye).
      const rayX = cosYaw - lateralPerDepth * sinYaw;
      const rayY = sinYaw + lateralPerDepth * cosYaw;
      const spans = this.spansAlong(cameraXM, cameraYM, rayX, rayY);
      // Farthest first, so a nearer face covering the same row paints over it.
      spanOfRow.fill(-1);
      for (let index = spans.length - 1; index >= 0; index--) {
        const span = spans[index]!;
        const last = Math.min(heightPx - 1, span.lastRow);
        for (let row = Math.max(0, span.firstRow); row <= last; row++) spanOfRow[row] = index;
      }
      let offset = column * 3;
      for (let row = 0; row < heightPx; row++, offset += rowStride) {
        let red: number;
        let green: number;
        let blue: number;
        const spanIndex = spanOfRow[row]!;
        const depthM = floorDepthM[row]!;
        if (spanIndex >= 0) {
          const span = spans[spanIndex]!;
          red = span.red;
          green = span.green;
          blue = span.blue;
        } else if (depthM === depthM) {
          const floorXM = cameraXM + depthM * rayX;
          const floorYM = cameraYM + depthM * rayY;
          const tile = (Math.floor(floorXM / tileM) + Math.floor(floorYM / tileM)) & 1 ? tileA : tileB;
          const shade = floorShade[row]!;
          red = tile[0] * shade;
          green = tile[1] * shade;
          blue = tile[2] * shade;
        } else {
          red = sky[row * 3]!;
          green = sky[row * 3 + 1]!;
          blue = sky[row * 3 + 2]!;
        }
        const draw = noise[column * heightPx + row]!;
        pixels[offset] = red + (draw & 7) - NOISE_OFFSET;
        pixels[offset + 1] = green + ((draw >>> 3) & 7) - NOISE_OFFSET;
        pixels[offset + 2] = blue + ((draw >>> 6) & 7) - NOISE_OFFSET;
      }
    }
    return {
      kind: 'Image',
      frameId: CAMERA_FRAME_ID,
      width: widthPx,
      height: heightPx,
      encoding: 'rgb8',
      step: widthPx * 3,
      data: new Uint8Array(pixels.buffer),
    };
  }

  /** The faces this column's ray enters, nearest first. */
  private spansAlong(originXM: number, originYM: number, rayX: number, rayY: number): ColumnSpan[] {
    const spans: ColumnSpan[] = [];
    for (const box of this.solids.boxes) {
      const depthM = rayEntersAabb(originXM, originYM, rayX, rayY, box);
      if (depthM === Infinity) continue;
      const hitXM = originXM + depthM * rayX;
      const onXFace = Math.abs(hitXM - box.minXM) < 1e-6 || Math.abs(hitXM - box.maxXM) < 1e-6;
      this.addSpan(spans, depthM, box.heightM, box.colour, onXFace ? 1 : Y_FACE_SHADE);
    }
    for (const pillar of this.solids.pillars) {
      const depthM = rayEntersCircle(originXM, originYM, rayX, rayY, pillar);
      if (depthM === Infinity) continue;
      // Lambert-like: the pillar's rim, seen edge-on, is darker than its face, so it looks round.
      const normalX = (originXM + depthM * rayX - pillar.xM) / pillar.radiusM;
      const normalY = (originYM + depthM * rayY - pillar.yM) / pillar.radiusM;
      const facing = -(normalX * rayX + normalY * rayY) / Math.hypot(rayX, rayY);
      this.addSpan(spans, depthM, pillar.heightM, pillar.colour, 0.55 + 0.45 * Math.max(0, facing));
    }
    return spans.sort((a, b) => a.depthM - b.depthM);
  }

  private addSpan(spans: ColumnSpan[], depthM: number, heightM: number, colour: Rgb, faceShade: number): void {
    const firstRow = Math.ceil(this.horizonPx - (this.focalPx * (heightM - CAMERA_HEIGHT_M)) / depthM - 0.5);
    const lastRow = Math.floor(this.horizonPx + (this.focalPx * CAMERA_HEIGHT_M) / depthM - 0.5);
    const shade = faceShade * distanceShade(depthM);
    spans.push({ depthM, firstRow, lastRow, red: colour[0] * shade, green: colour[1] * shade, blue: colour[2] * shade });
  }
}

/** Farther things are darker, which is most of what makes a raycast image read as depth. */
function distanceShade(depthM: number): number {
  return 1 / (1 + 0.12 * depthM);
}

function mix(from: Rgb, to: Rgb, amount: number): Rgb {
  return [from[0] + (to[0] - from[0]) * amount, from[1] + (to[1] - from[1]) * amount, from[2] + (to[2] - from[2]) * amount];
}
