// Little-endian readers and writers for frame payloads. A reader that runs off the end throws a
// PayloadError naming the field, so a short or corrupt payload becomes one clear message.

export class PayloadError extends Error {
  override readonly name = 'PayloadError';
}

const textDecoder = new TextDecoder('utf-8', { fatal: false });
const textEncoder = new TextEncoder();

export class ByteReader {
  private readonly view: DataView;
  private offset = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  remaining(): number {
    return this.bytes.length - this.offset;
  }

  u8(field: string): number {
    return this.view.getUint8(this.take(1, field));
  }

  u16(field: string): number {
    return this.view.getUint16(this.take(2, field), true);
  }

  i16(field: string): number {
    return this.view.getInt16(this.take(2, field), true);
  }

  u32(field: string): number {
    return this.view.getUint32(this.take(4, field), true);
  }

  i32(field: string): number {
    return this.view.getInt32(this.take(4, field), true);
  }

  f32(field: string): number {
    return this.view.getFloat32(this.take(4, field), true);
  }

  bytesOf(length: number, field: string): Uint8Array {
    const start = this.take(length, field);
    return this.bytes.subarray(start, start + length);
  }

  text(length: number, field: string): string {
    return textDecoder.decode(this.bytesOf(length, field));
  }

  restText(): string {
    return this.text(this.remaining(), 'text');
  }

  private take(length: number, field: string): number {
    if (this.offset + length > this.bytes.length) {
      throw new PayloadError(`payload ends before ${field} (needs ${length} bytes at offset ${this.offset}, has ${this.remaining()})`);
    }
    const start = this.offset;
    this.offset += length;
    return start;
  }
}

export class ByteWriter {
  private buffer: Uint8Array;
  private view: DataView;
  private length = 0;

  constructor(initialBytes = 64) {
    this.buffer = new Uint8Array(initialBytes);
    this.view = new DataView(this.buffer.buffer);
  }

  u8(value: number): this {
    const offset = this.grow(1);
    this.view.setUint8(offset, value);
    return this;
  }

  u16(value: number): this {
    const offset = this.grow(2);
    this.view.setUint16(offset, value, true);
    return this;
  }

  i16(value: number): this {
    const offset = this.grow(2);
    this.view.setInt16(offset, value, true);
    return this;
  }

  u32(value: number): this {
    const offset = this.grow(4);
    this.view.setUint32(offset, value, true);
    return this;
  }

  i32(value: number): this {
    const offset = this.grow(4);
    this.view.setInt32(offset, value, true);
    return this;
  }

  f32(value: number): this {
    const offset = this.grow(4);
    this.view.setFloat32(offset, value, true);
    return this;
  }

  bytes(values: Uint8Array): this {
    const offset = this.grow(values.length);
    this.buffer.set(values, offset);
    return this;
  }

  /** Appends UTF-8 text cut to at most `maxBytes` (never mid-character); returns the bytes written. */
  text(value: string, maxBytes: number): number {
    const encoded = utf8Truncated(value, maxBytes);
    this.bytes(encoded);
    return encoded.length;
  }

  finish(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }

  private grow(bytes: number): number {
    if (this.length + bytes > this.buffer.length) {
      const bigger = new Uint8Array(Math.max(this.buffer.length * 2, this.length + bytes));
      bigger.set(this.buffer);
      this.buffer = bigger;
      this.view = new DataView(bigger.buffer);
    }
    const start = this.length;
    this.length += bytes;
    return start;
  }
}

export function utf8Truncated(value: string, maxBytes: number): Uint8Array {
  const encoded = textEncoder.encode(value);
  if (encoded.length <= maxBytes) return encoded;
  // Never cut a character: while the first byte left out is a continuation byte (10xxxxxx), the
  // character straddles the limit, so step back to its lead byte.
  let end = maxBytes;
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end);
}
