import { describe, it, expect } from 'vitest';
import { RateSchedule } from './schedule.ts';

describe('RateSchedule', () => {
  it('fires exactly rate times per second when stepped at 100 Hz', () => {
    for (const rateHz of [15, 10, 50, 100, 7]) {
      const schedule = new RateSchedule(rateHz);
      let fired = 0;
      for (let tick = 1; tick <= 300; tick++) if (schedule.takeDue(tick * 0.01)) fired++;
      expect(fired, `${rateHz} Hz`).toBe(rateHz * 3);
    }
  });

  it('rejects a rate that is not a positive number', () => {
    expect(() => new RateSchedule(0)).toThrow(RangeError);
    expect(() => new RateSchedule(Number.NaN)).toThrow(RangeError);
  });
});
