// Arrow columns built straight into typed arrays. Apache Arrow's generic builders (vectorFromArray)
// cost ~20 µs a row for a tick's columns, more than writing the row to disk; these cost well under
// one. Each returns one Data chunk with an explicit validity bitmap where values may be missing.
import type { Data, Float32, Int64, List, Utf8 } from 'apache-arrow';
import { arrow } from './arrow.ts';

/** Validity bitmap (bit set = present) and the count of missing entries. */
function validity(count: number, present: (index: number) => boolean): { nullBitmap: Uint8Array; nullCount: number } {
  const nullBitmap = new Uint8Array(Math.ceil(count / 8));
  let nullCount = 0;
  for (let i = 0; i < count; i++) {
    if (present(i)) nullBitmap[i >> 3]! |= 1 << (i & 7);
    else nullCount++;
  }
  return { nullBitmap, nullCount };
}

const encoder = new TextEncoder();

/** Strings (undefined = null). Encodes each distinct string once: versions and ids repeat a lot. */
export function utf8Column(values: readonly (string | undefined)[]): Data<Utf8> {
  const encoded = new Map<string, Uint8Array>();
  const bytesOf = (text: string) => {
    let bytes = encoded.get(text);
    if (bytes === undefined) {
      bytes = encoder.encode(text);
      encoded.set(text, bytes);
    }
    return bytes;
  };
  const valueOffsets = new Int32Array(values.length + 1);
  let total = 0;
  values.forEach((value, i) => {
    total += value === undefined ? 0 : bytesOf(value).length;
    valueOffsets[i + 1] = total;
  });
  const data = new Uint8Array(total);
  values.forEach((value, i) => {
    if (value !== undefined) data.set(bytesOf(value), valueOffsets[i]!);
  });
  return arrow.makeData({ type: new arrow.Utf8(), length: values.length, valueOffsets, data, ...validity(values.length, (i) => values[i] !== undefined) });
}

export function float32Column(values: readonly (number | undefined)[]): Data<Float32> {
  const data = Float32Array.from(values, (value) => value ?? 0);
  return arrow.makeData({ type: new arrow.Float32(), length: values.length, data, ...validity(values.length, (i) => values[i] !== undefined) });
}

export function int64Column(values: readonly (bigint | undefined)[]): Data<Int64> {
  const data = BigInt64Array.from(values, (value) => value ?? 0n);
  return arrow.makeData({ type: new arrow.Int64(), length: values.length, data, ...validity(values.length, (i) => values[i] !== undefined) });
}

/** Variable-length float lists (undefined = null), e.g. a latent state whose size may change. */
export function float32ListColumn(type: List<Float32>, values: readonly (Float32Array | undefined)[]): Data<List<Float32>> {
  const valueOffsets = new Int32Array(values.length + 1);
  let total = 0;
  values.forEach((value, i) => {
    total += value?.length ?? 0;
    valueOffsets[i + 1] = total;
  });
  const flat = new Float32Array(total);
  values.forEach((value, i) => {
    if (value !== undefined) flat.set(value, valueOffsets[i]!);
  });
  const child = arrow.makeData({ type: new arrow.Float32(), length: total, data: flat });
  return arrow.makeData({ type, length: values.length, valueOffsets, child, ...validity(values.length, (i) => values[i] !== undefined) });
}
