import { describe, expect, it } from 'vitest';
import { rosFieldsJson } from './rosFieldsJson.ts';

describe('rosFieldsJson', () => {
  it('writes what JSON.stringify writes for plain fields', () => {
    const fields = {
      data: 'quote " and \\ and ünïcode\n',
      nested: { list: [1, -0, 2.5e-7, 1e21, true, null, undefined, 'x'], empty: {}, none: [] },
      skipped: undefined,
      header: { stamp: { secs: 1_700_000_000, nsecs: 5 }, frame_id: 'map' },
    };
    expect(JSON.parse(rosFieldsJson(fields))).toEqual(JSON.parse(JSON.stringify(fields)));
    expect(rosFieldsJson(fields)).toBe(JSON.stringify(fields));
  });

  it('writes typed arrays as arrays (non-finite as null), bigints as numbers where exact and as decimal strings beyond', () => {
    const text = rosFieldsJson({
      cells: new Int8Array([0, 100, -1]),
      bytes: Buffer.from([1, 2]),
      ranges: new Float32Array([0.5, Number.NaN, Number.NEGATIVE_INFINITY]),
      wide: new Float64Array([0.1]),
      counts: new BigInt64Array([-3n, 2n ** 62n]),
      exact: 2n ** 53n - 1n,
      beyond: -(2n ** 53n),
    });
    expect(JSON.parse(text)).toEqual({
      cells: [0, 100, -1],
      bytes: [1, 2],
      ranges: [0.5, null, null],
      wide: [0.1],
      counts: [-3, '4611686018427387904'],
      exact: 9007199254740991,
      beyond: '-9007199254740992',
    });
  });
});
