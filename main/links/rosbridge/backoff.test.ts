import { describe, expect, it } from 'vitest';
import { JitteredBackoff } from './backoff.ts';

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
