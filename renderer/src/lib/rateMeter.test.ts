import { describe, expect, it } from 'vitest';
import { RateMeter } from './rateMeter.ts';

describe('RateMeter', () => {
  it('measures a steady 15 fps stream', () => {
    const meter = new RateMeter();
    for (let i = 0; i <= 30; i++) meter.record((i * 1000) / 15);
    expect(meter.rateHz(2000)).toBeCloseTo(15, 5);
  });

  it('reads 0 before two frames and after the stream stops', () => {
    const meter = new RateMeter();
    expect(meter.rateHz(0)).toBe(0);
    meter.record(0);
    expect(meter.rateHz(10)).toBe(0);
    meter.record(100);
    expect(meter.rateHz(100)).toBeCloseTo(10, 5);
    expect(meter.rateHz(1200)).toBe(0);
  });
});
