import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzz } from '../../../test/support/fuzz.ts';
import { FragmentAssembler } from './fragmentAssembler.ts';

const MESSAGE = JSON.stringify({ op: 'publish', topic: '/scan', msg: { ranges: [1, 2, 3], note: 'x'.repeat(300) } });

/** Splits text the way rosbridge_suite 0.11 does: total = (len - 1) / size + 1, a float. */
function fragmentsOf(text: string, size: number, id: string | number = 0, total = (text.length - 1) / size + 1): Array<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = [];
  for (let at = 0, num = 0; at < text.length; at += size, num++) parts.push({ op: 'fragment', id, data: text.slice(at, at + size), num, total });
  return parts;
}

function feed(assembler: FragmentAssembler, fragments: Array<Record<string, unknown>>): Array<{ complete: boolean; message?: unknown; problem?: string }> {
  return fragments.map((fragment) => assembler.add(fragment));
}

describe('FragmentAssembler', () => {
  it('completes at floor(total) fragments, as rosbridge_suite 0.11 counts them', () => {
    const fragments = fragmentsOf(MESSAGE, 100);
    expect(Number.isInteger(fragments[0]!['total'])).toBe(false);
    const results = feed(new FragmentAssembler(), fragments);
    expect(results.at(-1)).toEqual({ complete: true, message: JSON.parse(MESSAGE) });
    expect(results.slice(0, -1).every((result) => !result.complete && result.problem === undefined)).toBe(true);
  });

  it('also completes when total means length / size rounded up', () => {
    const results = feed(new FragmentAssembler(), fragmentsOf(MESSAGE, 100, 'a', MESSAGE.length / 100));
    expect(results.at(-1)?.complete).toBe(true);
  });

  it('tells messages with the same id apart by arrival order, and says when one was cut short', () => {
    const assembler = new FragmentAssembler();
    const first = fragmentsOf(MESSAGE, 100);
    feed(assembler, first.slice(0, 2));
    const results = feed(assembler, fragmentsOf(MESSAGE, 100));
    expect(results[0]!.problem).toMatch(/dropped after 2 arrived/);
    expect(results.at(-1)?.complete).toBe(true);
  });

  it('refuses malformed fragments and fragments without a start', () => {
    const assembler = new FragmentAssembler();
    expect(assembler.add({ op: 'fragment', id: 0, data: 'x', num: 1, total: 2 }).problem).toMatch(/without fragment 0/);
    expect(assembler.add({ op: 'fragment', id: 0, data: 5, num: 0, total: 2 }).problem).toBeDefined();
    expect(assembler.add({ op: 'fragment', id: 0, data: 'x', num: 0, total: Number.NaN }).problem).toBeDefined();
    expect(assembler.add({ op: 'fragment', id: {}, data: 'x', num: 0, total: 2 }).problem).toBeDefined();
  });

  it('gives up past ceil(total) when the text is not JSON, and on messages over its limit', () => {
    const results = feed(new FragmentAssembler(), fragmentsOf('{"op": broken', 5, 'b', 3));
    expect(results.at(-1)?.problem).toMatch(/did not form a JSON message/);
    // With a fractional total the last fragment might still be coming: the loss shows at the next message.
    const waiting = new FragmentAssembler();
    expect(feed(waiting, fragmentsOf('{"op": broken', 5)).every((result) => result.problem === undefined)).toBe(true);
    expect(waiting.add(fragmentsOf(MESSAGE, 100)[0]!).problem).toMatch(/dropped after 3 arrived/);
    const small = new FragmentAssembler({ maxChars: 150, maxFragments: 100, maxPartialMessages: 2 });
    expect(feed(small, fragmentsOf(MESSAGE, 100)).some((result) => /exceeds 150/.test(result.problem ?? ''))).toBe(true);
  });

  it('never throws on generated fragments', () => {
    const fragment = fc.record({
      op: fc.constant('fragment'),
      id: fc.oneof(fc.constantFrom(0, 1, 'a'), fc.anything()),
      data: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('{"op":"x"}', '{', '}'), fc.anything()),
      num: fc.oneof(fc.integer({ min: -1, max: 6 }), fc.double(), fc.anything()),
      // Values whose String() throws ([{ toString: '' }] once escaped the socket handler as a TypeError).
      total: fc.oneof(
        fc.double({ min: -1, max: 8 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        fc.anything(),
        fc.constant([{ toString: '' }]),
        fc.constant({ valueOf: 1, toString: 1 }),
      ),
    });
    fuzz(
      [fc.array(fragment, { maxLength: 30 })],
      (fragments) => {
        for (const result of feed(new FragmentAssembler(), fragments)) {
          if (result.complete) expect(result.problem).toBeUndefined();
          if (result.problem !== undefined) expect(result.problem.length).toBeGreaterThan(0);
        }
      },
      { runs: 1000 },
    );
  });
});
