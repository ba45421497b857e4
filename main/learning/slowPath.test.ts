// When the slow path retrains: soon after start, then each period only if something new was taught,
// and when the operator asks (joining a retrain in progress); what it did is kept in words.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RetrainOutcome } from './policyImprover.ts';
import { SlowPath } from './slowPath.ts';

const DONE: RetrainOutcome = {
  ok: true,
  version: 'learned-7',
  ticks: 1200,
  trainedOn: { interventions: 3, preferences: 2, ratings: 1, operatorTicks: 400, fromMemory: true },
};

describe('SlowPath', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('retrains soon after start, then each period only when something new was taught', async () => {
    const retrain = vi.fn(async () => DONE);
    const told: RetrainOutcome[] = [];
    const slowPath = new SlowPath(retrain, { firstAfterMs: 1000, everyMs: 60_000, clock: () => 5, onOutcome: (outcome) => told.push(outcome) });
    slowPath.start();
    await vi.advanceTimersByTimeAsync(999);
    expect(retrain).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(retrain).toHaveBeenCalledTimes(1);
    expect(told).toEqual([DONE]);
    expect(slowPath.status()).toEqual({
      running: false,
      everySecs: 60,
      last: { atMs: 5, ok: true, message: "Retrained from memory as learned-7: 1200 ticks, 400 of them the operator's; 3 interventions, 2 answers, 1 rating" },
    });
    // Nothing taught since: the period passes without a retrain.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(retrain).toHaveBeenCalledTimes(1);
    slowPath.noteNew();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(retrain).toHaveBeenCalledTimes(2);
    await slowPath.close();
    slowPath.noteNew();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(retrain).toHaveBeenCalledTimes(2);
  });

  it('joins a retrain in progress when asked again, and keeps a failure in words', async () => {
    let finish!: (outcome: RetrainOutcome) => void;
    const retrain = vi.fn(() => new Promise<RetrainOutcome>((resolve) => (finish = resolve)));
    const slowPath = new SlowPath(retrain, { everyMs: 0 });
    const first = slowPath.runNow();
    const second = slowPath.runNow();
    expect(retrain).toHaveBeenCalledTimes(1);
    expect(slowPath.status().running).toBe(true);
    finish({ ok: false, reason: 'the memory holds too few driven ticks', ticks: 12 });
    expect(await first).toEqual(await second);
    expect(slowPath.status()).toMatchObject({
      running: false,
      last: { ok: false, message: 'Retraining from memory gave no version: the memory holds too few driven ticks' },
    });

    retrain.mockImplementationOnce(() => Promise.reject(new Error('memory unreachable')));
    expect(await slowPath.runNow()).toEqual({ ok: false, reason: 'memory unreachable', ticks: 0 });
    expect(slowPath.status().last?.message).toMatch(/memory unreachable/);
    await slowPath.close();
    expect(await slowPath.runNow()).toMatchObject({ ok: false, reason: 'the learning session has closed' });
  });

  it('refuses a pace that is not a finite number ≥ 0', () => {
    expect(() => new SlowPath(async () => DONE, { everyMs: -1 })).toThrow(/everyMs/);
    expect(() => new SlowPath(async () => DONE, { firstAfterMs: Number.NaN })).toThrow(/firstAfterMs/);
  });
});
