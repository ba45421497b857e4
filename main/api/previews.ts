// Camera and scan previews for the UI as binary frames: converted once per new message, shared by
// every connected client, and downscaled so a large camera never floods the socket.
import type { Image, LaserScan, Received } from '../links/messages.ts';
import { encodeCameraFrame, encodeScanFrame } from './contract.ts';

export const MAX_PREVIEW_WIDTH_PX = 320;

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
