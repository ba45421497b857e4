// What the UI socket and POST /api/requests could be sent: any text, any JSON value, and every
// request type with its fields replaced by wrong types, removed, or joined by unknown ones. Parsing
// never throws; a refusal is one of the contract's error codes with a message, and a refused request
// of a known type names the field that is wrong.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzz } from '../../test/support/fuzz.ts';
import { ErrorCode, MAX_REQUEST_BYTES, Request } from '../core/contract.ts';
import { parseRequest, validateRequest, type Parsed } from './requestParsing.ts';

const REQUEST_SHAPES = Request.options.map((option) => ({ type: option.shape.type.value, fields: Object.keys(option.shape).filter((key) => key !== 'type') }));
const ERROR_CODES: readonly string[] = ErrorCode.options;

/** Values a field could be given: right-looking ones, wrong types, edge numbers, long text. */
const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.double(),
  fc.integer({ min: -10, max: 10 }),
  fc.constantFrom(
    0,
    -0,
    1,
    0.25,
    8,
    5,
    3600,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER,
    null,
    true,
    false,
    '',
    'sim',
    'ws://robot:9090',
    'good',
    'left',
    'x'.repeat(70),
  ),
  fc.string({ maxLength: 20 }),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(
    fc.constantFrom('camera', 'scan', 'joints', 'imu', 'odom', 'command', 'x'),
    fc.oneof(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 })),
    { maxKeys: 3 },
  ),
);

/** A request of one known type whose fields are generated, some left out, some unknown added. */
const mutatedRequest: fc.Arbitrary<{ type: string; fields: string[]; request: Record<string, unknown> }> = fc
  .constantFrom(...REQUEST_SHAPES)
  .chain(({ type, fields }) =>
    fc
      .record({
        values: fc.record(Object.fromEntries(fields.map((field) => [field, fieldValue])), { requiredKeys: [] }),
        extra: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fieldValue, { maxKeys: 2 }),
      })
      .map(({ values, extra }) => ({ type, fields, request: { ...extra, ...values, type } })),
  );

function expectClearRefusal(parsed: Parsed): void {
  if (parsed.ok) {
    expect(REQUEST_SHAPES.map((shape) => shape.type)).toContain(parsed.request.type);
    return;
  }
  expect(ERROR_CODES).toContain(parsed.error.code);
  expect(parsed.error.message.length).toBeGreaterThan(10);
  if (parsed.error.id !== undefined) expect(parsed.error.id.length).toBeLessThanOrEqual(64);
}

describe('request parsing under generated input', () => {
  it('refuses any text with a contract error code and a message, never a throw', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 200, unit: 'binary' }),
      fc.json({ maxDepth: 4 }),
      mutatedRequest.map(({ request }) => JSON.stringify(request)),
      mutatedRequest.map(({ request }) => JSON.stringify(request).slice(0, -1)),
      fc.constant(JSON.stringify({ type: 'estop', pad: 'y'.repeat(MAX_REQUEST_BYTES) })),
    );
    fuzz([text], (input) => expectClearRefusal(parseRequest(input)), { runs: 3000 });
  });

  it('refuses any value, however odd its prototype or contents', () => {
    const value = fc.anything({
      maxDepth: 3,
      withNullPrototype: true,
      withBoxedValues: true,
      withMap: true,
      withSet: true,
      withTypedArray: true,
      withSparseArray: true,
      withBigInt: true,
      withDate: true,
    });
    const typed = fc
      .tuple(fc.oneof(fc.constantFrom(...REQUEST_SHAPES.map((shape) => shape.type)), fc.string({ maxLength: 80 })), value)
      .map(([type, rest]) => ({ ...(typeof rest === 'object' ? rest : {}), type }));
    fuzz([fc.oneof(value, typed)], (input) => expectClearRefusal(validateRequest(input)), { runs: 3000 });
  });

  it('names the wrong field of every request type', () => {
    fuzz(
      [mutatedRequest],
      ({ type, fields, request }) => {
        const parsed = validateRequest(request);
        expectClearRefusal(parsed);
        if (parsed.ok) return;
        expect(parsed.error.code).toBe('bad-request');
        expect(parsed.error.message).toContain(`"${type}"`);
        const named = [...fields, ...Object.keys(request)].filter((key) => key !== 'type' && parsed.error.message.includes(key));
        expect(named, parsed.error.message).not.toEqual([]);
      },
      { runs: 3000 },
    );
  });
});
