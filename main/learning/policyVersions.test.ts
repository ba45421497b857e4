import { describe, expect, it } from 'vitest';
import type { Policy } from './policy.ts';
import { PolicyVersions } from './policyVersions.ts';

const policy = (version: string): Policy => ({ version, act: () => ({ linearMps: 0, angularRadps: 0 }) });
const trainedOn = { interventions: 1, preferences: 0, ratings: 0, operatorTicks: 10 };

describe('PolicyVersions', () => {
  it('numbers candidates after v1 and lets auto-promote drive them, unless held', () => {
    const versions = new PolicyVersions(policy('base'), { autoPromote: true });
    const driven: number[] = [];
    versions.onDrivingChange((version) => driven.push(version.number));
    expect(versions.add({ policy: policy('a'), trainedOn })).toMatchObject({ version: { number: 2 }, promoted: true });
    versions.hold(true);
    expect(versions.add({ policy: policy('b'), trainedOn })).toMatchObject({ version: { number: 3 }, promoted: false });
    expect(versions.driving().number).toBe(2);
    expect(driven).toEqual([2]);
  });

  it('changes the driving version only on promote without auto-promote, and rolls back to the one before', () => {
    const versions = new PolicyVersions(policy('base'));
    versions.add({ policy: policy('a'), trainedOn });
    versions.add({ policy: policy('b'), trainedOn });
    expect(versions.driving().number).toBe(1);
    expect(versions.promote(3)).toMatchObject({ ok: true });
    expect(versions.promote(9)).toEqual({ ok: false, message: expect.stringMatching(/no version 9/) });
    expect(versions.rollback()).toEqual({ ok: true, message: 'Rolled back from v3 to v1' });
    expect(versions.rollback()).toMatchObject({ ok: false, message: expect.stringMatching(/Nothing to roll back/) });
  });

  it('refuses version changes while held', () => {
    const versions = new PolicyVersions(policy('base'));
    versions.add({ policy: policy('a'), trainedOn });
    versions.hold(true);
    expect(versions.promote(2)).toMatchObject({ ok: false, message: expect.stringMatching(/held/) });
    versions.hold(false);
    expect(versions.promote(2).ok).toBe(true);
  });

  it('measures interventions per minute of policy driving once a version has driven long enough', () => {
    const versions = new PolicyVersions(policy('base'), { minDrivingSecsForRate: 10 });
    const v1 = versions.driving();
    for (let timeMs = 0; timeMs <= 5_000; timeMs += 100) versions.noteTick(timeMs, true, 1);
    versions.noteIntervention(1);
    expect(versions.interventionRatePerMin(v1)).toBeUndefined();
    // Operator driving does not count as the policy's time.
    for (let timeMs = 5_100; timeMs <= 60_000; timeMs += 100) versions.noteTick(timeMs, false, 1);
    for (let timeMs = 60_100; timeMs <= 65_000; timeMs += 100) versions.noteTick(timeMs, true, 1);
    expect(versions.interventionRatePerMin(v1)).toBeCloseTo(6, 0);
    versions.noteRating(1, 1);
    versions.noteRating(1, -1);
    versions.noteRating(1, -1, true);
    expect(v1).toMatchObject({ good: 1, bad: 0 });
  });
});
