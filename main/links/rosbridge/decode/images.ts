// sensor_msgs/Image → Image. Colour and grey 8-bit encodings are accepted; alpha is dropped so the
// cockpit sees one of rgb8, bgr8 or mono8. Anything else (depth, Bayer, YUV) is refused with a hint.
import type { Image, ImageEncoding } from '../../../core/messages.ts';
import { DecodeProblem, decodeWith, readHeader, type Decoded } from './decoded.ts';

/** Larger than any camera a cockpit should stream (8K is 33 MP); guards against absurd sizes. */
export const MAX_IMAGE_PIXELS = 40_000_000;

interface EncodingLayout {
  encoding: ImageEncoding;
  bytesPerPixel: number;
}

const LAYOUTS: Readonly<Record<string, EncodingLayout>> = {
  rgb8: { encoding: 'rgb8', bytesPerPixel: 3 },
  bgr8: { encoding: 'bgr8', bytesPerPixel: 3 },
  mono8: { encoding: 'mono8', bytesPerPixel: 1 },
  '8uc1': { encoding: 'mono8', bytesPerPixel: 1 },
  // OpenCV's default channel order: a bare 8UC3 image is BGR.
  '8uc3': { encoding: 'bgr8', bytesPerPixel: 3 },
  rgba8: { encoding: 'rgb8', bytesPerPixel: 4 },
  bgra8: { encoding: 'bgr8', bytesPerPixel: 4 },
  '8uc4': { encoding: 'bgr8', bytesPerPixel: 4 },
};

const IMAGE_HINT = 'Check the camera driver: it should publish sensor_msgs/Image with data of step × height bytes.';

export function decodeImage(wire: unknown): Decoded<Image> {
  return decodeWith(wire, 'sensor_msgs/Image', IMAGE_HINT, (message) => {
    const header = readHeader(message);
    const width = message.count('width');
    const height = message.count('height');
    const step = message.count('step');
    const sent = message.string('encoding');
    const layout = LAYOUTS[sent.toLowerCase()];
    if (layout === undefined) {
      throw new DecodeProblem(
        `encoding "${sent}" is not supported (rgb8, bgr8, mono8, rgba8, bgra8 are)`,
        'Point the camera role at a colour or grey 8-bit topic (or its /compressed topic); depth, Bayer and YUV streams are not camera images for the cockpit.',
      );
    }
    checkImageSize(width, height);
    if (step < width * layout.bytesPerPixel) {
      throw new DecodeProblem(`step ${step} is less than width × bytes per pixel (${width} × ${layout.bytesPerPixel})`);
    }
    const data = message.bytes('data');
    if (data.length < step * height) {
      throw new DecodeProblem(
        `data has ${data.length} bytes; step × height is ${step * height}`,
        "The image was truncated on its way (publisher or bridge); check the driver and the bridge's maximum message size.",
      );
    }
    return { msg: toImage(header.frameId, width, height, step, layout, data), stampMs: header.stampMs };
  });
}

export function checkImageSize(width: number, height: number): void {
  if (width === 0 || height === 0) throw new DecodeProblem(`empty image (${width} × ${height})`);
  if (width * height > MAX_IMAGE_PIXELS) throw new DecodeProblem(`image of ${width} × ${height} pixels is larger than ${MAX_IMAGE_PIXELS}`);
}

function toImage(frameId: string, width: number, height: number, step: number, layout: EncodingLayout, data: Uint8Array): Image {
  const channels = layout.encoding === 'mono8' ? 1 : 3;
  if (layout.bytesPerPixel === channels) {
    return { kind: 'Image', frameId, width, height, encoding: layout.encoding, step, data: data.subarray(0, step * height) };
  }
  // Drop the alpha channel: the cockpit's pipeline knows three-channel and grey images only.
  const packed = new Uint8Array(width * height * channels);
  for (let row = 0; row < height; row++) {
    for (let column = 0; column < width; column++) {
      const from = row * step + column * layout.bytesPerPixel;
      const to = (row * width + column) * channels;
      for (let channel = 0; channel < channels; channel++) packed[to + channel] = data[from + channel]!;
    }
  }
  return { kind: 'Image', frameId, width, height, encoding: layout.encoding, step: width * channels, data: packed };
}
