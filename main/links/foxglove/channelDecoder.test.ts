import { parse } from '@foxglove/rosmsg';
import { MessageWriter as Ros1Writer } from '@foxglove/rosmsg-serialization';
import { MessageWriter as CdrWriter } from '@foxglove/rosmsg2-serialization';
import { describe, expect, it } from 'vitest';
import { fullMessageDefinition, fullRos2MessageDefinition } from '../../core/rosMessageDefinitions.ts';
import { ChannelPayloadError, payloadReader, type PayloadReader } from './channelDecoder.ts';
import type { AdvertisedChannel } from './channelList.ts';

const TWIST_STAMPED_IDL = `module builtin_interfaces { module msg { struct Time { int32 sec; uint32 nanosec; }; }; };
module std_msgs { module msg { struct Header { builtin_interfaces::msg::Time stamp; string frame_id; }; }; };
module geometry_msgs { module msg {
  struct Vector3 { double x; double y; double z; };
  struct Twist { geometry_msgs::msg::Vector3 linear; geometry_msgs::msg::Vector3 angular; };
  struct TwistStamped { std_msgs::msg::Header header; geometry_msgs::msg::Twist twist; };
}; };`;

const message = {
  header: { stamp: { sec: 1700000000, nanosec: 250_000_000 }, frame_id: 'base_link' },
  twist: { linear: { x: 0.5, y: 0, z: 0 }, angular: { x: 0, y: 0, z: -1 } },
};

function channel(fields: Partial<AdvertisedChannel>): AdvertisedChannel {
  return {
    id: 1,
    topic: '/cmd_vel',
    encoding: 'cdr',
    schemaName: 'geometry_msgs/msg/TwistStamped',
    schema: fullRos2MessageDefinition('geometry_msgs/msg/TwistStamped'),
    schemaEncoding: 'ros2msg',
    ...fields,
  };
}

function readerOf(fields: Partial<AdvertisedChannel>): PayloadReader {
  const outcome = payloadReader(channel(fields));
  if (!outcome.ok) throw new Error(outcome.problem);
  return outcome.read;
}

const cdrBytes = new CdrWriter(parse(fullRos2MessageDefinition('geometry_msgs/msg/TwistStamped'), { ros2: true })).writeMessage(message);

describe('payloadReader', () => {
  it('reads cdr with a ros2msg schema, and with a ros2idl one alike ({sec, nanosec} stamps)', () => {
    expect(readerOf({})(cdrBytes)).toEqual(message);
    expect(readerOf({ schemaEncoding: 'ros2idl', schema: TWIST_STAMPED_IDL })(cdrBytes)).toEqual(message);
    // Older bridges sent no schemaEncoding: cdr meant ros2msg.
    expect(readerOf({ schemaEncoding: undefined })(cdrBytes)).toEqual(message);
  });

  it('reads ros1 with a ros1msg schema, its stamps in the rosbridge ROS 1 shape the decoders read', () => {
    const ros1 = fullMessageDefinition('geometry_msgs/TwistStamped');
    const bytes = new Ros1Writer(parse(ros1)).writeMessage({ header: { seq: 3, stamp: { sec: 5, nsec: 7 }, frame_id: 'odom' }, twist: message.twist });
    expect(readerOf({ encoding: 'ros1', schemaEncoding: 'ros1msg', schemaName: 'geometry_msgs/TwistStamped', schema: ros1 })(bytes)).toEqual({
      header: { seq: 3, stamp: { secs: 5, nsecs: 7 }, frame_id: 'odom' },
      twist: message.twist,
    });
  });

  it('reads json, and says so when a payload is not JSON', () => {
    const read = readerOf({ encoding: 'json', schemaEncoding: 'jsonschema', schema: '' });
    expect(read(new TextEncoder().encode(JSON.stringify(message)))).toEqual(message);
    expect(() => read(new TextEncoder().encode('{"header":'))).toThrow(ChannelPayloadError);
  });

  it('says in words that a schema does not parse, or does not fit the encoding, or the encoding is unknown', () => {
    expect(payloadReader(channel({ topic: '/scan', schemaName: 'sensor_msgs/msg/LaserScan', schema: 'float32[ ranges\n%%%' }))).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^the ros2msg schema of \/scan \(sensor_msgs\/msg\/LaserScan\) does not parse: /),
    });
    expect(payloadReader(channel({ schema: '' }))).toMatchObject({ ok: false, problem: expect.stringContaining('defines no message') });
    expect(payloadReader(channel({ schemaEncoding: 'ros2idl', schema: 'module { broken' }))).toMatchObject({
      ok: false,
      problem: expect.stringContaining('does not parse'),
    });
    expect(payloadReader(channel({ schemaEncoding: 'ros1msg' }))).toMatchObject({
      ok: false,
      problem: expect.stringContaining('cdr needs ros2msg or ros2idl'),
    });
    expect(payloadReader(channel({ encoding: 'protobuf', schemaEncoding: 'protobuf' }))).toMatchObject({
      ok: false,
      problem: expect.stringContaining('"protobuf"'),
    });
  });

  it('refuses a payload that does not match its schema: too short, or with bytes left over', () => {
    const read = readerOf({});
    expect(() => read(cdrBytes.subarray(0, 20))).toThrow(/20 bytes do not match geometry_msgs\/msg\/TwistStamped/);
    const longer = new Uint8Array(cdrBytes.byteLength + 16);
    longer.set(cdrBytes);
    expect(() => read(longer)).toThrow(/bytes left over/);
    expect(() => read(new Uint8Array(0))).toThrow(ChannelPayloadError);
  });
});
