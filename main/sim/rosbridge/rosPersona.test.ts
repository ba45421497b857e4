import { CdrReader } from '@foxglove/cdr';
import { decode as decodeCbor } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import { OutgoingMessage } from './outgoingMessage.ts';
import { ROS1_PERSONA, ROS2_PERSONA } from './rosPersona.ts';
import { rosHeader } from './rosMessages.ts';
import { createServices } from './services.ts';

const ROBOT_MS = 1_700_000_000_250;

function servicesOf(persona = ROS2_PERSONA) {
  const services = createServices({ clockMs: () => ROBOT_MS, resetEpisode: () => 1, inject: () => undefined, identity: '', robotName: 'sim', persona });
  return (name: string) => {
    const result = services.get(name)!.call({});
    if (!result.ok) throw new Error(result.error);
    return result.values;
  };
}

describe('the ROS 2 persona of the simulated rosbridge server', () => {
  it("answers rosapi as rosbridge_suite's ROS 2 rosapi: pkg/msg/Type names, sec/nanosec, ROS 2 definitions, its version", () => {
    const call = servicesOf();
    expect(call('/rosapi/topics')['types']).toContain('sensor_msgs/msg/Image');
    expect(call('/rosapi/get_time')).toEqual({ time: { sec: 1_700_000_000, nanosec: 250_000_000 } });
    expect(call('/rosapi/get_ros_version')).toEqual({ version: 2, distro: 'jazzy' });
    const { types, typedefs_full_text: definitions } = call('/rosapi/topics_and_raw_types') as { types: string[]; typedefs_full_text: string[] };
    const image = definitions[types.indexOf('sensor_msgs/msg/Image')]!;
    expect(image).toContain('MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id');
    expect(image).not.toContain('uint32 seq');
    // The ROS 1 persona is unchanged, and serves no cbor-raw.
    expect(servicesOf(ROS1_PERSONA)('/rosapi/get_time')).toEqual({ time: { secs: 1_700_000_000, nsecs: 250_000_000 } });
    expect(ROS1_PERSONA.compressions).not.toContain('cbor-raw');
  });

  it('sends cbor-raw as {secs, nsecs, bytes}: its receive time, and the CDR (encapsulation header first) holding the stamp', () => {
    const msg = ROS2_PERSONA.message({ header: rosHeader(7, ROBOT_MS - 40, 'laser'), angle_min: -1, ranges: new Float32Array([1.5, 2.5]) });
    expect(msg['header']).toEqual({ stamp: { sec: 1_700_000_000, nanosec: 210_000_000 }, frame_id: 'laser' });
    const full = ROS2_PERSONA.message({
      header: rosHeader(7, ROBOT_MS - 40, 'laser'),
      angle_min: -1,
      angle_max: 1,
      angle_increment: 2,
      time_increment: 0,
      scan_time: 0.1,
      range_min: 0.1,
      range_max: 10,
      ranges: new Float32Array([1.5, 2.5]),
      intensities: new Float32Array(0),
    });
    const outgoing = new OutgoingMessage('/scan', full, '/scan:7', { rosType: 'sensor_msgs/msg/LaserScan', receivedMs: ROBOT_MS });
    const [frame] = outgoing.frames({ compression: 'cbor-raw', fragmentSize: undefined });
    const op = decodeCbor(frame as Uint8Array) as { op: string; topic: string; msg: { secs: number; nsecs: number; bytes: Uint8Array } };
    expect([op.op, op.topic, Object.keys(op.msg)]).toEqual(['publish', '/scan', ['secs', 'nsecs', 'bytes']]);
    expect([op.msg.secs, op.msg.nsecs]).toEqual([1_700_000_000, 250_000_000]);
    expect([...op.msg.bytes.subarray(0, 4)]).toEqual([0, 1, 0, 0]);
    const reader = new CdrReader(op.msg.bytes);
    expect([reader.int32(), reader.uint32(), reader.string()]).toEqual([1_700_000_000, 210_000_000, 'laser']);
    expect(reader.float32()).toBe(-1);
  });

  it('refuses to encode cbor-raw for a message without a ROS 2 source', () => {
    const outgoing = new OutgoingMessage('/scan', { x: 1 }, '/scan:1');
    expect(() => outgoing.frames({ compression: 'cbor-raw', fragmentSize: undefined })).toThrow(/not served as cbor-raw/);
  });
});
