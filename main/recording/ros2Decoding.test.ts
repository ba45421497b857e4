import { parse } from '@foxglove/rosmsg';
import { MessageWriter } from '@foxglove/rosmsg2-serialization';
import { describe, expect, it } from 'vitest';
import { messageDecoder } from './recordingReader.ts';
import { cdrDecoder } from './ros2Decoding.ts';

const encode = (text: string) => new TextEncoder().encode(text);

/** The same message as rosidl describes it in a ros2msg schema and in a ros2idl one (MCAP's two ROS 2 schema encodings). */
const SAMPLE_MSG = `builtin_interfaces/Time stamp
float64 x
string label
float32[] values
================================================================================
MSG: builtin_interfaces/Time
int32 sec
uint32 nanosec
`;
const SAMPLE_IDL = `================================================================================
IDL: reins_test/msg/Sample
module reins_test {
  module msg {
    struct Sample {
      builtin_interfaces::msg::Time stamp;
      double x;
      string label;
      sequence<float> values;
    };
  };
};
================================================================================
IDL: builtin_interfaces/msg/Time
module builtin_interfaces {
  module msg {
    struct Time {
      int32 sec;
      uint32 nanosec;
    };
  };
};
`;

const SAMPLE = { stamp: { sec: 1_700_000_000, nanosec: 123 }, x: 0.25, label: 'left', values: new Float32Array([1.5, -2]) };
const CDR_BYTES = new MessageWriter(parse(SAMPLE_MSG, { ros2: true })).writeMessage(SAMPLE);
const channel = { id: 1, topic: '/sample', schemaId: 1, messageEncoding: 'cdr', metadata: new Map<string, string>() };

describe('ROS 2 (cdr) messages', () => {
  it.each([
    ['ros2msg', SAMPLE_MSG],
    ['ros2idl', SAMPLE_IDL],
  ])('decode with a %s schema, stamps as {sec, nanosec}', (encoding, text) => {
    const decode = messageDecoder(channel, { id: 1, name: 'reins_test/msg/Sample', encoding, data: encode(text) });
    expect(decode(CDR_BYTES)).toEqual(SAMPLE);
  });

  it('say in words when a schema does not parse', () => {
    expect(() => cdrDecoder({ id: 1, name: 'reins_test/msg/Broken', encoding: 'ros2idl', data: encode('module reins_test { struct {') })).toThrow(
      /^its ros2idl schema reins_test\/msg\/Broken does not parse: /,
    );
  });

  it('are refused with a schema that is not a ROS 2 one', () => {
    expect(() => messageDecoder(channel, { id: 1, name: 'reins_test.Sample', encoding: 'omgidl', data: encode('') })).toThrow(
      '/sample: unknown message encoding "cdr"',
    );
  });
});
