// JSON lines from a board that prints one object per reading, e.g. {"t":123,"imu":{"ax":0.1}}.
// Nested objects are flattened to dotted names ("imu.ax") so a reading is one flat record.

export type JsonLineValue = number | string | boolean | null;
export type JsonLineParse = { ok: true; record: Record<string, JsonLineValue> } | { ok: false; detail: string };

const MAX_DEPTH = 8;

export function parseJsonLine(line: string): JsonLineParse {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, detail: `not JSON (${error instanceof Error ? error.message : String(error)}): ${preview(line)}` };
  }
  if (!isPlainObject(value)) return { ok: false, detail: `a JSON line must be an object, got ${Array.isArray(value) ? 'an array' : typeof value}` };
  const record: Record<string, JsonLineValue> = {};
  const problem = flatten(value, '', 0, record);
  return problem ? { ok: false, detail: problem } : { ok: true, record };
}

function flatten(object: Record<string, unknown>, prefix: string, depth: number, into: Record<string, JsonLineValue>): string | undefined {
  if (depth > MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels`;
  for (const [key, value] of Object.entries(object)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (value === null || typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') {
      into[name] = value;
    } else if (Array.isArray(value)) {
      // Arrays of numbers are common (a vector); they become name.0, name.1, …
      const asObject: Record<string, unknown> = {};
      value.forEach((item, index) => (asObject[String(index)] = item));
      const problem = flatten(asObject, name, depth + 1, into);
      if (problem) return problem;
    } else if (isPlainObject(value)) {
      const problem = flatten(value, name, depth + 1, into);
      if (problem) return problem;
    }
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
