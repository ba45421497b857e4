// Reads one field at a time from a message as rosbridge delivered it, in either of its two shapes:
// JSON (uint8[] as a base64 string, numeric arrays as plain arrays, `null` where the robot sent inf
// or nan) and CBOR (byte strings as Uint8Array, numeric arrays as typed arrays). Every reader names
// the field it failed on, so a bad message is dropped with a reason the operator can act on.

/** A field that is missing or malformed; `path` names it, e.g. `header.stamp.secs`. */
export class WireFieldError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
    readonly hint?: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'WireFieldError';
  }
}

type WireRecord = Readonly<Record<string, unknown>>;

export function isWireRecord(value: unknown): value is WireRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/** A wire value in a few words, for a problem message; never throws, whatever the value. */
export function describeWireValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Uint8Array) return 'bytes';
  if (ArrayBuffer.isView(value)) return 'a typed array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `string ${JSON.stringify(value.slice(0, 40))}`;
  // String(), not JSON: CBOR brings integers beyond 2^53 as BigInt, which JSON cannot show.
  return `${typeof value} ${String(value).slice(0, 40)}`;
}

function isNumericView(value: unknown): value is ArrayLike<number> {
  return ArrayBuffer.isView(value) && !(value instanceof DataView) && !(value instanceof BigInt64Array) && !(value instanceof BigUint64Array);
}

/** One object inside a wire message, with the path that leads to it (for error messages). */
export class WireObject {
  private constructor(
    private readonly record: WireRecord,
    readonly path: string,
  ) {}

  static root(value: unknown, what: string): WireObject {
    if (!isWireRecord(value)) throw new WireFieldError(what, `expected an object, got ${describeWireValue(value)}`);
    return new WireObject(value, what);
  }

  has(name: string): boolean {
    return this.record[name] !== undefined;
  }

  object(name: string): WireObject {
    return WireObject.root(this.raw(name), this.at(name));
  }

  string(name: string): string {
    const value = this.raw(name);
    if (typeof value !== 'string') throw this.wrong(name, 'a string', value);
    return value;
  }

  /** A number that may be non-finite: CBOR carries inf and nan, JSON turns both into null (read as NaN). */
  number(name: string): number {
    const value = this.raw(name);
    if (value === null) return Number.NaN;
    if (typeof value !== 'number') throw this.wrong(name, 'a number', value);
    return value;
  }

  finite(name: string): number {
    const value = this.number(name);
    if (!Number.isFinite(value)) throw new WireFieldError(this.at(name), `expected a finite number, got ${value}`);
    return value;
  }

  /** A non-negative integer count or size (ROS uint32). */
  count(name: string): number {
    const value = this.raw(name);
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw this.wrong(name, 'a non-negative integer', value);
    }
    return value;
  }

  /** ROS bools arrive as true/false, and uint8 flags such as `is_bigendian` as 0/1. */
  boolean(name: string): boolean {
    const value = this.raw(name);
    if (typeof value === 'boolean') return value;
    if (value === 0 || value === 1) return value === 1;
    throw this.wrong(name, 'a boolean', value);
  }

  /** uint8[]: base64 in JSON, a byte string in CBOR, or (older ROS 2 bridges) an array of numbers. */
  bytes(name: string): Uint8Array {
    const value = this.raw(name);
    if (value instanceof Uint8Array) return value;
    if (typeof value === 'string') {
      const decoded = Buffer.from(value, 'base64');
      return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength);
    }
    if (Array.isArray(value)) {
      const bytes = new Uint8Array(value.length);
      value.forEach((item, index) => {
        if (typeof item !== 'number' || !Number.isInteger(item) || item < 0 || item > 255) {
          throw new WireFieldError(`${this.at(name)}[${index}]`, `expected a byte, got ${describeWireValue(item)}`);
        }
        bytes[index] = item;
      });
      return bytes;
    }
    throw this.wrong(name, 'bytes (base64 text or a byte string)', value);
  }

  /** A float array as Float32Array (JSON null becomes NaN: the robot sent inf or nan). */
  float32s(name: string): Float32Array {
    return Float32Array.from(this.numbers(name));
  }

  /** A float array as Float64Array (JSON null becomes NaN: the robot sent inf or nan). */
  float64s(name: string): Float64Array {
    return Float64Array.from(this.numbers(name));
  }

  strings(name: string): string[] {
    const value = this.raw(name);
    if (!Array.isArray(value)) throw this.wrong(name, 'an array of strings', value);
    return value.map((item, index) => {
      if (typeof item !== 'string') throw new WireFieldError(`${this.at(name)}[${index}]`, `expected a string, got ${describeWireValue(item)}`);
      return item;
    });
  }

  objects(name: string): WireObject[] {
    const value = this.raw(name);
    if (!Array.isArray(value)) throw this.wrong(name, 'an array of objects', value);
    return value.map((item, index) => WireObject.root(item, `${this.at(name)}[${index}]`));
  }

  private numbers(name: string): ArrayLike<number> {
    const value = this.raw(name);
    if (isNumericView(value)) return value;
    if (!Array.isArray(value)) throw this.wrong(name, 'an array of numbers', value);
    return value.map((item, index) => {
      if (item === null) return Number.NaN;
      if (typeof item !== 'number') throw new WireFieldError(`${this.at(name)}[${index}]`, `expected a number, got ${describeWireValue(item)}`);
      return item;
    });
  }

  private raw(name: string): unknown {
    const value = this.record[name];
    if (value === undefined) throw new WireFieldError(this.at(name), 'missing');
    return value;
  }

  private at(name: string): string {
    return `${this.path}.${name}`;
  }

  private wrong(name: string, expected: string, value: unknown): WireFieldError {
    return new WireFieldError(this.at(name), `expected ${expected}, got ${describeWireValue(value)}`);
  }
}
