import { describe, expect, it } from 'vitest';
import { calibrateThreshold, eventRecall, falseAlarmsPerMinute, normalAlarmOnsets, type ShownSeries } from './surpriseAlarms.ts';
import type { EventLabel } from './worldModelEvents.ts';

const normal = (shown: number[]): ShownSeries => ({ shown, labels: shown.map((): EventLabel => 'normal') });

describe('surprise alarms', () => {
  it('counts an alarm once at its onset, however long it is held', () => {
    expect(normalAlarmOnsets(normal([1, 4, 4, 4, 1, 1, 5, 1]), 3)).toEqual({ onsets: 2, normalTicks: 8 });
    expect(normalAlarmOnsets(normal([3, 3, 2.9, 3]), 3)).toEqual({ onsets: 2, normalTicks: 4 });
  });

  it('does not count an alarm that began in an event or an excluded tick as a false one', () => {
    const series: ShownSeries = { shown: [1, 5, 5, 5, 1, 6], labels: ['normal', 'shove', 'excluded', 'normal', 'normal', 'normal'] };
    expect(normalAlarmOnsets(series, 3)).toEqual({ onsets: 1, normalTicks: 4 });
  });

  it('gives false alarms a minute of normal driving over all segments', () => {
    // 2 onsets in 1200 normal ticks at 600 ticks a minute: 1 a minute.
    const one = normal(Array.from({ length: 600 }, (_, tick) => (tick === 100 ? 9 : 1)));
    expect(falseAlarmsPerMinute([one, one], 3, 600)).toBeCloseTo(1);
    expect(falseAlarmsPerMinute([one, one], 10, 600)).toBe(0);
    expect(() => falseAlarmsPerMinute([{ shown: [9], labels: ['excluded'] }], 3, 600)).toThrow(/no normal ticks/);
  });

  it('recalls an event when any tick of its window reaches the threshold, each run of its label one event', () => {
    const series: ShownSeries = {
      shown: [1, 1, 4, 1, 1, 1, 2, 2, 1, 1],
      labels: ['normal', 'shove', 'shove', 'excluded', 'normal', 'obstacle', 'obstacle', 'normal', 'shove', 'shove'],
    };
    expect(eventRecall([series], 'shove', 3)).toEqual({ events: 2, recalled: 1 });
    expect(eventRecall([series], 'obstacle', 3)).toEqual({ events: 1, recalled: 0 });
    expect(eventRecall([series], 'obstacle', 2)).toEqual({ events: 1, recalled: 1 });
  });

  it('lowers the threshold from above until false alarms would exceed the rate', () => {
    // One minute of normal driving with spikes of 2, 4, 6 and 8: at most 2 a minute allows 6.
    const shown = Array.from({ length: 600 }, () => 1);
    [2, 4, 6, 8].forEach((value, index) => (shown[100 + index * 100] = value));
    const segments = [normal(shown)];
    expect(calibrateThreshold(segments, 2, 600)).toBe(6);
    expect(calibrateThreshold(segments, 3, 600)).toBe(4);
    // Four allowed: down to the usual level, where the whole minute is one alarm, never below it.
    expect(calibrateThreshold(segments, 4, 600)).toBe(1);
    // None allowed: just above the highest normal tick.
    const none = calibrateThreshold(segments, 0, 600);
    expect(none).toBeGreaterThan(8);
    expect(falseAlarmsPerMinute(segments, none, 600)).toBe(0);
  });

  it('refuses what it cannot score', () => {
    expect(() => normalAlarmOnsets({ shown: [1, 2], labels: ['normal'] }, 3)).toThrow(/2 shown values but 1 labels/);
    expect(() => calibrateThreshold([{ shown: [1], labels: ['excluded'] }], 1, 600)).toThrow(/no normal ticks/);
    expect(() => calibrateThreshold([normal([1])], Number.NaN, 600)).toThrow(/alarmsPerMinute/);
  });
});
