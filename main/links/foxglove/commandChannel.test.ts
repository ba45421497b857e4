import { parse } from '@foxglove/rosmsg';
import { MessageReader as Ros1Reader } from '@foxglove/rosmsg-serialization';
import { MessageReader as CdrReader } from '@foxglove/rosmsg2-serialization';
import { describe, expect, it } from 'vitest';
import { fullMessageDefinition, fullRos2MessageDefinition } from '../../core/rosMessageDefinitions.ts';
import { commandChannel, type CommandChannel } from './commandChannel.ts';

const twist = { linear: { x: 0.3, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.5 } };

function channelOf(outcome: ReturnType<typeof commandChannel>): CommandChannel {
  if (!outcome.ok) throw new Error(outcome.alert.message);
  return outcome.channel;
}

describe('commandChannel', () => {
  it("writes TwistStamped in cdr, as the server's channel names it, stamped zero or with the robot's clock", () => {
    const advertised = {
      id: 4,
      topic: '/cmd_vel',
      encoding: 'cdr',
      schemaName: 'geometry_msgs/msg/TwistStamped',
      schema: fullRos2MessageDefinition('geometry_msgs/msg/TwistStamped'),
      schemaEncoding: 'ros2msg',
    };
    const channel = channelOf(commandChannel({ topic: '/cmd_vel', advertised, configuredType: undefined, supportedEncodings: ['cdr'] }));
    expect(channel).toMatchObject({ encoding: 'cdr', schemaName: 'geometry_msgs/msg/TwistStamped', schemaEncoding: 'ros2msg', shape: 'TwistStamped' });
    const reader = new CdrReader(parse(channel.schema, { ros2: true }));
    expect(reader.readMessage(channel.encode(twist, 'base_link', undefined))).toEqual({
      header: { stamp: { sec: 0, nanosec: 0 }, frame_id: 'base_link' },
      twist,
    });
    expect(reader.readMessage(channel.encode(twist, 'chassis', 1_700_000_000_250))).toMatchObject({
      header: { stamp: { sec: 1_700_000_000, nanosec: 250_000_000 }, frame_id: 'chassis' },
    });
  });

  it('writes Twist in ros1 for a ROS 1 bridge, from the configured type where the server advertises no channel', () => {
    const channel = channelOf(
      commandChannel({ topic: '/cmd_vel', advertised: undefined, configuredType: 'geometry_msgs/Twist', supportedEncodings: ['ros1'] }),
    );
    expect(channel).toMatchObject({ encoding: 'ros1', schemaName: 'geometry_msgs/Twist', schemaEncoding: 'ros1msg', shape: 'Twist' });
    expect(new Ros1Reader(parse(fullMessageDefinition('geometry_msgs/Twist'))).readMessage(channel.encode(twist, 'base_link', undefined))).toEqual(twist);
  });

  it('never guesses: no advertised channel and no configured type, or a type that is not a velocity command, is an error alert', () => {
    const unknown = commandChannel({ topic: '/cmd_vel', advertised: undefined, configuredType: undefined, supportedEncodings: ['cdr'] });
    expect(unknown).toMatchObject({
      ok: false,
      alert: { key: 'command-type:/cmd_vel', severity: 'error', message: expect.stringContaining('advertises no channel /cmd_vel') },
    });
    const wrong = commandChannel({ topic: '/cmd_vel', advertised: undefined, configuredType: 'std_msgs/msg/String', supportedEncodings: ['cdr'] });
    expect(wrong).toMatchObject({ ok: false, alert: { message: expect.stringContaining('carries std_msgs/msg/String') } });
    const protobuf = commandChannel({ topic: '/cmd_vel', advertised: undefined, configuredType: 'geometry_msgs/msg/Twist', supportedEncodings: ['protobuf'] });
    expect(protobuf).toMatchObject({ ok: false, alert: { message: expect.stringContaining('cannot write') } });
  });
});
