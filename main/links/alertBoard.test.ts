import type { CoreAlert } from '../core/alert.ts';
import { describe, expect, it } from 'vitest';
import { AlertBoard, repeatingAlert } from './alertBoard.ts';

function board(options: { minUpdateIntervalMs?: number; clearAfterQuietMs?: number } = {}) {
  let nowMs = 0;
  const announced: Array<readonly CoreAlert[]> = [];
  const alerts = new AlertBoard((list) => announced.push(list), { ...options, nowMs: () => nowMs });
  return { alerts, announced, at: (ms: number) => (nowMs = ms) };
}

const messages = (list: readonly CoreAlert[]) => list.map((alert) => alert.message);

describe('AlertBoard', () => {
  it('announces a standing alert only when it changes', () => {
    const { alerts, announced } = board();
    alerts.raise({ key: 'connection', severity: 'warn', message: 'lost' });
    alerts.raise({ key: 'connection', severity: 'warn', message: 'lost' });
    alerts.raise({ key: 'connection', severity: 'warn', message: 'lost again' });
    alerts.clear('connection');
    alerts.clear('connection');
    expect(announced.map(messages)).toEqual([['lost'], ['lost again'], []]);
  });

  it('keys a burst of events into one alert whose count is announced at most once per interval', () => {
    const { alerts, announced, at } = board({ minUpdateIntervalMs: 1000, clearAfterQuietMs: 10_000 });
    const describe = (count: number): CoreAlert => ({ key: 'ignored', severity: 'warn', message: `${count} bad` });
    for (let i = 0; i < 50; i++) alerts.count({ key: 'crc', describe });
    // The list shows the count as it grows; listeners hear of it once per interval.
    expect(alerts.list()).toEqual([{ key: 'crc', severity: 'warn', message: '50 bad' }]);
    expect(announced.map(messages)).toEqual([['1 bad']]);
    at(999);
    alerts.sweep();
    expect(announced).toHaveLength(1);
    at(1000);
    alerts.sweep();
    alerts.sweep();
    expect(announced.map(messages)).toEqual([['1 bad'], ['50 bad']]);
    at(11_000);
    alerts.sweep();
    expect(alerts.list()).toEqual([]);
  });

  it('counts a repeating problem with its own wording, and clears it once quiet', () => {
    const { alerts, announced, at } = board({ minUpdateIntervalMs: 5000, clearAfterQuietMs: 5000 });
    const bad = repeatingAlert({ key: 'decode:/camera', severity: 'warn', message: 'Dropped a message', hint: 'check' });
    for (let ms = 0; ms < 3000; ms += 100) {
      at(ms);
      alerts.count(bad);
    }
    expect(announced.map(messages)).toEqual([['Dropped a message']]);
    expect(messages(alerts.list())).toEqual(['Dropped a message (30 times)']);
    at(5000);
    alerts.count(bad);
    expect(alerts.list()).toEqual([{ key: 'decode:/camera', severity: 'warn', message: 'Dropped a message (31 times)', hint: 'check' }]);
    alerts.clearIfQuiet(bad.key);
    expect(alerts.has(bad.key)).toBe(true);
    at(10_000);
    alerts.clearIfQuiet(bad.key);
    expect(alerts.list()).toEqual([]);
  });
});
