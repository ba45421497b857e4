import { describe, expect, it } from 'vitest';
import { SurpriseMeter } from './surpriseMeter.ts';

describe('SurpriseMeter', () => {
  it('holds a one-tick spike for the hold time, then falls to what came after', () => {
    const meter = new SurpriseMeter(1000);
    const shown = [0.1, 5, 0.2, 0.3, 0.1].map((value, tick) => meter.update(value, tick * 100));
    expect(shown).toEqual([0.1, 5, 5, 5, 5]);
    expect(meter.update(0.2, 1100)).toBe(5);
    expect(meter.update(0.2, 1200)).toBe(0.3);
    expect(meter.update(0.1, 1400)).toBe(0.2);
  });

  it('ignores values that are not finite and starts again after a reset', () => {
    const meter = new SurpriseMeter(500);
    expect(meter.update(Number.NaN, 0)).toBe(0);
    expect(meter.update(2, 100)).toBe(2);
    meter.reset();
    expect(meter.update(1, 200)).toBe(1);
    expect(() => new SurpriseMeter(-1)).toThrow(RangeError);
  });
});
