// Turns what the recorder queued into MCAP channel specs and message bytes: ROS 1 serialisation for
// the robot's streams, or a ROS 2 robot's own encoding (`cdr`, `ros2msg`: ros2Entries.ts), and JSON
// for Reins' events. A RosFields message goes as CDR under a ROS 2 robot's own definition where it
// gave one and the fields fit it, else as `json` under a `jsonschema` schema named by its ROS type
// (rosFieldsJson.ts). Runs in the recorder's background drain, never in `record()`.
import { MessageWriter } from '@foxglove/rosmsg-serialization';
import type { Received, RobotMessage, RosFields } from '../core/messages.ts';
import { rosFieldsBytes } from '../core/rosFieldsBytes.ts';
import { nsFromMs } from './logTimes.ts';
import type { ChannelSpec } from './mcapFile.ts';
import { jsonChannelFor, type EventChannel } from './reinsEvents.ts';
import { rosMessageFor } from './rosMessages.ts';
import { Ros2Entries } from './ros2Entries.ts';
import { rosFieldsChannel, rosFieldsJson } from './rosFieldsJson.ts';
import { parsedDefinitions, rosDefinitionText, type RosSchemaName } from './rosSchemas.ts';

export type RecordEntry = { kind: 'sensor'; received: Received<RobotMessage> } | { kind: 'event'; channel: EventChannel; timeMs: number; value: unknown };

export interface EncodedEntry {
  channel: ChannelSpec;
  logTimeNs: bigint;
  publishTimeNs: bigint;
  /** Valid until the next `encode` (images and point clouds go through a reused buffer). */
  data: Uint8Array;
}

const textEncoder = new TextEncoder();
/** Types with a `uint8[] data` field, and how many bytes the fields after it take. */
const BYTES_AFTER_DATA: ReadonlyMap<RosSchemaName, number> = new Map([
  ['sensor_msgs/Image', 0],
  ['sensor_msgs/CompressedImage', 0],
  ['sensor_msgs/PointCloud2', 1], // bool is_dense
]);
const NO_BYTES = new Uint8Array(0);

export class EntryEncoder {
  private readonly rosChannels = new Map<string, ChannelSpec>();
  private readonly jsonChannels = new Map<string, ChannelSpec>();
  private readonly writers = new Map<RosSchemaName, MessageWriter>();
  private readonly sequences = new Map<string, number>();
  private readonly ros2 = new Ros2Entries();
  private scratch = new Uint8Array(0);

  encode(entry: RecordEntry): EncodedEntry {
    if (entry.kind === 'event') {
      const timeNs = nsFromMs(entry.timeMs);
      return { channel: this.jsonChannel(entry.channel), logTimeNs: timeNs, publishTimeNs: timeNs, data: textEncoder.encode(JSON.stringify(entry.value)) };
    }
    const { received } = entry;
    const logTimeNs = nsFromMs(received.receiveTimeMs);
    const publishTimeNs = nsFromMs(received.sourceTimeMs);
    if (received.msg.kind === 'RosFields') return { ...this.encodeFields(received.topic, received.msg, received), logTimeNs, publishTimeNs };
    const seq = this.sequences.get(received.topic) ?? 0;
    this.sequences.set(received.topic, seq + 1);
    const ros = rosMessageFor(received, seq);
    if (received.ros2 !== undefined && ros !== undefined) {
      const { channel, data } = this.ros2.encode(received.topic, received.ros2, ros, received.raw);
      return { channel, logTimeNs, publishTimeNs, data };
    }
    if (ros === undefined) {
      const channel = this.jsonChannel(jsonChannelFor(received.topic, received.msg.kind));
      return { channel, logTimeNs, publishTimeNs, data: textEncoder.encode(JSON.stringify(received.msg, typedArraysAsLists)) };
    }
    return { channel: this.rosChannel(received.topic, ros.schemaName), logTimeNs, publishTimeNs, data: this.serialise(ros.schemaName, ros.value) };
  }

