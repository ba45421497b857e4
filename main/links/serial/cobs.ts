// Consistent Overhead Byte Stuffing: rewrites a frame so it contains no 0x00, which then marks the
// end of each frame on the wire. Overhead is one byte per started 254 bytes (PROTOCOL.md §1).

/** Encodes `data`; the result holds no 0x00 and does not include the trailing delimiter. */
export function cobsEncode(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(cobsEncodedLength(data.length));
  let codeIndex = 0;
  let code = 1;
  let write = 1;
  for (const byte of data) {
    if (byte === 0) {
      out[codeIndex] = code;
      codeIndex = write++;
      code = 1;
      continue;
    }
    out[write++] = byte;
    code++;
    if (code === 0xff) {
      out[codeIndex] = code;
      codeIndex = write++;
      code = 1;
    }
  }
  out[codeIndex] = code;
  return out.subarray(0, write);
}

/** The most bytes cobsEncode can produce for `length` input bytes. */
export function cobsEncodedLength(length: number): number {
  return length + Math.floor(length / 254) + 1;
}

export class CobsError extends Error {
  override readonly name = 'CobsError';
}

/** Decodes one COBS block (without its delimiter); throws CobsError on a malformed block. */
export function cobsDecode(encoded: Uint8Array): Uint8Array {
  const out = new Uint8Array(encoded.length);
  let read = 0;
  let write = 0;
  while (read < encoded.length) {
    const code = encoded[read]!;
    if (code === 0) throw new CobsError(`a 0x00 inside a COBS block, at byte ${read}`);
    const end = read + code;
    if (end > encoded.length) {
      throw new CobsError(`COBS block ends early: code ${code} at byte ${read} needs ${code - 1} more bytes, ${encoded.length - read - 1} left`);
    }
    for (let i = read + 1; i < end; i++) {
      const byte = encoded[i]!;
      if (byte === 0) throw new CobsError(`a 0x00 inside a COBS block, at byte ${i}`);
      out[write++] = byte;
    }
    read = end;
    // A code below 0xFF stands for "these bytes, then a zero", except at the very end of the block.
    if (code !== 0xff && read < encoded.length) out[write++] = 0;
  }
  return out.subarray(0, write);
}
