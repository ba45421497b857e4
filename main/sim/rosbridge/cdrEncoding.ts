// A message's CDR bytes as a ROS 2 robot's middleware carries them, with the 4-byte encapsulation
// header (little-endian CDR): what rosbridge_suite's ROS 2 server sends as `bytes` for a `cbor-raw`
// subscription. Written with @foxglove/rosmsg2-serialization from the ROS 2 definition that rosapi's
// topics_and_raw_types hands clients, so a client decoding with that definition reads the message back.
import { parse } from '@foxglove/rosmsg';
import { MessageWriter } from '@foxglove/rosmsg2-serialization';
import { fullRos2MessageDefinition } from '../../core/rosMessageDefinitions.ts';
import type { RosMessage } from './rosMessages.ts';

const writers = new Map<string, MessageWriter>();

/** Whether a type has a fixed ROS 2 definition, so that it can go as CDR. */
export function hasCdrDefinition(rosType: string): boolean {
  return fullRos2MessageDefinition(rosType) !== '';
}

/** The CDR bytes of a message in its ROS 2 shape; throws for a type without a definition. */
export function cdrBytes(rosType: string, msg: RosMessage): Uint8Array {
  let writer = writers.get(rosType);
  if (writer === undefined) {
    const text = fullRos2MessageDefinition(rosType);
    if (text === '') throw new Error(`${rosType} has no fixed definition, so it cannot be sent as CDR`);
    writer = new MessageWriter(parse(text, { ros2: true }));
    writers.set(rosType, writer);
  }
  return writer.writeMessage(msg);
}
