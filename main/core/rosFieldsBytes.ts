// About how many bytes a message's ROS fields hold (numbers 8, strings their length, typed arrays
// their bytes), for a topic's bytes per second and a queue's byte bound; long plain arrays are
// sampled, so a map of millions of cells is sized without walking every one.

/** Plain arrays longer than this are sized from their first elements. */
const SAMPLED_ELEMENTS = 32;
/** Deeper than any real message: a cyclic or absurd value stops here. */
const MAX_DEPTH = 32;

export function rosFieldsBytes(value: unknown, depth = 0): number {
  if (typeof value === 'number' || typeof value === 'bigint') return 8;
  if (typeof value === 'string') return value.length;
  if (typeof value === 'boolean') return 1;
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return 0;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (Array.isArray(value)) {
    const sampled = Math.min(value.length, SAMPLED_ELEMENTS);
    let bytes = 0;
    for (let i = 0; i < sampled; i++) bytes += rosFieldsBytes(value[i], depth + 1);
    return sampled === 0 ? 0 : Math.round((bytes * value.length) / sampled);
  }
  let bytes = 0;
  for (const field of Object.values(value)) bytes += rosFieldsBytes(field, depth + 1);
  return bytes;
}
