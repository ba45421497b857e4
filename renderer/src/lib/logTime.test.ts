import { describe, expect, it } from 'vitest';
import { formatClockTime, formatLogOffset, shortLogName } from './logTime.ts';

describe('log times', () => {
  it('shows a moment as the local time of day, to a tenth of a second', () => {
    expect(formatClockTime(new Date(2025, 4, 6, 12, 3, 4, 230).getTime())).toBe('12:03:04.2');
    expect(formatClockTime(new Date(2025, 4, 6, 7, 0, 0, 0).getTime())).toBe('07:00:00.0');
  });

  it('rounds to the tenth without ever printing a hundredth', () => {
    expect(formatClockTime(new Date(2025, 4, 6, 12, 3, 4, 960).getTime())).toBe('12:03:05.0');
    expect(formatLogOffset(59_960)).toBe('1:00.0');
  });

  it('shows how far into the log a moment lies', () => {
    expect(formatLogOffset(0)).toBe('0:00.0');
    expect(formatLogOffset(31_420)).toBe('0:31.4');
    expect(formatLogOffset(725_000)).toBe('12:05.0');
    expect(formatLogOffset(3_723_000)).toBe('1:02:03.0');
    expect(formatLogOffset(-1500)).toBe('-0:01.5');
    expect(formatLogOffset(-20)).toBe('0:00.0');
  });

  it('shows a dash for a time it does not have', () => {
    expect(formatClockTime(Number.NaN)).toBe('—');
    expect(formatLogOffset(Number.POSITIVE_INFINITY)).toBe('—');
  });

  it('cuts a long log name in the middle, keeping when it was recorded', () => {
    expect(shortLogName('short.mcap', 20)).toBe('short.mcap');
    const cut = shortLogName('reins-reins-sim-2026-11-21T22-09-07-443Z.mcap', 30);
    expect(cut).toHaveLength(30);
    expect(cut).toBe('reins-reins…22-09-07-443Z.mcap');
  });
});
