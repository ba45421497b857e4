// Field paths compiled once into readers: `/odom.twist.twist.linear.x` becomes a chain of closures
// that picks one number out of a ROS-shaped message (what rosbridge or a log carries) without parsing
// or walking the path again per message. Where the topic's type is known, the path is checked against
// its definition before any message arrives, and a problem names the segment where it fails.
import { parse } from '@foxglove/rosmsg';
import { formatFieldPath, parseFieldPath, type FieldPath, type FieldPathSegment } from './contract.ts';
import { fullMessageDefinition } from './rosMessageDefinitions.ts';

/** Reads the path's number from a message; undefined where the message lacks it or it is not a number. */
export type FieldReader = (message: unknown) => number | undefined;

export interface CompiledFieldPath {
  path: FieldPath;
  read: FieldReader;
  /** Why `read` found nothing in this message, naming the segment (call only after a miss: it walks the path). */
  explainMiss(message: unknown): string;
}

type MessageDefinition = ReturnType<typeof parse>[number];
type MessageDefinitionField = MessageDefinition['definitions'][number];

export type FieldPathCompile = { ok: true; compiled: CompiledFieldPath } | { ok: false; message: string };

const NUMERIC_TYPES = new Set(['bool', 'byte', 'char', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'float32', 'float64']);
const TIME_TYPES = new Set(['time', 'duration', 'builtin_interfaces/Time', 'builtin_interfaces/Duration']);
/** Byte arrays (image and cloud data) are not offered as plot fields: their elements mean nothing alone. */
const BYTE_TYPES = new Set(['uint8', 'int8', 'byte', 'char']);
/** Fixed arrays up to this long offer every element; longer ones (covariances) only the first. */
const LIST_EVERY_ELEMENT_UP_TO = 9;
const MAX_OFFERED_FIELDS = 200;

/** Parses and compiles a path; with the topic's ROS type (when known), checks it against the type's definition first. */
export function compileFieldPath(text: string, rosType?: string): FieldPathCompile {
  const parsed = parseFieldPath(text);
  if (!parsed.ok) return parsed;
  const path = parsed.path;
  const definitions = rosType === undefined ? undefined : messageDefinitions(rosType);
  if (definitions !== undefined) {
    const problem = checkAgainstDefinition(path, rosType!, definitions);
    if (problem !== undefined) return { ok: false, message: problem };
  }
  return { ok: true, compiled: { path, read: compileReader(path.segments), explainMiss: (message) => explainMiss(path, message) } };
}

/** The chain of closures, built from the last segment back, so reading is one call per segment. */
function compileReader(segments: readonly FieldPathSegment[]): FieldReader {
  let read: (value: unknown) => number | undefined = toNumber;
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i]!;
    const next = read;
    if (segment.kind === 'field') {
      const name = segment.name;
      read = (value) => (typeof value === 'object' && value !== null ? next((value as Record<string, unknown>)[name]) : undefined);
    } else {
      const index = segment.index;
      read = (value) => (Array.isArray(value) || ArrayBuffer.isView(value) ? next((value as ArrayLike<unknown>)[index]) : undefined);
    }
  }
  return read;
}

/** A number, a bigint (int64), a boolean, or a ROS 1 or ROS 2 time (as seconds); anything else is not plotted. */
function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'object' && value !== null) {
    const time = value as Record<string, unknown>;
    const secs = time['sec'] ?? time['secs'];
    const nanos = time['nanosec'] ?? time['nsec'] ?? time['nsecs'];
    if (typeof secs === 'number' && typeof nanos === 'number') return secs + nanos / 1e9;
  }
  return undefined;
}

function explainMiss(path: FieldPath, message: unknown): string {
  let value = message;
  for (let i = 0; i < path.segments.length; i++) {
    const segment = path.segments[i]!;
    const upTo = formatFieldPath(path.topic, path.segments.slice(0, i + 1));
    if (segment.kind === 'field') {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || ArrayBuffer.isView(value))
        return `${formatFieldPath(path.topic, path.segments.slice(0, i))} is ${describe(value)}, not a message with fields: nothing at ${upTo}`;
      const fields = Object.keys(value);
      if (!(segment.name in value)) return `${path.topic} has no field '${segment.name}' at ${upTo}; fields there: ${fields.join(', ') || '(none)'}`;
      value = (value as Record<string, unknown>)[segment.name];
    } else {
      if (!Array.isArray(value) && !ArrayBuffer.isView(value))
        return `${formatFieldPath(path.topic, path.segments.slice(0, i))} is ${describe(value)}, not an array`;
      const length = (value as ArrayLike<unknown>).length;
      if (segment.index >= length) return `${upTo} is past the end: the array has ${length} element${length === 1 ? '' : 's'} in this message`;
      value = (value as ArrayLike<unknown>)[segment.index];
    }
  }
  return `${path.text} is ${describe(value)}, not a number`;
}

