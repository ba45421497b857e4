// A RosFields message written as CDR under the robot's own ROS 2 definition, or why it cannot be.
// @foxglove/rosmsg2-serialization's writer is lenient where a recording must not be: a missing or
// mistyped field becomes its default (zero, empty), a typed array of another element type becomes
// empty, and a string that is not ASCII is cut short, all silently. So every field is checked
// against the definition first and turned into what the writer takes (rosbridge's JSON shapes
// included: uint8[] as base64, null for inf and nan, numbers for 64-bit integers); a message that
// does not fit is refused in words, and the caller keeps it as JSON instead, whole.
import { parse } from '@foxglove/rosmsg';
import { MessageWriter } from '@foxglove/rosmsg2-serialization';

type MessageDefinition = ReturnType<typeof parse>[number];
type Field = MessageDefinition['definitions'][number];

/** Writes one message's fields as CDR (with its encapsulation header), or says why they do not fit the definition. */
export type CdrFieldWriter = (fields: Record<string, unknown>) => { ok: true; cdr: Uint8Array } | { ok: false; problem: string };

export type CdrFieldWriting = { ok: true; write: CdrFieldWriter } | { ok: false; problem: string };

class FieldMismatch extends Error {}

const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int8: [-0x80, 0x7f],
  uint8: [0, 0xff],
  int16: [-0x8000, 0x7fff],
  uint16: [0, 0xffff],
  int32: [-0x80000000, 0x7fffffff],
  uint32: [0, 0xffffffff],
};

type NumericArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;
interface NumericArrayType {
  new (length: number): NumericArray;
  from(values: ArrayLike<number>): NumericArray;
}
const NUMERIC_ARRAYS: Readonly<Record<string, NumericArrayType>> = {
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  float32: Float32Array,
  float64: Float64Array,
};

/** A writer for messages of the type `definitionText` (a `ros2msg` text with its dependencies) defines. */
export function cdrFieldWriter(definitionText: string): CdrFieldWriting {
  let definitions: MessageDefinition[];
  let writer: MessageWriter;
  try {
    definitions = parse(definitionText, { ros2: true });
    writer = new MessageWriter(definitions);
  } catch (error) {
    return { ok: false, problem: `the definition does not parse (${(error as Error).message})` };
  }
  const shaper = new FieldShaper(definitions);
  return {
    ok: true,
    write: (fields) => {
      try {
        return { ok: true, cdr: writer.writeMessage(shaper.message(fields, undefined, 'msg')) };
      } catch (error) {
        return { ok: false, problem: error instanceof FieldMismatch ? error.message : `it cannot be written as CDR (${(error as Error).message})` };
      }
    },
  };
}

/** Checks a message against its definition and shapes each value the way the CDR writer reads it. */
class FieldShaper {
  private readonly byName = new Map<string, readonly Field[]>();
  private readonly root: readonly Field[];

  constructor(definitions: readonly MessageDefinition[]) {
    for (const definition of definitions) if (definition.name !== undefined) this.byName.set(definition.name, definition.definitions);
    // As the writer does: the first definition that is not a module of constants is the message itself.
    const root = definitions.find((definition) => !(definition.definitions.length > 0 && definition.definitions.every((field) => field.isConstant)));
    this.root = root?.definitions ?? [];
  }

  message(value: unknown, type: string | undefined, path: string): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) throw mismatch(path, 'a message', value);
    const fields = type === undefined ? this.root : this.byName.get(type);
    if (fields === undefined) throw new FieldMismatch(`${path}: the definition lacks ${type}`);
    const record = value as Record<string, unknown>;
    const data = fields.filter((field) => field.isConstant !== true);
    const extra = Object.keys(record).find((name) => !data.some((field) => field.name === name));
    if (extra !== undefined) throw new FieldMismatch(`${path}.${extra} is not in the definition`);
    const out: Record<string, unknown> = {};
    for (const field of data) {
      const at = `${path}.${field.name}`;
      if (!(field.name in record)) throw new FieldMismatch(`${at} is missing`);
      out[field.name] = field.isArray === true ? this.array(field, record[field.name], at) : this.single(field, record[field.name], at);
    }
    return out;
  }

  private single(field: Field, value: unknown, path: string): unknown {
    return field.isComplex === true ? this.message(value, field.type, path) : primitive(field.type, value, path);
  }

  private array(field: Field, value: unknown, path: string): unknown {
    const shaped = field.isComplex === true ? this.messages(field, value, path) : primitiveArray(field.type, value, path);
    if (field.arrayLength !== undefined && shaped.length !== field.arrayLength) {
      throw new FieldMismatch(`${path} has ${shaped.length} elements; the definition fixes ${field.arrayLength}`);
    }
    return shaped;
  }

  private messages(field: Field, value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) throw mismatch(path, 'an array of messages', value);
    return value.map((item, index) => this.message(item, field.type, `${path}[${index}]`));
  }
}

