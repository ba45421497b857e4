// The soak's two RSS readings: the target's figure (a later peak against one sample at minute 5)
// and the level's growth (per-minute means), on windows made to swing without growing.
import { describe, expect, it } from 'vitest';
import { rssGrowthPercent, rssLevelGrowthPercent } from './soakReport.ts';
import type { SoakOutcome } from './soakRun.ts';
import type { WindowFigures } from './soakWindows.ts';

function windows(count: number, shape: (index: number) => { sample: number; mean: number; peak: number }): Pick<SoakOutcome, 'windows'> {
  return {
    windows: Array.from({ length: count }, (_, i) => {
      const { sample, mean, peak } = shape(i + 1);
      return { index: i + 1, rssMiB: sample, rssMeanMiB: mean, rssPeakMiB: peak } as WindowFigures;
    }),
  };
}

describe('soak RSS readings', () => {
  it('tells a swing within each minute from growth', () => {
    // Every minute swings 650–820 about a level of 700; minute 5's closing sample happens to be low.
    const swinging = windows(30, () => ({ sample: 650, mean: 700, peak: 820 }));
    expect(rssGrowthPercent(swinging as SoakOutcome)).toBeCloseTo(((820 - 650) / 650) * 100, 6);
    expect(rssLevelGrowthPercent(swinging as SoakOutcome)).toBe(0);
  });

  it('reads real growth in both', () => {
    const growing = windows(30, (index) => ({ sample: 700 + index * 4, mean: 700 + index * 4, peak: 710 + index * 4 }));
    expect(rssLevelGrowthPercent(growing as SoakOutcome)).toBeCloseTo(((820 - 720) / 720) * 100, 6);
    expect(rssGrowthPercent(growing as SoakOutcome)).toBeGreaterThan(rssLevelGrowthPercent(growing as SoakOutcome)!);
  });

  it('has nothing to say before the warm-up has passed', () => {
    expect(rssLevelGrowthPercent(windows(1, () => ({ sample: 1, mean: 1, peak: 1 })) as SoakOutcome)).toBeUndefined();
  });
});