  private encodeFields(topic: string, msg: RosFields, received: Received<RobotMessage>): { channel: ChannelSpec; data: Uint8Array } {
    const cdr = received.ros2 === undefined ? undefined : this.ros2.encodeFields(topic, received.ros2, msg.fields);
    return cdr ?? { channel: this.jsonChannel(rosFieldsChannel(topic, msg.rosType)), data: textEncoder.encode(rosFieldsJson(msg.fields)) };
  }

  /**
   * ROS 1 bytes of a message. The generic writer moves a `uint8[]` one byte at a time (twice: once
   * to size it), which for camera frames cost more than all the rest of recording; so the types
   * with a `data` byte array are written with it empty, and the bytes are spliced in with one copy,
   * into a buffer reused from message to message (the MCAP file copies them into its chunk before
   * the next `encode`).
   */
  private serialise(schemaName: RosSchemaName, value: Record<string, unknown>): Uint8Array {
    const tailBytes = BYTES_AFTER_DATA.get(schemaName);
    if (tailBytes === undefined) return this.writer(schemaName).writeMessage(value);
    const bytes = value.data as Uint8Array;
    const fields = this.writer(schemaName).writeMessage({ ...value, data: NO_BYTES });
    const dataAt = fields.byteLength - tailBytes;
    const length = fields.byteLength + bytes.byteLength;
    if (this.scratch.byteLength < length) this.scratch = new Uint8Array(length);
    const out = this.scratch.subarray(0, length);
    out.set(fields.subarray(0, dataAt));
    // The fields before `data` end in its uint32 length, written as 0 above.
    new DataView(out.buffer).setUint32(dataAt - 4, bytes.byteLength, true);
    out.set(bytes, dataAt);
    out.set(fields.subarray(dataAt), dataAt + bytes.byteLength);
    return out;
  }

  private writer(schemaName: RosSchemaName): MessageWriter {
    let writer = this.writers.get(schemaName);
    if (writer === undefined) {
      writer = new MessageWriter(parsedDefinitions(rosDefinitionText(schemaName)));
      this.writers.set(schemaName, writer);
    }
    return writer;
  }

  private rosChannel(topic: string, schemaName: RosSchemaName): ChannelSpec {
    const key = `${topic}\u0000${schemaName}`;
    let channel = this.rosChannels.get(key);
    if (channel === undefined) {
      channel = { topic, schemaName, schemaEncoding: 'ros1msg', schemaData: textEncoder.encode(rosDefinitionText(schemaName)), messageEncoding: 'ros1' };
      this.rosChannels.set(key, channel);
    }
    return channel;
  }

  private jsonChannel(event: EventChannel): ChannelSpec {
    const key = `${event.topic}\u0000${event.schemaName}`;
    let channel = this.jsonChannels.get(key);
    if (channel === undefined) {
      channel = {
        topic: event.topic,
        schemaName: event.schemaName,
        schemaEncoding: 'jsonschema',
        schemaData: textEncoder.encode(JSON.stringify(event.jsonSchema)),
        messageEncoding: 'json',
      };
      this.jsonChannels.set(key, channel);
    }
    return channel;
  }
}

function typedArraysAsLists(_key: string, value: unknown): unknown {
  return ArrayBuffer.isView(value) && !(value instanceof DataView) ? Array.from(value as Float64Array) : value;
}

/** Roughly what an entry holds in memory while queued, for the queue's byte bound. */
export function entryBytes(entry: RecordEntry): number {
  if (entry.kind === 'event') return 256;
  const msg = entry.received.msg;
  switch (msg.kind) {
    case 'Image':
    case 'CompressedImage':
    case 'PointCloud2':
      return msg.data.byteLength + 128;
    case 'LaserScan':
      return msg.rangesM.byteLength + 128;
    case 'RosFields':
      return rosFieldsBytes(msg.fields) + 128;
    default:
      return 256;
  }
}
