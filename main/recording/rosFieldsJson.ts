// A RosFields message in a recording where no ROS 2 definition describes it (a ROS 1 robot, a
// foxglove json channel, fields that do not fit the definition): MCAP `json` under a `jsonschema`
// schema named by its ROS type, so the log opens in Foxglove with the type's name and review reads
// the same fields back. JSON has no typed arrays, 64-bit integers or non-finite numbers, so typed
// arrays are written as arrays, a bigint as a number where it is exact (within ±2^53) and as its
// decimal string beyond, and inf and nan as null (as rosbridge's own JSON does).
import type { EventChannel } from './reinsEvents.ts';

/** The json channel of a topic of RosFields messages of this type. */
export function rosFieldsChannel(topic: string, rosType: string): EventChannel {
  return {
    topic,
    schemaName: rosType,
    jsonSchema: {
      type: 'object',
      title: rosType,
      description: `The fields of a ${rosType} message as the robot sent them (typed arrays as arrays, 64-bit integers beyond 2^53 as decimal strings, inf and nan as null).`,
    },
  };
}

/**
 * The fields as JSON text. Written by hand rather than through JSON.stringify with a replacer, which
 * calls back once per element: a typed array is joined natively, so a map of millions of cells costs
 * a fraction of the time in the recorder's drain.
 */
export function rosFieldsJson(fields: Record<string, unknown>): string {
  return jsonOf(fields);
}

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

function jsonOf(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value >= -MAX_EXACT && value <= MAX_EXACT ? String(value) : `"${value}"`;
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (ArrayBuffer.isView(value)) return value instanceof DataView ? '{}' : typedArrayJson(value as unknown as ArrayLike<number | bigint>);
      if (Array.isArray(value)) return `[${value.map(jsonOf).join(',')}]`;
      return objectJson(value as Record<string, unknown>);
    default:
      // undefined, as JSON.stringify writes it inside an array (an object's undefined field is left out).
      return 'null';
  }
}

function objectJson(record: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, field] of Object.entries(record)) if (field !== undefined) parts.push(`${JSON.stringify(key)}:${jsonOf(field)}`);
  return `{${parts.join(',')}}`;
}

function typedArrayJson(view: ArrayLike<number | bigint>): string {
  if (view instanceof BigInt64Array || view instanceof BigUint64Array) return `[${Array.from(view, jsonOf).join(',')}]`;
  const numbers = view as ArrayLike<number>;
  if ((view instanceof Float32Array || view instanceof Float64Array) && !view.every(Number.isFinite)) return `[${Array.from(numbers, jsonOf).join(',')}]`;
  return `[${Array.prototype.join.call(numbers, ',')}]`;
}
