// How rosbridge_server puts an outgoing op on the wire, per subscription `compression`:
// - none: a JSON text frame; uint8[] as base64, other arrays as JSON arrays, inf and NaN as null;
// - cbor: a binary CBOR frame; uint8[] as a byte string, float32[]/float64[] as RFC 8746 typed-array
//   tags 85/86 (little-endian), inf and NaN kept;
// - png: the JSON text packed into the pixels of an RGB PNG, sent as {"op":"png","data":base64};
// - cbor-raw (ROS 2 persona): a binary CBOR frame whose `msg` is {secs, nsecs, bytes}, the bridge's
//   receive time and the message's CDR (built by outgoingMessage.ts; encoded here as plain CBOR).
// Checked against frames captured from a real server: test/fixtures/rosbridge-ros1/ (wireEncoding.test.ts).
import { Encoder } from 'cbor-x';
import { encode as encodePngImage } from 'fast-png';

export type Compression = 'none' | 'cbor' | 'png' | 'cbor-raw';
export const COMPRESSIONS: readonly Compression[] = ['none', 'cbor', 'png', 'cbor-raw'];

/** A WebSocket frame: text, or binary. */
export type WireFrame = string | Uint8Array;

// Plain definite-length maps (like Python's cbor2), byte strings without tag 64, no record extension.
const cbor = new Encoder({ useRecords: false, tagUint8Array: false, variableMapSize: true });

export function encodeJson(op: object): string {
  return JSON.stringify(jsonValue(op));
}

export function encodeCbor(op: object): Uint8Array {
  return cbor.encode(op);
}

/**
 * rosbridge's png_compression.encode: the UTF-8 text, padded with '\n' to fill a width × height × 3
 * image where width = ⌊√(n/3)⌋ and height = ⌈(n/3)/width⌉, compressed as PNG and sent as base64.
 */
export function encodePng(op: object): string {
  const text = Buffer.from(encodeJson(op), 'utf8');
  const width = Math.max(1, Math.floor(Math.sqrt(text.length / 3)));
  const height = Math.max(1, Math.ceil(text.length / 3 / width));
  const pixels = Buffer.alloc(width * height * 3, '\n');
  text.copy(pixels);
  const png = encodePngImage({ width, height, data: pixels, channels: 3, depth: 8 });
  return JSON.stringify({ op: 'png', data: Buffer.from(png.buffer, png.byteOffset, png.byteLength).toString('base64') });
}

export function encodeOp(op: object, compression: Compression): WireFrame {
  switch (compression) {
    case 'none':
      return encodeJson(op);
    case 'cbor':
    case 'cbor-raw':
      return encodeCbor(op);
    case 'png':
      return encodePng(op);
  }
}

export function frameBytes(frame: WireFrame): number {
  return typeof frame === 'string' ? Buffer.byteLength(frame, 'utf8') : frame.byteLength;
}

/** The JSON form of a value: typed arrays become base64 (uint8) or plain arrays (floats). */
function jsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
  if (Array.isArray(value)) return value.map(jsonValue);
  if (typeof value === 'object' && value !== null) {
    const converted: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) converted[key] = jsonValue(field);
    return converted;
  }
  return value;
}
