import { describe, expect, it } from 'vitest';
import { DEFAULT_SAFETY_LIMITS, SafetyFilter, withinSpeedLimits } from './safetyFilter.ts';

const limits = { maxLinearMps: 0.5, maxAngularRadps: 1.5, maxLinearAccelMps2: 1, maxAngularAccelRadps2: 4 };

describe('SafetyFilter', () => {
  it('clamps speed to the limits', () => {
    const safety = new SafetyFilter(limits);
    safety.filter({ linearMps: 0, angularRadps: 0 }, 0);
    let sent = { linearMps: 0, angularRadps: 0 };
    for (let t = 100; t <= 3000; t += 100) sent = safety.filter({ linearMps: 9, angularRadps: -9 }, t);
    expect(sent).toEqual({ linearMps: 0.5, angularRadps: -1.5 });
  });

  it('limits acceleration from rest', () => {
    const safety = new SafetyFilter(limits);
    const first = safety.filter({ linearMps: 0.5, angularRadps: 1.5 }, 0);
    expect(first.linearMps).toBeCloseTo(0.1, 5); // a first command never jumps: one 100 ms step at most
    const safety2 = new SafetyFilter(limits);
    safety2.filter({ linearMps: 0, angularRadps: 0 }, 0);
    const next = safety2.filter({ linearMps: 0.5, angularRadps: 1.5 }, 100);
    expect(next.linearMps).toBeCloseTo(0.1, 5);
    expect(next.angularRadps).toBeCloseTo(0.4, 5);
  });

  it('brakes at once, and reverses only through zero at the acceleration limit', () => {
    const safety = new SafetyFilter(limits);
    safety.filter({ linearMps: 0, angularRadps: 0 }, 0);
    for (let t = 100; t <= 1000; t += 100) safety.filter({ linearMps: 0.5, angularRadps: 0 }, t);
    expect(safety.filter({ linearMps: 0.1, angularRadps: 0 }, 1100).linearMps).toBeCloseTo(0.1, 5);
    expect(safety.filter({ linearMps: -0.5, angularRadps: 0 }, 1200).linearMps).toBeCloseTo(-0.1, 5);
  });

  it('stops at once whatever the speed', () => {
    const safety = new SafetyFilter(limits);
    for (let t = 0; t <= 1000; t += 100) safety.filter({ linearMps: 0.5, angularRadps: 1 }, t);
    expect(safety.stop(1010)).toEqual({ linearMps: 0, angularRadps: 0 });
  });

  it('treats a non-finite request as zero', () => {
    const safety = new SafetyFilter(limits);
    expect(safety.filter({ linearMps: Number.NaN, angularRadps: Number.POSITIVE_INFINITY }, 0)).toEqual({ linearMps: 0, angularRadps: 0 });
  });

  it('lets the operator lower speed limits but never raise them above the hard limits', () => {
    const safety = new SafetyFilter(limits);
    expect(safety.setSpeedLimits(0.2, 0.5)).toEqual({ maxLinearMps: 0.2, maxAngularRadps: 0.5 });
    expect(safety.setSpeedLimits(3, 8)).toEqual({ maxLinearMps: 0.5, maxAngularRadps: 1.5 });
    safety.setSpeedLimits(0.2, 0.5);
    let sent = { linearMps: 0, angularRadps: 0 };
    for (let t = 0; t <= 2000; t += 100) sent = safety.filter({ linearMps: 1, angularRadps: 1 }, t);
    expect(sent).toEqual({ linearMps: 0.2, angularRadps: 0.5 });
  });
});

describe('withinSpeedLimits', () => {
  it('clamps each axis to its limit, both ways, leaves a command within them alone, and reads a value that is not a number as 0', () => {
    expect(withinSpeedLimits({ linearMps: 0.6, angularRadps: -2 }, DEFAULT_SAFETY_LIMITS)).toEqual({ linearMps: 0.5, angularRadps: -1.5 });
    expect(withinSpeedLimits({ linearMps: -0.3, angularRadps: 1 }, DEFAULT_SAFETY_LIMITS)).toEqual({ linearMps: -0.3, angularRadps: 1 });
    expect(withinSpeedLimits({ linearMps: Number.NaN, angularRadps: Number.POSITIVE_INFINITY }, DEFAULT_SAFETY_LIMITS)).toEqual({
      linearMps: 0,
      angularRadps: 0,
    });
  });
});
