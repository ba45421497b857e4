import type { Driver } from '../core/tickReport.ts';
import { describe, expect, it } from 'vitest';
import type { Segment } from './feedbackTypes.ts';
import { QuestionPicker } from './questionPicker.ts';

const PERIOD_MS = 100;

function pickerWith(options: ConstructorParameters<typeof QuestionPicker>[0] = {}) {
  let step = 0;
  let nowMs = 0;
  const picker = new QuestionPicker({ segmentTicks: 10, everySecs: 5, settleSecs: 1, random: seeded(7), ...options });
  const ticks = (driver: Driver, count: number) => {
    for (let i = 0; i < count; i++) {
      nowMs += PERIOD_MS;
      picker.noteTick({ episodeId: 'e', step: step++, timeMs: nowMs, driver });
    }
  };
  return { picker, ticks, now: () => nowMs, advance: (ms: number) => (nowMs += ms) };
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 16807) % 2147483647) - 1) / 2147483646;
}

/** Disagrees most about the pair whose segments start furthest apart. */
const spread = (a: Segment, b: Segment) => Math.abs(a.startStep - b.startStep);

describe('QuestionPicker', () => {
  it('asks about the pair of policy segments the ensemble disagrees on most, in time order', () => {
    const { picker, ticks, now } = pickerWith({ sampledPairs: 200 });
    ticks('policy', 60);
    const question = picker.maybeAsk(now(), 'policy', spread);
    expect(question).toBeDefined();
    expect(question!.first.startStep).toBe(0);
    expect(question!.second.startStep).toBe(40);
    expect(question!.second.endStep - question!.second.startStep).toBe(9);
    expect(question!.firstSpanMs.endMs).toBeLessThan(question!.secondSpanMs.startMs);
  });

  it('never asks while the operator drives, never two at once, and keeps the pace', () => {
    const { picker, ticks, now, advance } = pickerWith();
    ticks('policy', 60);
    expect(picker.maybeAsk(now(), 'operator', spread)).toBeUndefined();
    const first = picker.maybeAsk(now(), 'policy', spread)!;
    expect(picker.maybeAsk(now(), 'policy', spread)).toBeUndefined();
    expect(picker.take(first.id, now())).toMatchObject({ ok: true });
    ticks('policy', 10);
    expect(picker.maybeAsk(now(), 'policy', spread)).toBeUndefined();
    advance(5000);
    expect(picker.maybeAsk(now(), 'policy', spread)).toBeDefined();
  });

  it('uses only policy-driven segments, and none without two of them', () => {
    const { picker, ticks, now } = pickerWith();
    ticks('operator', 40);
    ticks('policy', 12);
    ticks('idle', 20);
    expect(picker.maybeAsk(now(), 'policy', spread)).toBeUndefined();
  });

  it('refuses answers to questions never asked, already answered or expired', () => {
    const { picker, ticks, now, advance } = pickerWith({ expireSecs: 30 });
    ticks('policy', 60);
    expect(picker.take('question-made-up', now())).toEqual({ ok: false, message: 'No such question was asked' });
    const first = picker.maybeAsk(now(), 'policy', spread)!;
    picker.take(first.id, now());
    expect(picker.take(first.id, now())).toEqual({ ok: false, message: 'That question was already answered' });
    advance(10_000);
    const second = picker.maybeAsk(now(), 'policy', spread)!;
    advance(31_000);
    expect(picker.open(now())).toBeUndefined();
    expect(picker.take(second.id, now())).toEqual({ ok: false, message: 'That question expired before it was answered' });
  });

  it('asks nothing when its pace is off, or when the ensemble cannot score any pair', () => {
    const { picker, ticks, now } = pickerWith({ everySecs: undefined });
    ticks('policy', 60);
    expect(picker.maybeAsk(now(), 'policy', spread)).toBeUndefined();
    picker.setPace(5);
    expect(picker.maybeAsk(now(), 'policy', () => undefined)).toBeUndefined();
    expect(picker.maybeAsk(now(), 'policy', spread)).toBeDefined();
  });
});
