// The packed moment: every field back as written (absent ones absent, a log time past 2^53 exact, the
// surprise as its 32-bit column holds it), and text that is not one refused with what is wrong.
import { describe, expect, it } from 'vitest';
import { packMoment, unpackMoment, type MomentFields } from './tickMoment.ts';

describe('a packed moment', () => {
  it('unpacks to the fields packed', () => {
    const full: MomentFields = {
      episodeId: 'ep "1", ✓',
      step: 41,
      timeMs: 1_700_000_000_123.5,
      actedBy: 'operator',
      surpriseNats: 0.1,
      mcapFile: 'session [2].mcap',
      mcapLogTimeNs: 2n ** 62n + 1n,
    };
    expect(unpackMoment(packMoment(full))).toEqual({ ...full, surpriseNats: Math.fround(0.1) });
    const bare: MomentFields = { ...full, surpriseNats: undefined, mcapFile: undefined, mcapLogTimeNs: undefined };
    expect(unpackMoment(packMoment(bare))).toEqual(bare);
  });

  it('refuses text that is not one, saying why', () => {
    expect(() => unpackMoment('{')).toThrow(/not JSON/);
    expect(() => unpackMoment('["ep", 1]')).toThrow(/not 7 fields/);
    expect(() => unpackMoment('["ep", "1", 2, "policy", null, null, null]')).toThrow(/bad step/);
    expect(() => unpackMoment('["ep", 1, 2, "nobody", null, null, null]')).toThrow(/bad actedBy/);
    expect(() => unpackMoment('["ep", 1, 2, "policy", null, null, "12x"]')).toThrow(/bad mcapLogTimeNs/);
    expect(() => unpackMoment('["ep", 1, 2, "policy", "much", null, null]')).toThrow(/bad surpriseNats/);
  });
});
