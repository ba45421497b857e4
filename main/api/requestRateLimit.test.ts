import { describe, expect, it } from 'vitest';
import { RequestRateLimit } from './requestRateLimit.ts';

describe('RequestRateLimit', () => {
  it('lets a burst through, then refills at the sustained rate', () => {
    let nowMs = 0;
    const limit = new RequestRateLimit({ perSecond: 10, burst: 5 }, () => nowMs);
    expect(Array.from({ length: 7 }, () => limit.take())).toEqual([true, true, true, true, true, false, false]);
    nowMs += 100; // one token back
    expect([limit.take(), limit.take()]).toEqual([true, false]);
    nowMs += 10_000; // never more than the burst
    expect(Array.from({ length: 6 }, () => limit.take()).filter(Boolean)).toHaveLength(5);
  });

  it('says so at most once a second, counting what it refused meanwhile', () => {
    let nowMs = 0;
    const limit = new RequestRateLimit({ perSecond: 1, burst: 1 }, () => nowMs);
    limit.take();
    limit.take();
    expect(limit.refusalToTell()).toMatch(/at most 1 a second \(1 refused\)/);
    limit.take();
    limit.take();
    expect(limit.refusalToTell()).toBeUndefined();
    nowMs += 1000;
    limit.take();
    limit.take();
    expect(limit.refusalToTell()).toMatch(/\(3 refused\)/);
  });
});
