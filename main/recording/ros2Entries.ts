// A ROS 2 robot's messages in a recording, as `ros2 bag` writes them: `cdr` channels with `ros2msg`
// schemas named `pkg/msg/Type`, so the log plays in ROS 2 tools. A message that came as rosbridge
// cbor-raw is written as its own CDR bytes under the robot's own definition; one that came as JSON or
// CBOR is serialised to CDR from the normalised message with the standard ROS 2 definition, keeping
// the robot's own header stamp (as the CDR bytes of a cbor-raw message do). A RosFields message is
// written under the robot's own definition: its CDR as it came, else its fields checked against
// the definition and serialised (cdrFieldValues.ts); where there is no definition, or the fields
// do not fit it, the caller records it as JSON.
import { MessageWriter } from '@foxglove/rosmsg2-serialization';
import { parse } from '@foxglove/rosmsg';
import type { Ros2Origin } from '../core/messages.ts';
import { cdrFieldWriter, type CdrFieldWriting } from './cdrFieldValues.ts';
import { fullRos2MessageDefinition, ros2TypeName } from '../core/rosMessageDefinitions.ts';
import type { ChannelSpec } from './mcapFile.ts';
import type { RosMessage } from './rosMessages.ts';

const textEncoder = new TextEncoder();

export class Ros2Entries {
  private readonly channels = new Map<string, ChannelSpec>();
  private readonly writers = new Map<string, MessageWriter>();
  /** Definition text → the writer of RosFields messages under it (or why there is none). */
  private readonly fieldWriters = new Map<string, CdrFieldWriting>();

  /**
   * The channel and CDR bytes of a ROS 2 robot's message. `ros`: the same message in its ROS 1 shape
   * (rosMessages.ts); `raw`: the message as the link received it, whose header stamp is kept.
   */
  encode(topic: string, origin: Ros2Origin, ros: RosMessage, raw: unknown): { channel: ChannelSpec; data: Uint8Array } {
    if (origin.cdr !== undefined && origin.definitionText !== undefined && origin.definitionText !== '') {
      return { channel: this.channel(topic, origin.rosType, origin.definitionText), data: origin.cdr };
    }
    const rosType = ros2TypeName(ros.schemaName);
    const definitionText = fullRos2MessageDefinition(rosType);
    const stamp = robotStamp(raw);
    const header = ros.value['header'] as Record<string, unknown> | undefined;
    const value = stamp === undefined || header === undefined ? ros.value : { ...ros.value, header: { ...header, stamp } };
    return { channel: this.channel(topic, rosType, definitionText), data: this.writer(rosType, definitionText).writeMessage(value) };
  }

  /**
   * The channel and CDR bytes of a RosFields message from a ROS 2 robot, under the robot's own
   * definition; undefined where it gave none or the fields do not fit it (then JSON keeps them).
   */
  encodeFields(topic: string, origin: Ros2Origin, fields: Record<string, unknown>): { channel: ChannelSpec; data: Uint8Array } | undefined {
    const definitionText = origin.definitionText;
    if (definitionText === undefined || definitionText.trim() === '') return undefined;
    const data = origin.cdr ?? this.fieldsAsCdr(definitionText, fields);
    return data === undefined ? undefined : { channel: this.channel(topic, origin.rosType, definitionText), data };
  }

  private fieldsAsCdr(definitionText: string, fields: Record<string, unknown>): Uint8Array | undefined {
    let writing = this.fieldWriters.get(definitionText);
    if (writing === undefined) {
      writing = cdrFieldWriter(definitionText);
      this.fieldWriters.set(definitionText, writing);
    }
    if (!writing.ok) return undefined;
    const written = writing.write(fields);
    return written.ok ? written.cdr : undefined;
  }

  private writer(rosType: string, definitionText: string): MessageWriter {
    let writer = this.writers.get(rosType);
    if (writer === undefined) {
      // ROS 1 shaped values fit: the writer reads a stamp's `nsec` or `nanosec`, and skips fields it has no definition for (`seq`).
      writer = new MessageWriter(parse(definitionText, { ros2: true }));
      this.writers.set(rosType, writer);
    }
    return writer;
  }

  private channel(topic: string, rosType: string, definitionText: string): ChannelSpec {
    const key = `${topic}\u0000${rosType}`;
    let channel = this.channels.get(key);
    if (channel === undefined) {
      channel = { topic, schemaName: rosType, schemaEncoding: 'ros2msg', schemaData: textEncoder.encode(definitionText), messageEncoding: 'cdr' };
      this.channels.set(key, channel);
    }
    return channel;
  }
}

/** `header.stamp` as the robot wrote it (`{sec, nanosec}`), where the received message has one. */
function robotStamp(raw: unknown): { sec: number; nanosec: number } | undefined {
  const header = typeof raw === 'object' && raw !== null ? (raw as { header?: unknown }).header : undefined;
  const stamp = typeof header === 'object' && header !== null ? (header as { stamp?: unknown }).stamp : undefined;
  if (typeof stamp !== 'object' || stamp === null) return undefined;
  const { sec, nanosec } = stamp as { sec?: unknown; nanosec?: unknown };
  return Number.isInteger(sec) && Number.isInteger(nanosec) ? { sec: sec as number, nanosec: nanosec as number } : undefined;
}
