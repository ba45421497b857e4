// When the slow path retrains: soon after start, then each period only if something new was taught,
// and when the operator asks (joining a retrain in progress); what it did is kept in words.
import { describe, expect, it, vi } from 'vitest';
import { LockstepSchedule } from '../core/runtime/schedule.ts';
import type { RetrainOutcome } from './policyImprover.ts';
import { SlowPath } from './slowPath.ts';

const DONE: RetrainOutcome = {
  ok: true,
  version: 'learned-7',
  ticks: 1200,
  trainedOn: { interventions: 3, preferences: 2, ratings: 1, operatorTicks: 400, fromMemory: true },
};

describe('SlowPath', () => {
  it('retrains soon after start, then each period only when something new was taught, on the schedule it is given', async () => {
    const retrain = vi.fn(async () => DONE);
    const told: RetrainOutcome[] = [];
    const schedule = new LockstepSchedule(0);
    const slowPath = new SlowPath(retrain, { firstAfterMs: 1000, everyMs: 60_000, schedule, onOutcome: (outcome) => told.push(outcome) });
    slowPath.start();
    await schedule.advanceTo(999);
    expect(retrain).not.toHaveBeenCalled();
    // Lockstep: the retrain due at 1000 ms has finished by the time the clock has moved to it.
    await schedule.advanceTo(1000);
    expect(retrain).toHaveBeenCalledTimes(1);
    expect(told).toEqual([DONE]);
    expect(slowPath.status()).toEqual({
      running: false,
      everySecs: 60,
      last: {
        atMs: 1000,
        ok: true,
        message: "Retrained from memory as learned-7: 1200 ticks, 400 of them the operator's; 3 interventions, 2 answers, 1 rating",
      },
    });
    // Nothing taught since: the period passes without a retrain.
    await schedule.advanceTo(61_000);
    expect(retrain).toHaveBeenCalledTimes(1);
    slowPath.noteNew();
    await schedule.advanceTo(121_000);
    expect(retrain).toHaveBeenCalledTimes(2);
    await slowPath.close();
    slowPath.noteNew();
    await schedule.advanceTo(300_000);
    expect(retrain).toHaveBeenCalledTimes(2);
    expect(schedule.pending()).toBe(0);
  });

  it('runs on the wall clock by default', async () => {
    vi.useFakeTimers();
    try {
      const retrain = vi.fn(async () => DONE);
      const slowPath = new SlowPath(retrain, { firstAfterMs: 1000, everyMs: 60_000 });
      slowPath.start();
      await vi.advanceTimersByTimeAsync(999);
      expect(retrain).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(retrain).toHaveBeenCalledTimes(1);
      await slowPath.close();
    } finally {
      vi.useRealTimers();
    }
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
