import type { Driver } from '../core/tickReport.ts';
import { describe, expect, it } from 'vitest';
import type { CorrectionRow } from '../memory/corrections.ts';
import { FeedbackLedger, type LedgerTick } from './feedbackLedger.ts';

const EPISODE = 'sim-episode';
const PERIOD_MS = 100;

/** A ledger on a hand-driven clock, with a helper that ticks it through a sequence of drivers. */
function ledgerWith(options: ConstructorParameters<typeof FeedbackLedger>[0] = {}) {
  let nowMs = 1_000_000;
  let step = 0;
  const ledger = new FeedbackLedger({ clock: () => nowMs, ...options });
  const tick = (driver: Driver, autonomy = true): LedgerTick => {
    nowMs += PERIOD_MS;
    const t: LedgerTick = { episodeId: EPISODE, step: step++, timeMs: nowMs, driver, autonomy, drivingVersion: 1 };
    ledger.noteTick(t);
    return t;
  };
  const ticks = (driver: Driver, count: number, autonomy = true) => Array.from({ length: count }, () => tick(driver, autonomy)).at(-1)!;
  return { ledger, tick, ticks, advance: (ms: number) => (nowMs += ms), now: () => nowMs };
}

describe('interventions', () => {
  it('counts a takeover once however long it lasts, with the policy’s ticks before it and the operator’s after', () => {
    const { ledger, ticks } = ledgerWith({ policySegmentTicks: 20 });
    ticks('policy', 30);
    ticks('operator', 15);
    expect(ledger.counts().interventions).toBe(1);
    expect(ledger.interventionActive()).toBe(true);
    ticks('policy', 5);
    expect(ledger.interventionActive()).toBe(false);
    const [intervention] = ledger.signals().interventions;
    expect(intervention).toMatchObject({
      atStep: 30,
      policySegment: { episodeId: EPISODE, startStep: 10, endStep: 29 },
      operatorSegment: { episodeId: EPISODE, startStep: 30, endStep: 44 },
    });
  });

  it('does not count the operator driving with autonomy off, nor driving after an e-stop', () => {
    const { ledger, ticks } = ledgerWith();
    ticks('operator', 10, false);
    ticks('policy', 5);
    ticks('estopped', 3);
    ticks('operator', 5, false);
    expect(ledger.counts().interventions).toBe(0);
  });

  it('writes one intervention row when the takeover ends', async () => {
    const rows: CorrectionRow[] = [];
    const { ledger, ticks } = ledgerWith({ sink: async (row) => void rows.push(row) });
    ticks('policy', 3);
    ticks('operator', 4);
    ticks('policy', 1);
    await ledger.flush();
    expect(rows).toEqual([
      expect.objectContaining({ kind: 'intervention', spanStartStep: 3, spanEndStep: 6, otherSpanStartStep: 0, otherSpanEndStep: 2, answeredBy: 'operator' }),
    ]);
  });
});

describe('ratings', () => {
  it('rates the current moment, or a past one by time or step', () => {
    const { ledger, ticks, now } = ledgerWith();
    const current = ticks('policy', 20);
    expect(ledger.rate('good')).toMatchObject({ ok: true, value: { rating: { step: current.step, rating: 1 } } });
    expect(ledger.rate('bad', { atMs: now() - 550 })).toMatchObject({ ok: true, value: { rating: { step: 13, rating: -1 } } });
    expect(ledger.rate('bad', { step: 4 })).toMatchObject({ ok: true, value: { rating: { step: 4 } } });
    expect(ledger.signals().ratings).toHaveLength(3);
  });

  it('refuses a future moment, one it no longer keeps, and a rating before any tick', () => {
    const empty = ledgerWith().ledger;
    expect(empty.rate('good')).toEqual({ ok: false, message: expect.stringMatching(/not ticked/) });
    const { ledger, ticks, now } = ledgerWith({ keptTicks: 10 });
    ticks('policy', 30);
    expect(ledger.rate('good', { atMs: now() + 5000 })).toEqual({ ok: false, message: expect.stringMatching(/future/) });
    expect(ledger.rate('good', { step: 99 })).toEqual({ ok: false, message: expect.stringMatching(/not happened yet/) });
    expect(ledger.rate('good', { atMs: now() - 60_000 })).toEqual({ ok: false, message: expect.stringMatching(/older than this session keeps/) });
    expect(ledger.rate('good', { step: 2 })).toEqual({ ok: false, message: expect.stringMatching(/no longer|not a moment/) });
    expect(ledger.counts().ratings).toBe(0);
  });

  it('refuses a flood of ratings with a message, keeping a short burst', () => {
    const { ledger, ticks, advance } = ledgerWith({ ratingsPerSec: 4, ratingBurst: 6 });
    ticks('policy', 5);
    const results = Array.from({ length: 100 }, () => ledger.rate('good'));
    expect(results.filter((result) => result.ok)).toHaveLength(6);
    expect(results.at(-1)).toEqual({ ok: false, message: 'Ratings are coming faster than 4 a second — ignored' });
    advance(1000);
    expect(ledger.rate('bad').ok).toBe(true);
  });
});

