import type { Policy } from '../core/policy.ts';
import { describe, expect, it } from 'vitest';
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

  it('keeps auto-promote from a candidate the promotion gate refused or blocked; the operator can still promote it', () => {
    const versions = new PolicyVersions(policy('base'), { autoPromote: true });
    const refused = { verdict: 'refuse' as const, reason: 'possibly worse' };
    expect(versions.add({ policy: policy('a'), trainedOn, evaluation: refused })).toMatchObject({
      version: { number: 2, evaluation: refused },
      promoted: false,
    });
    expect(versions.add({ policy: policy('b'), trainedOn, evaluation: { verdict: 'blocked', reason: 'diverged' } })).toMatchObject({ promoted: false });
    expect(versions.driving().number).toBe(1);
    expect(versions.add({ policy: policy('c'), trainedOn, evaluation: { verdict: 'promote', reason: 'not worse' } })).toMatchObject({ promoted: true });
    expect(versions.promote(2)).toMatchObject({ ok: true });
    expect(versions.driving().number).toBe(2);
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

  it('keeps weights only for versions that can still drive, and releases the rest', () => {
    const disposed: string[] = [];
    const weighted = (version: string): Policy & { dispose(): void } => ({ ...policy(version), dispose: () => disposed.push(version) });
    const versions = new PolicyVersions(policy('base'), { autoPromote: true, keepPolicies: 3 });
    for (let n = 2; n <= 10; n++) versions.add({ policy: weighted(`learned-${n}`), trainedOn });

    // v1, the newest three (8–10, 10 driving) and three roll-back steps (9, 8, 7) keep theirs.
    expect(
      versions
        .all()
        .filter((version) => version.policy !== undefined)
        .map((version) => version.number),
    ).toEqual([1, 7, 8, 9, 10]);
    expect(disposed).toEqual(['learned-2', 'learned-3', 'learned-4', 'learned-5', 'learned-6']);
    expect(versions.get(4)).toMatchObject({ name: 'learned-4', policy: undefined });
    versions.setAutoPromote(false);
    expect(versions.promote(4)).toEqual({
      ok: false,
      message: 'v4 is no longer kept: only the newest 3 versions, the last 3 roll-back steps and v1 can drive',
    });
    expect(versions.driving().number).toBe(10);

    expect(versions.rollback()).toEqual({ ok: true, message: 'Rolled back from v10 to v9' });
    expect(versions.rollback()).toEqual({ ok: true, message: 'Rolled back from v9 to v8' });
    expect(versions.rollback()).toEqual({ ok: true, message: 'Rolled back from v8 to v7' });
    expect(versions.rollback()).toMatchObject({ ok: false, message: expect.stringMatching(/Nothing to roll back/) });
    expect(versions.promote(1)).toEqual({ ok: true, message: 'v1 drives now' });
  });

  it('refuses a keep count that is not a whole number ≥ 1', () => {
    expect(() => new PolicyVersions(policy('base'), { keepPolicies: 0 })).toThrow(/keepPolicies/);
  });
});
