import { describe, expect, it } from 'vitest';
import type { LinkAlert } from '../link.ts';
import { AlertBoard } from './alertBoard.ts';
import { JitteredBackoff } from './backoff.ts';

describe('AlertBoard', () => {
  it('announces a repeating problem once per interval, with a count', () => {
    let nowMs = 0;
    const announced: Array<readonly LinkAlert[]> = [];
    const board = new AlertBoard((alerts) => announced.push(alerts), () => nowMs, 5000);
    const bad = { key: 'decode:/camera', severity: 'warn', message: 'Dropped a message', hint: 'check' } as const;
    for (let i = 0; i < 30; i++, nowMs += 100) board.raiseRepeating(bad);
    expect(announced).toHaveLength(1);
    nowMs = 5000;
    board.raiseRepeating(bad);
    expect(announced).toHaveLength(2);
    expect(board.all()[0]!.message).toBe('Dropped a message (31 times)');
    board.clearIfQuiet(bad.key);
    expect(board.has(bad.key)).toBe(true);
    nowMs = 10_001;
    board.clearIfQuiet(bad.key);
    expect(board.all()).toEqual([]);
  });

  it('announces a keyed alert only when it changes', () => {
    const announced: Array<readonly LinkAlert[]> = [];
    const board = new AlertBoard((alerts) => announced.push(alerts), () => 0, 5000);
    board.raise({ key: 'connection', severity: 'warn', message: 'lost' });
    board.raise({ key: 'connection', severity: 'warn', message: 'lost' });
    board.raise({ key: 'connection', severity: 'warn', message: 'lost again' });
    board.clear('connection');
    board.clear('connection');
    expect(announced.map((alerts) => alerts.map((alert) => alert.message))).toEqual([['lost'], ['lost again'], []]);
  });
});

describe('JitteredBackoff', () => {
  it('doubles from 250 ms to 5 s, shortened by at most 20%, and starts over after a success', () => {
    const longest = new JitteredBackoff(undefined, () => 0);
    expect(Array.from({ length: 7 }, () => longest.nextDelayMs())).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
    longest.reset();
    expect(longest.nextDelayMs()).toBe(250);
    const shortest = new JitteredBackoff(undefined, () => 1);
    expect(shortest.nextDelayMs()).toBe(200);
  });
});