describe('undo', () => {
  it('withdraws the last rating or answer, never an intervention, and says when there is nothing', async () => {
    const rows: CorrectionRow[] = [];
    const { ledger, ticks } = ledgerWith({ sink: async (row) => void rows.push(row) });
    ticks('policy', 60);
    ticks('operator', 3);
    ticks('policy', 2);
    const first = { episodeId: EPISODE, startStep: 0, endStep: 24 };
    const second = { episodeId: EPISODE, startStep: 25, endStep: 49 };
    ledger.rate('good');
    ledger.answer(first, second, 'first', 'q1');
    expect(ledger.undo()).toMatchObject({ ok: true, message: 'Undid your last answer' });
    expect(ledger.undo()).toMatchObject({ ok: true, message: expect.stringMatching(/Undid the good rating/) });
    expect(ledger.undo()).toEqual({ ok: false, message: expect.stringMatching(/Nothing to undo/) });
    expect(ledger.signals()).toMatchObject({ preferences: [], ratings: [], interventions: [expect.anything()] });
    await ledger.flush();
    expect(rows.map((row) => row.kind)).toEqual(['intervention', 'rating', 'preference', 'undo', 'undo']);
    expect(rows[3]!.undoesCorrectionId).toBe(rows[2]!.correctionId);
  });
});

describe('preference answers', () => {
  const first = { episodeId: EPISODE, startStep: 0, endStep: 9 };
  const second = { episodeId: EPISODE, startStep: 10, endStep: 19 };

  it('lets a later contradictory answer replace the earlier one, and says so', () => {
    const { ledger, ticks } = ledgerWith();
    ticks('policy', 25);
    expect(ledger.answer(first, second, 'first', 'q1').ok).toBe(true);
    const later = ledger.answer(second, first, 'first', 'q2');
    expect(later).toMatchObject({ ok: true, message: expect.stringMatching(/contradicts your earlier answer/) });
    expect(ledger.signals().preferences).toEqual([expect.objectContaining({ first: second, second: first, answer: 'first' })]);
  });

  it('records a skip for the record but teaches nothing', async () => {
    const rows: CorrectionRow[] = [];
    const { ledger, ticks } = ledgerWith({ sink: async (row) => void rows.push(row) });
    ticks('policy', 25);
    expect(ledger.answer(first, second, 'unsure', 'q1')).toMatchObject({ ok: true, message: expect.stringMatching(/Skipped/) });
    await ledger.flush();
    expect(ledger.signals().preferences).toEqual([]);
    expect(rows).toEqual([expect.objectContaining({ kind: 'preference', answer: 'unsure', question: 'q1' })]);
  });

  it('refuses an answer whose clip ticks are gone', () => {
    const { ledger, ticks } = ledgerWith({ keptTicks: 10 });
    ticks('policy', 40);
    expect(ledger.answer(first, second, 'first', 'q1')).toEqual({ ok: false, message: expect.stringMatching(/no longer kept/) });
  });
});

describe('a failing memory', () => {
  it('keeps the signal and raises an alert instead of throwing', async () => {
    const { ledger, ticks } = ledgerWith({ sink: () => Promise.reject(new Error('disk full')) });
    ticks('policy', 5);
    expect(ledger.rate('good').ok).toBe(true);
    await ledger.flush();
    expect(ledger.signals().ratings).toHaveLength(1);
    expect(ledger.alerts()).toEqual([expect.objectContaining({ key: 'feedback-not-saved', message: expect.stringMatching(/disk full/) })]);
  });
});
