// The one clock: a lockstep schedule runs what falls due, in time order, and waits for it before time moves on.
import { describe, expect, it, vi } from 'vitest';
import { LockstepSchedule, wallSchedule } from './schedule.ts';

describe('LockstepSchedule', () => {
  it('runs due work in time order with its clock at the due time, and waits for each before moving on', async () => {
    const schedule = new LockstepSchedule(1000);
    const seen: string[] = [];
    let finished = false;
    schedule.every(500, async () => {
      seen.push(`every@${schedule.now()}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    schedule.after(700, async () => {
      seen.push(`after@${schedule.now()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      finished = true;
    });
    await schedule.advanceTo(1600);
    expect(seen).toEqual(['every@1500']);
    expect(schedule.now()).toBe(1600);
    await schedule.advanceTo(2100);
    expect(seen).toEqual(['every@1500', 'after@1700', 'every@2000']);
    expect(finished).toBe(true);
    expect(schedule.pending()).toBe(1);
  });

  it('runs work that work schedules when it falls due within the same advance; cancelled work never runs', async () => {
    const schedule = new LockstepSchedule();
    const seen: number[] = [];
    schedule.after(100, () => schedule.after(50, () => seen.push(schedule.now())));
    const cancel = schedule.every(10, () => seen.push(-1));
    cancel();
    await schedule.advanceTo(200);
    expect(seen).toEqual([150]);
  });

  it('rejects when due work fails, and refuses time going back or two advances at once', async () => {
    const schedule = new LockstepSchedule(0);
    schedule.after(10, () => Promise.reject(new Error('round failed')));
    await expect(schedule.advanceTo(20)).rejects.toThrow(/round failed/);
    await expect(schedule.advanceTo(5)).rejects.toThrow(/forward only/);
    schedule.after(1, () => new Promise((resolve) => setTimeout(resolve, 5)));
    const first = schedule.advanceTo(30);
    await expect(schedule.advanceTo(40)).rejects.toThrow(/already advancing/);
    await first;
    expect(() => schedule.every(0, () => undefined)).toThrow(/period/);
    expect(() => schedule.after(Number.NaN, () => undefined)).toThrow(/delay/);
  });
});

describe('wallSchedule', () => {
  it('calls work on timers of the wall clock until cancelled', async () => {
    vi.useFakeTimers();
    try {
      const schedule = wallSchedule();
      const work = vi.fn();
      const cancel = schedule.every(100, work);
      await vi.advanceTimersByTimeAsync(250);
      expect(work).toHaveBeenCalledTimes(2);
      cancel();
      await vi.advanceTimersByTimeAsync(500);
      expect(work).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
