// Camera, scan and point-cloud previews for the UI as binary frames: converted once per new message,
// shared by every connected client, and downscaled so a large camera or cloud never floods the socket.
import type { Image, LaserScan, PointCloud2, PointField, Received } from '../core/messages.ts';
import { MAX_PREVIEW_POINTS, encodeCameraFrame, encodePointCloudFrame, encodeScanFrame } from '../core/contract.ts';

export const MAX_PREVIEW_WIDTH_PX = 320;
/** Clouds closer together than this are skipped: a 3D view redrawn faster shows nothing more. */
export const MIN_POINT_CLOUD_PERIOD_MS = 1000 / 15;

export interface Preview {
  /** Changes whenever the frame does; clients send only frames they have not sent. */
  sequence: number;
  bytes: Uint8Array;
}

export class PreviewCache {
  private cameraSource: Received<Image> | undefined;
  private scanSource: Received<LaserScan> | undefined;
  private camera: Preview | undefined;
  private scan: Preview | undefined;
  private cloudSource: Received<PointCloud2> | undefined;
  private cloud: Preview | undefined;
  private cloudEncodedAtMs = -Infinity;
  private sequence = 0;

  cameraPreview(latest: Received<Image> | undefined): Preview | undefined {
    if (latest && latest !== this.cameraSource) {
      this.cameraSource = latest;
      this.camera = { sequence: ++this.sequence, bytes: cameraPreviewBytes(latest.msg, latest.sourceTimeMs) };
    }
    return this.camera;
  }

  scanPreview(latest: Received<LaserScan> | undefined): Preview | undefined {
    if (latest && latest !== this.scanSource) {
      this.scanSource = latest;
      const scan = latest.msg;
      this.scan = { sequence: ++this.sequence, bytes: encodeScanFrame(scan.angleMinRad, scan.angleIncrementRad, scan.rangeMaxM, scan.rangesM) };
    }
    return this.scan;
  }

  /** The newest cloud thinned to MAX_PREVIEW_POINTS, at most one per MIN_POINT_CLOUD_PERIOD_MS (by `nowMs`). */
  pointCloudPreview(latest: Received<PointCloud2> | undefined, nowMs: number): Preview | undefined {
    if (latest && latest !== this.cloudSource && nowMs - this.cloudEncodedAtMs >= MIN_POINT_CLOUD_PERIOD_MS) {
      this.cloudSource = latest;
      this.cloudEncodedAtMs = nowMs;
      this.cloud = { sequence: ++this.sequence, bytes: encodePointCloudFrame(latest.sourceTimeMs, previewPointsXyz(latest.msg, MAX_PREVIEW_POINTS)) };
    }
    return this.cloud;
  }
}

const FIELD_READERS: Readonly<Record<PointField['datatype'], (view: DataView, at: number, littleEndian: boolean) => number>> = {
  int8: (view, at) => view.getInt8(at),
  uint8: (view, at) => view.getUint8(at),
  int16: (view, at, little) => view.getInt16(at, little),
  uint16: (view, at, little) => view.getUint16(at, little),
  int32: (view, at, little) => view.getInt32(at, little),
  uint32: (view, at, little) => view.getUint32(at, little),
  float32: (view, at, little) => view.getFloat32(at, little),
  float64: (view, at, little) => view.getFloat64(at, little),
};

/**
 * x, y, z of a cloud's points (3 numbers each): its points with finite coordinates (a sensor's "no
 * return" is left out), evenly spaced over the cloud so that exactly `maxPoints` remain when it has
 * more. Empty without x, y, z fields.
 */
export function previewPointsXyz(cloud: PointCloud2, maxPoints: number): Float32Array {
  const field = (name: string) => cloud.fields.find((candidate) => candidate.name === name);
  const [x, y, z] = [field('x'), field('y'), field('z')];
  const total = cloud.width * cloud.height;
  if (!x || !y || !z || total === 0) return new Float32Array(0);
  const view = new DataView(cloud.data.buffer, cloud.data.byteOffset, cloud.data.byteLength);
  const little = !cloud.bigEndian;
  const [readX, readY, readZ] = [FIELD_READERS[x.datatype], FIELD_READERS[y.datatype], FIELD_READERS[z.datatype]];
  // One pass reads every point and keeps the finite ones; a second picks evenly among them.
  const all = new Float32Array(total * 3);
  let finite = 0;
  for (let index = 0; index < total; index++) {
    const at = Math.floor(index / cloud.width) * cloud.rowStepBytes + (index % cloud.width) * cloud.pointStepBytes;
    const px = readX(view, at + x.offsetBytes, little);
    const py = readY(view, at + y.offsetBytes, little);
    const pz = readZ(view, at + z.offsetBytes, little);
    if (!Number.isFinite(px) || !Number.isFinite(py) || !Number.isFinite(pz)) continue;
    all[finite * 3] = px;
    all[finite * 3 + 1] = py;
    all[finite * 3 + 2] = pz;
    finite++;
  }
  if (finite <= maxPoints) return all.subarray(0, finite * 3);
  const out = new Float32Array(maxPoints * 3);
  for (let kept = 0; kept < maxPoints; kept++) {
    const from = Math.floor((kept * finite) / maxPoints) * 3;
    out[kept * 3] = all[from]!;
    out[kept * 3 + 1] = all[from + 1]!;
    out[kept * 3 + 2] = all[from + 2]!;
  }
  return out;
}

/**
 * RGB bytes of the image, downscaled by an integer factor to at most MAX_PREVIEW_WIDTH_PX wide, with
 * the image's source stamp so the UI (and `reins bench ui`) can tell a new frame from a repeat.
 */
export function cameraPreviewBytes(image: Image, stampMs: number): Uint8Array {
  const factor = Math.max(1, Math.ceil(image.width / MAX_PREVIEW_WIDTH_PX));
  const width = Math.floor(image.width / factor);
  const height = Math.floor(image.height / factor);
  const rgb = new Uint8Array(width * height * 3);
  const channels = image.encoding === 'mono8' ? 1 : 3;
  const [r, g, b] = image.encoding === 'bgr8' ? [2, 1, 0] : image.encoding === 'mono8' ? [0, 0, 0] : [0, 1, 2];
  for (let y = 0; y < height; y++) {
    const row = y * factor * image.step;
    for (let x = 0; x < width; x++) {
      const from = row + x * factor * channels;
      const to = (y * width + x) * 3;
      rgb[to] = image.data[from + r] ?? 0;
      rgb[to + 1] = image.data[from + g] ?? 0;
      rgb[to + 2] = image.data[from + b] ?? 0;
    }
  }
  return encodeCameraFrame(width, height, stampMs, rgb);
}
