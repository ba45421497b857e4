import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { MEMORY_PRESSURE_ALERT_KEY, MemoryBudget, pressureAfter } from './memoryBudget.ts';
import { LockstepSchedule } from './schedule.ts';

const MIB = 1024 * 1024;

/** The collector, reached without starting the process with --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** `mib` of memory the process really holds: allocated and every page written. */
function allocateResident(mib: number): Buffer[] {
  return Array.from({ length: Math.ceil(mib / 16) }, () => Buffer.allocUnsafe(16 * MIB).fill(7));
}

describe('pressureAfter', () => {
  const thresholds = { pressureBytes: 900, reliefBytes: 800 };

  it('comes under pressure at the upper threshold and leaves it only below the lower one', () => {
    expect(pressureAfter(false, 899, thresholds)).toBe(false);
    expect(pressureAfter(false, 900, thresholds)).toBe(true);
    expect(pressureAfter(true, 850, thresholds)).toBe(true);
    expect(pressureAfter(true, 800, thresholds)).toBe(true);
    expect(pressureAfter(true, 799, thresholds)).toBe(false);
    expect(pressureAfter(false, 850, thresholds)).toBe(false);
  });
});

describe('MemoryBudget', () => {
  it('refuses settings that cannot work, naming them', () => {
    const schedule = new LockstepSchedule();
    expect(() => new MemoryBudget({ budgetBytes: 0, schedule })).toThrow(/memory budget must be a positive number/);
    expect(() => new MemoryBudget({ budgetBytes: 1e9, schedule, reliefFraction: 0.95 })).toThrow(/reliefFraction must be above 0 and below pressureFraction/);
    expect(() => new MemoryBudget({ budgetBytes: 1e9, schedule, pressureFraction: 1.5 })).toThrow(/pressureFraction must be in/);
    expect(() => new MemoryBudget({ budgetBytes: 1e9, schedule, sampleEveryMs: 0 })).toThrow(/sampleEveryMs/);
  });

  it('reads the real resident memory on its schedule: pressure and its alert when memory is filled, relief when it is freed', async () => {
    collectGarbage();
    const schedule = new LockstepSchedule(0);
    const startMiB = process.memoryUsage.rss() / MIB;
    // Filled to 90 % by 240 MiB of our own; freed, back under 80 %.
    const budgetMiB = (startMiB + 240) / 0.9;
    const budget = new MemoryBudget({ budgetBytes: budgetMiB * MIB, schedule, sampleEveryMs: 1000 });
    const changes: boolean[] = [];
    budget.onChange((underPressure) => void changes.push(underPressure));
    budget.start();

    await schedule.advanceTo(1000);
    expect(budget.status()).toMatchObject({ underPressure: false, pressureEpisodes: 0 });
    expect(budget.alerts()).toEqual([]);

    let held: Buffer[] | undefined = allocateResident(280);
    // Not read between samples: only the schedule reads it.
    expect(budget.status().underPressure).toBe(false);
    await schedule.advanceTo(2000);
    expect(changes).toEqual([true]);
    expect(budget.status()).toMatchObject({ underPressure: true, pressureEpisodes: 1 });
    expect(budget.status().rssBytes!).toBeGreaterThanOrEqual(budgetMiB * MIB * 0.9);
    const [alert] = budget.alerts();
    expect(alert).toMatchObject({ key: MEMORY_PRESSURE_ALERT_KEY, severity: 'warn' });
    expect(alert!.message).toMatch(/learning is paused/);
    await schedule.advanceTo(3000);
    expect(changes).toEqual([true]);

    expect(held.length).toBeGreaterThan(0);
    held = undefined;
    collectGarbage();
    // The freed blocks go back to the system when the collector's background sweep releases them: read until it has.
    let nowMs = 3000;
    await vi.waitFor(
      async () => {
        nowMs += 1000;
        await schedule.advanceTo(nowMs);
        expect(budget.status().underPressure).toBe(false);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(changes).toEqual([true, false]);
    expect(budget.alerts()).toEqual([]);
    expect(budget.status().rssBytes!).toBeLessThan(budgetMiB * MIB * 0.8);
    await budget.stop();
  });
});
