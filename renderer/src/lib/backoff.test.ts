import { describe, expect, it } from 'vitest';
import { ReconnectBackoff } from './backoff.ts';

describe('ReconnectBackoff', () => {
  it('starts at 250 ms and doubles up to a 5 s ceiling', () => {
    const backoff = new ReconnectBackoff();
    const delays = Array.from({ length: 8 }, () => backoff.nextDelayMs());
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
    expect(backoff.failures).toBe(8);
  });

  it('starts again from 250 ms after a reset', () => {
    const backoff = new ReconnectBackoff();
    backoff.nextDelayMs();
    backoff.nextDelayMs();
    backoff.reset();
    expect(backoff.nextDelayMs()).toBe(250);
  });

  it('follows a custom policy', () => {
    const backoff = new ReconnectBackoff({ initialMs: 100, maxMs: 250, factor: 3 });
    expect([backoff.nextDelayMs(), backoff.nextDelayMs(), backoff.nextDelayMs()]).toEqual([100, 250, 250]);
  });
});
