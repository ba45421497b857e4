// sensor_msgs/CompressedImage → CompressedImage, and its JPEG or PNG payload → Image (jpeg-js,
// fast-png). Format strings come as "jpeg", "png", or image_transport's "rgb8; jpeg compressed bgr8"
// (original encoding; codec; the encoding the codec was fed). OpenCV wrote the file from BGR data,
// so a standard decoder already returns true RGB: only the codec part of the string matters, and
// the payload's own magic bytes are trusted over the string.
import jpeg from 'jpeg-js';
import { convertIndexedToRgb, decode as decodePng } from 'fast-png';
import type { CompressedImage, Image } from '../../../core/messages.ts';
import { DecodeProblem, decodeWith, readHeader, type Decoded } from './decoded.ts';
import { MAX_IMAGE_PIXELS, checkImageSize } from './images.ts';

const COMPRESSED_HINT = 'Check the image_transport publisher: it should send JPEG or PNG data with a format such as "jpeg" or "rgb8; jpeg compressed bgr8".';

export function decodeCompressedImage(wire: unknown): Decoded<CompressedImage> {
  return decodeWith(wire, 'sensor_msgs/CompressedImage', COMPRESSED_HINT, (message) => {
    const header = readHeader(message);
    const format = message.string('format');
    const data = message.bytes('data');
    if (data.length === 0) throw new DecodeProblem('data is empty');
    return { msg: { kind: 'CompressedImage', frameId: header.frameId, format, data }, stampMs: header.stampMs };
  });
}

/** A CompressedImage topic delivered as a decoded Image, for consumers (the camera role) that want pixels. */
export function decodeCompressedImageAsImage(wire: unknown): Decoded<Image> {
  const compressed = decodeCompressedImage(wire);
  if (!compressed.ok) return compressed;
  return decodeWith(compressed.msg, 'sensor_msgs/CompressedImage', COMPRESSED_HINT, () => ({
    msg: decompressImage(compressed.msg),
    stampMs: compressed.stampMs,
  }));
}

export type ImageCodec = 'jpeg' | 'png';

export function sniffCodec(data: Uint8Array): ImageCodec | undefined {
  if (data[0] === 0xff && data[1] === 0xd8) return 'jpeg';
  if (data[0] === 0x89 && data[1] === 0x50 && data[2] === 0x4e && data[3] === 0x47) return 'png';
  return undefined;
}

/** Decodes the JPEG or PNG payload; throws DecodeProblem when it is neither or is damaged. */
export function decompressImage(image: CompressedImage): Image {
  const codec = sniffCodec(image.data);
  if (codec === undefined) {
    throw new DecodeProblem(
      `format "${image.format}": data is neither JPEG nor PNG`,
      'Only jpeg and png image_transport formats are supported (not compressedDepth or theora); subscribe to the raw image instead.',
    );
  }
  return codec === 'jpeg' ? decodeJpegImage(image) : decodePngImage(image);
}

function decodeJpegImage(image: CompressedImage): Image {
  let decoded: { width: number; height: number; data: Uint8Array };
  try {
    decoded = jpeg.decode(image.data, { useTArray: true, formatAsRGBA: false, maxResolutionInMP: MAX_IMAGE_PIXELS / 1e6, maxMemoryUsageInMB: 512 });
  } catch (error) {
    throw new DecodeProblem(`damaged JPEG: ${error instanceof Error ? error.message : String(error)}`);
  }
  checkImageSize(decoded.width, decoded.height);
  // jpeg-js expands grey JPEGs to RGB as well, so the result is always three channels.
  return { kind: 'Image', frameId: image.frameId, width: decoded.width, height: decoded.height, encoding: 'rgb8', step: decoded.width * 3, data: decoded.data };
}

function decodePngImage(image: CompressedImage): Image {
  checkPngHeaderSize(image.data);
  let decoded: ReturnType<typeof decodePng>;
  let pixels: Uint8Array | Uint8ClampedArray | Uint16Array;
  try {
    decoded = decodePng(image.data);
    pixels = decoded.palette ? convertIndexedToRgb(decoded) : decoded.data;
  } catch (error) {
    throw new DecodeProblem(`damaged PNG: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { width, height } = decoded;
  checkImageSize(width, height);
  const channels = decoded.palette ? (decoded.palette[0]?.length ?? 3) : decoded.channels;
  if (!decoded.palette && decoded.depth !== 8 && decoded.depth !== 16) {
    throw new DecodeProblem(`PNG with ${decoded.depth}-bit samples is not supported (8 and 16 are)`);
  }
  if (pixels.length < width * height * channels) throw new DecodeProblem('PNG pixel data is shorter than its size');
  const grey = channels <= 2;
  const outChannels = grey ? 1 : 3;
  // 16-bit samples keep their high byte; an alpha channel is dropped.
  const shift = pixels instanceof Uint16Array ? 8 : 0;
  const data = new Uint8Array(width * height * outChannels);
  for (let pixel = 0; pixel < width * height; pixel++) {
    for (let channel = 0; channel < outChannels; channel++) {
      data[pixel * outChannels + channel] = pixels[pixel * channels + channel]! >> shift;
    }
  }
  return { kind: 'Image', frameId: image.frameId, width, height, encoding: grey ? 'mono8' : 'rgb8', step: width * outChannels, data };
}

/** Refuses a PNG whose header declares an absurd size before the decoder allocates for it. */
function checkPngHeaderSize(data: Uint8Array): void {
  if (data.length < 24) throw new DecodeProblem('damaged PNG: shorter than its header');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  checkImageSize(view.getUint32(16), view.getUint32(20));
}
