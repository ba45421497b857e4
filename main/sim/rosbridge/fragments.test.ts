import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fuzz } from '../../../test/support/fuzz.ts';
import { FragmentAssembler, fragmentText, type IncomingFragment } from './fragments.ts';

function assembler(options: { maxPendingChars?: number; timeoutMs?: number } = {}) {
  const expired: string[] = [];
  const instance = new FragmentAssembler({
    maxPendingChars: options.maxPendingChars ?? 1_000_000,
    timeoutMs: options.timeoutMs ?? 1000,
    onExpired: (_id, message) => expired.push(message),
  });
  return { assembler: instance, expired };
}

const parsedFragments = (frames: string[]) => frames.map((frame) => JSON.parse(frame) as IncomingFragment);

describe('fragmentText and FragmentAssembler', () => {
  it('split and reassemble any text, in any arrival order', () => {
    fuzz(
      [fc.string({ minLength: 1, maxLength: 600, unit: 'binary' }), fc.integer({ min: 1, max: 300 }), fc.integer()],
      (text, size, seed) => {
        const fragments = parsedFragments(fragmentText(text, size, 'm'));
        expect(fragments.every((fragment) => fragment.data.length <= size)).toBe(true);
        // A seeded shuffle: reassembly must not depend on arrival order.
        const order = fragments.map((fragment, index) => ({ fragment, key: Math.sin(seed + index) })).sort((a, b) => a.key - b.key);
        const { assembler: instance } = assembler();
        const outcomes = order.map(({ fragment }) => instance.add(fragment));
        instance.dispose();
        expect(outcomes.slice(0, -1).every((outcome) => outcome.kind === 'pending')).toBe(true);
        expect(outcomes.at(-1)).toEqual({ kind: 'complete', text });
      },
      { runs: 500 },
    );
  });

  it('keeps messages with different ids apart and ignores a repeated piece', () => {
    const { assembler: instance } = assembler();
    const first = parsedFragments(fragmentText('{"op":"a"}', 4, 'one'));
    const second = parsedFragments(fragmentText('{"op":"b"}', 4, 'two'));
    expect(instance.add(first[0]!).kind).toBe('pending');
    expect(instance.add(second[0]!).kind).toBe('pending');
    expect(instance.add(first[0]!).kind).toBe('pending');
    expect(instance.add(first[1]!).kind).toBe('pending');
    expect(instance.add(second[1]!).kind).toBe('pending');
    expect(instance.add(second[2]!)).toEqual({ kind: 'complete', text: '{"op":"b"}' });
    expect(instance.add(first[2]!)).toEqual({ kind: 'complete', text: '{"op":"a"}' });
    instance.dispose();
  });

  it('refuses pieces that do not fit the message: num out of range, totals that disagree', () => {
    const { assembler: instance } = assembler();
    expect(instance.add({ id: 'x', data: 'a', num: 3, total: 3 }).kind).toBe('refused');
    expect(instance.add({ id: 'x', data: 'a', num: 0, total: 3 }).kind).toBe('pending');
    expect(instance.add({ id: 'x', data: 'b', num: 1, total: 4 }).kind).toBe('refused');
    expect(instance.add({ id: 'y', data: 'a', num: 0, total: 1e9 }).kind).toBe('refused');
    instance.dispose();
  });

  it('refuses a fragmented message larger than the limit and frees what it held', () => {
    const { assembler: instance } = assembler({ maxPendingChars: 10 });
    expect(instance.add({ id: 'big', data: 'x'.repeat(8), num: 0, total: 2 }).kind).toBe('pending');
    const refused = instance.add({ id: 'big', data: 'x'.repeat(8), num: 1, total: 2 });
    expect(refused.kind).toBe('refused');
    expect(refused.kind === 'refused' && refused.message).toContain('limit');
    // The refused message's pieces were let go: a small message now fits.
    expect(instance.add({ id: 'small', data: '{}', num: 0, total: 1 })).toEqual({ kind: 'complete', text: '{}' });
    instance.dispose();
  });

  describe('a message that never completes', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('is dropped after the timeout, once, saying how many pieces came', () => {
      const { assembler: instance, expired } = assembler({ timeoutMs: 500 });
      instance.add({ id: 'slow', data: 'abc', num: 0, total: 3 });
      vi.advanceTimersByTime(499);
      expect(expired).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(expired).toHaveLength(1);
      expect(expired[0]).toContain('1 of 3 pieces');
      vi.advanceTimersByTime(5000);
      expect(expired).toHaveLength(1);
      instance.dispose();
    });

    it('is not reported once it completed', () => {
      const { assembler: instance, expired } = assembler({ timeoutMs: 500 });
      instance.add({ id: 'ok', data: '{"a":', num: 0, total: 2 });
      instance.add({ id: 'ok', data: '1}', num: 1, total: 2 });
      vi.advanceTimersByTime(1000);
      expect(expired).toEqual([]);
    });
  });
});