function describe(value: unknown): string {
  if (value === undefined || value === null) return 'empty';
  if (typeof value === 'string') return 'a string';
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return 'an array';
  if (typeof value === 'object') return `a message (fields: ${Object.keys(value).join(', ')})`;
  return `a ${typeof value}`;
}

const definitionCache = new Map<string, MessageDefinition[] | undefined>();

/** The parsed definitions of a standard type Reins knows (ROS 1 `pkg/Type` or ROS 2 `pkg/msg/Type`); undefined for others. */
export function messageDefinitions(rosType: string): MessageDefinition[] | undefined {
  const type = rosType.replace('/msg/', '/');
  if (!definitionCache.has(type)) {
    const text = fullMessageDefinition(type);
    definitionCache.set(type, text === '' ? undefined : parse(text));
  }
  return definitionCache.get(type);
}

function fieldsOf(definitions: readonly MessageDefinition[], type: string | undefined): MessageDefinitionField[] {
  const definition = type === undefined ? definitions[0] : definitions.find((candidate) => candidate.name === type);
  return (definition?.definitions ?? []).filter((field) => field.isConstant !== true);
}

function checkAgainstDefinition(path: FieldPath, rosType: string, definitions: readonly MessageDefinition[]): string | undefined {
  let type: string | undefined = undefined;
  let field: MessageDefinitionField | undefined;
  let inArray = false;
  const where = (i: number) => formatFieldPath(path.topic, path.segments.slice(0, i + 1));
  for (let i = 0; i < path.segments.length; i++) {
    const segment = path.segments[i]!;
    if (segment.kind === 'index') {
      if (!field?.isArray || inArray) return `${formatFieldPath(path.topic, path.segments.slice(0, i))} is not an array: remove [${segment.index}]`;
      if (field.arrayLength !== undefined && segment.index >= field.arrayLength)
        return `${where(i)} is past the end: ${field.name} has ${field.arrayLength} elements (0–${field.arrayLength - 1})`;
      inArray = true;
      continue;
    }
    if (field?.isArray && !inArray)
      return `${formatFieldPath(path.topic, path.segments.slice(0, i))} is an array: pick an element, such as [0], before .${segment.name}`;
    if (field !== undefined && !field.isComplex)
      return `${formatFieldPath(path.topic, path.segments.slice(0, i))} is a ${field.type}, which has no field '${segment.name}'`;
    const fields = fieldsOf(definitions, type);
    const next = fields.find((candidate) => candidate.name === segment.name);
    const owner = i === 0 ? `${path.topic} (${rosType})` : `${formatFieldPath(path.topic, path.segments.slice(0, i))} (${type})`;
    if (next === undefined)
      return `${owner} has no field '${segment.name}' at ${where(i)}; its fields: ${fields.map((candidate) => candidate.name).join(', ')}`;
    field = next;
    type = next.type;
    inArray = false;
  }
  if (field === undefined) return undefined;
  if (field.isArray && !inArray) return `${path.text} is an array of ${field.type}: pick an element, such as ${path.text}[0]`;
  if (TIME_TYPES.has(field.type) || NUMERIC_TYPES.has(field.type)) return undefined;
  if (field.isComplex) {
    const inner = fieldsOf(definitions, field.type).map((candidate) => candidate.name);
    return `${path.text} is a ${field.type}, not a number: pick one of its fields (${inner.join(', ')})`;
  }
  return `${path.text} is a ${field.type}, not a number`;
}

/** The paths of a type's numeric fields under `topic`, for suggestions; empty when the type is not known. */
export function numericFieldPaths(topic: string, rosType: string): string[] {
  const definitions = messageDefinitions(rosType);
  if (definitions === undefined) return [];
  const out: string[] = [];
  const visit = (prefix: string, type: string | undefined, depth: number) => {
    if (depth > 8) return;
    for (const field of fieldsOf(definitions, type)) {
      if (out.length >= MAX_OFFERED_FIELDS) return;
      const base = `${prefix}.${field.name}`;
      const elements = !field.isArray
        ? ['']
        : field.arrayLength !== undefined && field.arrayLength <= LIST_EVERY_ELEMENT_UP_TO
          ? Array.from({ length: field.arrayLength }, (_, i) => `[${i}]`)
          : field.isComplex || !BYTE_TYPES.has(field.type)
            ? ['[0]']
            : [];
      for (const element of elements) {
        if (field.isComplex) visit(base + element, field.type, depth + 1);
        else if (NUMERIC_TYPES.has(field.type) || TIME_TYPES.has(field.type)) out.push(base + element);
      }
    }
  };
  visit(topic, undefined, 0);
  return out;
}
