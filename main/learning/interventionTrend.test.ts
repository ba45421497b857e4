import type { Policy } from '../core/policy.ts';
import { describe, expect, it } from 'vitest';
import { InterventionTrend, stretchRatePerMin } from './interventionTrend.ts';
import { PolicyVersions } from './policyVersions.ts';

const policy = (version: string): Policy => ({ version, act: () => ({ linearMps: 0, angularRadps: 0 }) });
const trainedOn = { interventions: 1, preferences: 0, ratings: 0, operatorTicks: 10 };

describe('InterventionTrend', () => {
  it('cuts driving time into equal stretches, each with its interventions and the versions that drove it', () => {
    const trend = new InterventionTrend({ stretchSecs: 10 });
    trend.noteIntervention(2);
    trend.noteIntervention(2);
    for (let i = 0; i < 50; i++) trend.noteDriving(100, 2);
    for (let i = 0; i < 50; i++) trend.noteDriving(100, 3);
    expect(trend.stretches()).toEqual([{ firstVersion: 2, lastVersion: 3, drivingMs: 10_000, interventions: 2 }]);
    trend.noteIntervention(4);
    for (let i = 0; i < 99; i++) trend.noteDriving(100, 4);
    // Not yet ten seconds: the stretch under way is not shown.
    expect(trend.stretches()).toHaveLength(1);
    trend.noteDriving(100, 4);
    expect(trend.stretches().map(stretchRatePerMin)).toEqual([12, 6]);
    expect(trend.stretches()[1]).toMatchObject({ firstVersion: 4, lastVersion: 4 });
  });

  it('carries driving time past a stretch’s end into the next, so stretches are equal', () => {
    const trend = new InterventionTrend({ stretchSecs: 1 });
    trend.noteDriving(900, 1);
    trend.noteDriving(2300, 2);
    expect(trend.stretches()).toEqual([
      { firstVersion: 1, lastVersion: 2, drivingMs: 1000, interventions: 0 },
      { firstVersion: 2, lastVersion: 2, drivingMs: 1000, interventions: 0 },
      { firstVersion: 2, lastVersion: 2, drivingMs: 1000, interventions: 0 },
    ]);
    trend.noteDriving(Number.NaN, 3);
    trend.noteDriving(-5, 3);
    trend.noteDriving(700, 3);
    expect(trend.stretches()).toHaveLength(3);
    trend.noteDriving(100, 3);
    expect(trend.stretches()).toHaveLength(4);
    expect(trend.stretches()[3]).toEqual({ firstVersion: 2, lastVersion: 3, drivingMs: 1000, interventions: 0 });
  });

  it('keeps only the newest stretches, and refuses settings that make no sense', () => {
    const trend = new InterventionTrend({ stretchSecs: 1, keep: 3 });
    for (let version = 1; version <= 5; version++) trend.noteDriving(1000, version);
    expect(trend.stretches().map((stretch) => stretch.firstVersion)).toEqual([3, 4, 5]);
    expect(() => new InterventionTrend({ stretchSecs: 0 })).toThrow(/positive number of seconds/);
    expect(() => new InterventionTrend({ stretchSecs: Number.NaN })).toThrow(/positive number of seconds/);
    expect(() => new InterventionTrend({ keep: 0 })).toThrow(/whole number/);
  });

  it('is fed by the versions: driving time from ticks, a takeover from the version that drove', () => {
    const versions = new PolicyVersions(policy('base'), { autoPromote: true, trend: { stretchSecs: 2 } });
    let timeMs = 0;
    const drive = (secs: number) => {
      for (let i = 0; i < secs * 10; i++) versions.noteTick((timeMs += 100), true, versions.driving().number);
    };
    versions.noteTick(timeMs, true, 1);
    versions.noteIntervention(1);
    versions.noteIntervention(1);
    drive(2);
    versions.add({ policy: policy('a'), trainedOn });
    versions.noteIntervention(2);
    // The operator's own driving is not the policy's: it adds nothing to a stretch.
    for (let i = 0; i < 30; i++) versions.noteTick((timeMs += 100), false, 2);
    drive(2);
    versions.add({ policy: policy('b'), trainedOn });
    drive(2);
    expect(versions.trend.stretches().map((stretch) => [stretch.firstVersion, stretch.lastVersion, stretchRatePerMin(stretch)])).toEqual([
      [1, 1, 60],
      [2, 2, 30],
      [3, 3, 0],
    ]);
  });
});