function primitive(type: string, value: unknown, path: string): unknown {
  const range = INTEGER_RANGES[type];
  if (range !== undefined) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < range[0] || value > range[1])
      throw mismatch(path, `${article(type)} ${type} (${range[0]} to ${range[1]})`, value);
    return value;
  }
  switch (type) {
    case 'float32':
    case 'float64':
      // rosbridge's JSON writes inf and nan as null.
      if (value === null) return Number.NaN;
      if (typeof value !== 'number') throw mismatch(path, 'a number', value);
      return value;
    case 'int64':
    case 'uint64':
      if (typeof value === 'bigint') return value;
      if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
      throw mismatch(path, `${article(type)} ${type}`, value);
    case 'bool':
      if (typeof value === 'boolean') return value;
      if (value === 0 || value === 1) return value === 1;
      throw mismatch(path, 'a bool', value);
    case 'string':
      if (typeof value !== 'string') throw mismatch(path, 'a string', value);
      // The CDR writer sizes a string by its UTF-16 length and would cut anything beyond ASCII.
      if (!/^[\x00-\x7f]*$/.test(value)) throw new FieldMismatch(`${path} is not ASCII, which the CDR writer cannot write whole`);
      return value;
    case 'time':
    case 'duration':
      return rosTime(value, path);
    default:
      throw new FieldMismatch(`${path} is a ${type}, which the CDR writer does not write`);
  }
}

function primitiveArray(type: string, value: unknown, path: string): ArrayLike<unknown> {
  const typed = NUMERIC_ARRAYS[type];
  // uint8[] (and byte[], char[]): base64 text in rosbridge's JSON.
  if (type === 'uint8' && typeof value === 'string') return new Uint8Array(Buffer.from(value, 'base64'));
  // The writer takes a typed array only of the field's own element type.
  if (typed !== undefined && value instanceof typed) return value;
  const items = itemsOf(value, path);
  if (type === 'int64' || type === 'uint64') {
    const shaped = items.map((item, index) => primitive(type, item, `${path}[${index}]`) as bigint);
    return type === 'int64' ? BigInt64Array.from(shaped) : BigUint64Array.from(shaped);
  }
  const shaped = items.map((item, index) => primitive(type, item, `${path}[${index}]`));
  if (typed !== undefined) return typed.from(shaped as number[]);
  // bool[] goes to the writer as a plain array of 0 and 1.
  return type === 'bool' ? shaped.map((item) => (item === true ? 1 : 0)) : shaped;
}

function itemsOf(value: unknown, path: string): unknown[] {
  if (Array.isArray(value)) return value;
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<unknown>);
  throw mismatch(path, 'an array', value);
}

/** A ROS 2 `{sec, nanosec}` (or a ROS 1 `{secs, nsecs}`) as the writer's `{sec, nanosec}`. */
function rosTime(value: unknown, path: string): { sec: number; nanosec: number } {
  if (typeof value !== 'object' || value === null) throw mismatch(path, 'a time', value);
  const time = value as Record<string, unknown>;
  const sec = time['sec'] ?? time['secs'];
  const nanosec = time['nanosec'] ?? time['nsecs'] ?? time['nsec'];
  if (Object.keys(time).length !== 2 || !Number.isInteger(sec) || !Number.isInteger(nanosec)) throw mismatch(path, 'a time {sec, nanosec}', value);
  return { sec: sec as number, nanosec: nanosec as number };
}

function article(type: string): string {
  return type.startsWith('int') ? 'an' : 'a';
}

function mismatch(path: string, expected: string, value: unknown): FieldMismatch {
  const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : ArrayBuffer.isView(value) ? 'a typed array' : typeof value;
  return new FieldMismatch(`${path} is ${got}, not ${expected}`);
}
