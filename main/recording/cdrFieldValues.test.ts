import { parse } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg2-serialization';
import { describe, expect, it } from 'vitest';
import { cdrFieldWriter, type CdrFieldWriter } from './cdrFieldValues.ts';

const DEFINITION = `std_msgs/Header header
uint8[] blob
int8[] cells
float64 value
int64 big
uint64[] counts
bool flag
float32[2] pair
string[] names
================================================================================
MSG: std_msgs/Header
builtin_interfaces/Time stamp
string frame_id
================================================================================
MSG: builtin_interfaces/Time
int32 sec
uint32 nanosec
`;

/** A message as rosbridge's ROS 2 JSON carries it: uint8[] as base64, null for nan, numbers for 64-bit integers, bools as 0/1 here and there. */
const JSON_SHAPED = {
  header: { stamp: { sec: 1_700_000_000, nanosec: 5 }, frame_id: 'map' },
  blob: 'AQID',
  cells: [0, 100, -1],
  value: null,
  big: -12,
  counts: [1, 2],
  flag: 1,
  pair: [1.5, 2.5],
  names: ['a', 'b'],
};

function writer(): CdrFieldWriter {
  const writing = cdrFieldWriter(DEFINITION);
  if (!writing.ok) throw new Error(writing.problem);
  return writing.write;
}

const read = (cdr: Uint8Array) => new MessageReader(parse(DEFINITION, { ros2: true })).readMessage(cdr);

describe('cdrFieldWriter', () => {
  it('writes rosbridge’s JSON shapes as the CDR the definition describes', () => {
    const written = writer()(JSON_SHAPED);
    if (!written.ok) throw new Error(written.problem);
    expect(read(written.cdr)).toEqual({
      header: { stamp: { sec: 1_700_000_000, nanosec: 5 }, frame_id: 'map' },
      blob: new Uint8Array([1, 2, 3]),
      cells: new Int8Array([0, 100, -1]),
      value: Number.NaN,
      big: -12n,
      counts: new BigUint64Array([1n, 2n]),
      flag: true,
      pair: new Float32Array([1.5, 2.5]),
      names: ['a', 'b'],
    });
  });

  it('takes CBOR’s typed arrays as they are, and converts one of another element type', () => {
    const cells = new Int8Array([5, 6]);
    const written = writer()({ ...JSON_SHAPED, blob: new Uint8Array([9]), cells, pair: new Float64Array([0.5, 0.25]), counts: new BigUint64Array([3n]) });
    if (!written.ok) throw new Error(written.problem);
    expect(read(written.cdr)).toMatchObject({ blob: new Uint8Array([9]), cells, pair: new Float32Array([0.5, 0.25]), counts: new BigUint64Array([3n]) });
  });

  it.each([
    [{ ...JSON_SHAPED, flag: undefined }, 'msg.flag is undefined, not a bool'],
    [(({ flag: _flag, ...rest }) => rest)(JSON_SHAPED), 'msg.flag is missing'],
    [{ ...JSON_SHAPED, extra: 1 }, 'msg.extra is not in the definition'],
    [{ ...JSON_SHAPED, value: '1.5' }, 'msg.value is string, not a number'],
    [{ ...JSON_SHAPED, cells: [0, 300] }, 'msg.cells[1] is number, not an int8 (-128 to 127)'],
    [{ ...JSON_SHAPED, pair: [1] }, 'msg.pair has 1 elements; the definition fixes 2'],
    [{ ...JSON_SHAPED, header: { ...JSON_SHAPED.header, frame_id: 'käfig' } }, 'msg.header.frame_id is not ASCII, which the CDR writer cannot write whole'],
    [{ ...JSON_SHAPED, header: { stamp: { sec: 1 }, frame_id: 'map' } }, 'msg.header.stamp is object, not a time {sec, nanosec}'],
  ])('refuses, in words, fields the writer would write otherwise than given (%#)', (fields, problem) => {
    expect(writer()(fields as Record<string, unknown>)).toEqual({ ok: false, problem });
  });

  it('says so when the definition does not parse', () => {
    expect(cdrFieldWriter('float32[ broken')).toMatchObject({ ok: false, problem: expect.stringContaining('does not parse') });
  });
});
