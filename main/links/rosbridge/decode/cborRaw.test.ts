import { parse } from '@foxglove/rosmsg';
import { MessageWriter } from '@foxglove/rosmsg2-serialization';
import { describe, expect, it } from 'vitest';
import type { LaserScan } from '../../../core/messages.ts';
import { fullRos2MessageDefinition } from '../../../core/rosMessageDefinitions.ts';
import { cborRawDecoder, cdrReaderFor } from './cborRaw.ts';
import { decodeLaserScan } from './laserScans.ts';

const SCAN_TYPE = 'sensor_msgs/msg/LaserScan';
const SCAN_DEFINITION = fullRos2MessageDefinition(SCAN_TYPE);
const scanCdr = new MessageWriter(parse(SCAN_DEFINITION, { ros2: true })).writeMessage({
  header: { stamp: { sec: 1_700_000_123, nanosec: 250_000_000 }, frame_id: 'laser' },
  angle_min: -1,
  angle_max: 1,
  angle_increment: 0.5,
  time_increment: 0,
  scan_time: 0.1,
  range_min: 0.1,
  range_max: 10,
  ranges: new Float32Array([1, 2, 3, 4, 5]),
  intensities: new Float32Array(0),
});

function scanDecoder() {
  const reading = cdrReaderFor(SCAN_TYPE, SCAN_DEFINITION);
  if (!reading.ok) throw new Error(reading.problem);
  return cborRawDecoder(SCAN_TYPE, reading.read, decodeLaserScan);
}

describe('cbor-raw from a ROS 2 rosbridge server', () => {
  it("reads the CDR with the robot's definition and takes the stamp from the message's header, not the envelope", () => {
    // rosbridge_suite's envelope time is its own receive clock: here 7 s after the message's stamp.
    const decoded = scanDecoder()({ secs: 1_700_000_130, nsecs: 0, bytes: scanCdr });
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.stampMs).toBe(1_700_000_123_250);
    const scan = decoded.msg as LaserScan;
    expect([scan.frameId, [...scan.rangesM]]).toEqual(['laser', [1, 2, 3, 4, 5]]);
    expect(decoded.cdr).toBe(scanCdr);
    expect(decoded.fields).toMatchObject({ header: { frame_id: 'laser', stamp: { sec: 1_700_000_123, nanosec: 250_000_000 } } });
  });

  it('says in words when the bytes do not match the definition, or the envelope is not cbor-raw', () => {
    const decode = scanDecoder();
    const truncated = decode({ secs: 1, nsecs: 0, bytes: scanCdr.subarray(0, 30) });
    expect(truncated).toMatchObject({ ok: false, problem: expect.stringContaining("do not match the robot's definition of sensor_msgs/msg/LaserScan") });
    expect(decode({ secs: 1, nsecs: 0, bytes: 'AAEAAA==' })).toMatchObject({ ok: false, problem: expect.stringContaining('not a byte string') });
    expect(decode([1, 2])).toMatchObject({ ok: false, problem: expect.stringContaining('not {secs, nsecs, bytes}') });
  });

  it('refuses a definition that does not parse, or none, with the reason', () => {
    expect(cdrReaderFor(SCAN_TYPE, 'float32 angle_min\nfloat32[ ranges')).toMatchObject({ ok: false, problem: expect.stringContaining('does not parse') });
    expect(cdrReaderFor(SCAN_TYPE, 'std_msgs/Header header')).toMatchObject({ ok: false, problem: expect.stringContaining('does not parse') });
    expect(cdrReaderFor(SCAN_TYPE, '')).toEqual({ ok: false, problem: 'the robot gave no definition of sensor_msgs/msg/LaserScan' });
  });
});
