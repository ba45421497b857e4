import type { Driver } from '../core/tickReport.ts';
import { describe, expect, it } from 'vitest';
import { RewardDriftWatch } from './rewardDrift.ts';

/** Feeds `ticks` ticks 100 ms apart from `startMs`, all with the same driver and spread. */
function feed(watch: RewardDriftWatch, ticks: number, driver: Driver, spread: number | undefined, taughtSpread: number | undefined, startMs = 0): number {
  for (let i = 0; i < ticks; i++) watch.noteTick({ driver, timeMs: startMs + i * 100, spread, taughtSpread });
  return startMs + ticks * 100;
}

describe('RewardDriftWatch', () => {
  it('warns once the policy has driven a whole window where the spread is far above the taught one, and says since when', () => {
    const watch = new RewardDriftWatch({ windowTicks: 10, warnAboveRatio: 2, clearBelowRatio: 1.5 });
    let atMs = feed(watch, 10, 'policy', 0.1, 0.1);
    expect(watch.state()).toEqual({ recentSpread: expect.closeTo(0.1, 9), taughtSpread: 0.1, drifting: false });
    // Two ticks of unknown ground are not enough (mean 0.18, 1.8×); the third makes it 0.22, 2.2×.
    atMs = feed(watch, 2, 'policy', 0.5, 0.1, atMs);
    expect(watch.state()!.drifting).toBe(false);
    watch.noteTick({ driver: 'policy', timeMs: atMs, spread: 0.5, taughtSpread: 0.1 });
    expect(watch.state()).toMatchObject({ drifting: true, sinceMs: atMs });
    expect(watch.state()!.recentSpread).toBeCloseTo(0.22, 9);
  });

  it('keeps warning between the two ratios and stops below the lower one', () => {
    const watch = new RewardDriftWatch({ windowTicks: 4, warnAboveRatio: 2, clearBelowRatio: 1.5 });
    let atMs = feed(watch, 4, 'policy', 0.3, 0.1);
    expect(watch.state()).toMatchObject({ drifting: true, sinceMs: 300 });
    atMs = feed(watch, 4, 'policy', 0.17, 0.1, atMs);
    expect(watch.state()).toMatchObject({ drifting: true, sinceMs: 300 });
    feed(watch, 4, 'policy', 0.14, 0.1, atMs);
    expect(watch.state()).toEqual({ recentSpread: expect.closeTo(0.14, 9), taughtSpread: 0.1, drifting: false });
  });

  it('says nothing while anyone but the policy drives, and starts afresh when it drives again', () => {
    const watch = new RewardDriftWatch({ windowTicks: 4 });
    let atMs = feed(watch, 4, 'policy', 1, 0.1);
    expect(watch.state()!.drifting).toBe(true);
    for (const driver of ['operator', 'idle', 'estopped'] as const) {
      atMs = feed(watch, 1, driver, 1, 0.1, atMs);
      expect(watch.state()).toBeUndefined();
    }
    atMs = feed(watch, 3, 'policy', 1, 0.1, atMs);
    expect(watch.state()).toMatchObject({ drifting: false });
    feed(watch, 1, 'policy', 1, 0.1, atMs);
    expect(watch.state()).toMatchObject({ drifting: true, sinceMs: atMs });
  });

  it('has nothing to compare before the spread can be measured, or when a figure is not a number', () => {
    const watch = new RewardDriftWatch({ windowTicks: 2 });
    for (const [spread, taught] of [
      [undefined, 0.1],
      [1, undefined],
      [Number.NaN, 0.1],
      [1, 0],
      [1, Number.POSITIVE_INFINITY],
      [-1, 0.1],
    ] as const) {
      feed(watch, 3, 'policy', spread, taught);
      expect(watch.state()).toBeUndefined();
    }
  });

  it('refuses settings that cannot work', () => {
    expect(() => new RewardDriftWatch({ windowTicks: 0 })).toThrow(/whole number of ticks/);
    expect(() => new RewardDriftWatch({ windowTicks: 2.5 })).toThrow(/whole number of ticks/);
    expect(() => new RewardDriftWatch({ warnAboveRatio: 1, clearBelowRatio: 2 })).toThrow(/clearBelowRatio ≤ warnAboveRatio/);
    expect(() => new RewardDriftWatch({ clearBelowRatio: 0 })).toThrow(/0 < clearBelowRatio/);
  });
});
