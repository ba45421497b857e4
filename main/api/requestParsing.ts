// Turns raw bytes from the UI into a validated Request, or a clear error saying what was wrong.
import { z } from 'zod';
import { MAX_REQUEST_BYTES, Request, type ErrorBody } from '../core/contract.ts';

export type Parsed = { ok: true; request: Request } | { ok: false; error: ErrorBody };

const KNOWN_TYPES: ReadonlySet<string> = new Set<string>(Request.options.map((option) => option.shape.type.value));

export function parseRequest(text: string): Parsed {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_REQUEST_BYTES) {
    return { ok: false, error: { code: 'too-large', message: `request of ${bytes} bytes exceeds the limit of ${MAX_REQUEST_BYTES} bytes` } };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: { code: 'bad-json', message: `request is not valid JSON: ${(error as Error).message}` } };
  }
  return validateRequest(json);
}

export function validateRequest(json: unknown): Parsed {
  const id = readId(json);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, error: { code: 'bad-request', message: 'request must be a JSON object with a "type"', id } };
  }
  const type = (json as { type?: unknown }).type;
  if (typeof type !== 'string') {
    return { ok: false, error: { code: 'bad-request', message: 'request has no string "type"', id } };
  }
  if (!KNOWN_TYPES.has(type)) {
    const known = [...KNOWN_TYPES].join(', ');
    return { ok: false, error: { code: 'unknown-request', message: `unknown request type "${type.slice(0, 64)}"; known: ${known}`, id } };
  }
  const result = Request.safeParse(json);
  if (!result.success) {
    return { ok: false, error: { code: 'bad-request', message: `invalid "${type}" request: ${describeIssues(result.error)}`, id } };
  }
  return { ok: true, request: result.data };
}

function readId(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const id = (json as { id?: unknown }).id;
  return typeof id === 'string' && id.length <= 64 ? id : undefined;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(request)'}: ${issue.message}`)
    .join('; ');
}
