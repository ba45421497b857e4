// The records of the chunk being filled, in one buffer kept from chunk to chunk: messages are
// written straight into it (McapChunkBuilder hands its records out as a fresh copy per chunk, a
// megabyte allocated, copied and collected for every camera frame at full resolution), with the
// message index each channel needs. What `records()` returns is valid until `reset()`.
import { Opcode, type McapTypes } from '@mcap/core';

/** Opcode, record length, channel id, sequence, log time, publish time. */
const MESSAGE_HEADER_BYTES = 1 + 8 + 2 + 4 + 8 + 8;

export class ChunkRecords {
  private buffer = new Uint8Array(64 * 1024);
  private view = new DataView(this.buffer.buffer);
  private readonly indexes = new Map<number, McapTypes.MessageIndex>();
  private length = 0;
  messageCount = 0;
  messageStartTime = 0n;
  messageEndTime = 0n;

  get byteLength(): number {
    return this.length;
  }

  /** Schema and channel records, already framed. */
  addRecords(records: Uint8Array): void {
    this.reserve(records.byteLength);
    this.buffer.set(records, this.length);
    this.length += records.byteLength;
  }

  addMessage(message: McapTypes.Message): void {
    if (this.messageCount === 0 || message.logTime < this.messageStartTime) this.messageStartTime = message.logTime;
    if (this.messageCount === 0 || message.logTime > this.messageEndTime) this.messageEndTime = message.logTime;
    let index = this.indexes.get(message.channelId);
    if (index === undefined) this.indexes.set(message.channelId, (index = { channelId: message.channelId, records: [] }));
    index.records.push([message.logTime, BigInt(this.length)]);
    this.reserve(MESSAGE_HEADER_BYTES + message.data.byteLength);
    const at = this.length;
    this.view.setUint8(at, Opcode.MESSAGE);
    this.view.setBigUint64(at + 1, BigInt(MESSAGE_HEADER_BYTES - 9 + message.data.byteLength), true);
    this.view.setUint16(at + 9, message.channelId, true);
    this.view.setUint32(at + 11, message.sequence, true);
    this.view.setBigUint64(at + 15, message.logTime, true);
    this.view.setBigUint64(at + 23, message.publishTime, true);
    this.buffer.set(message.data, at + MESSAGE_HEADER_BYTES);
    this.length += MESSAGE_HEADER_BYTES + message.data.byteLength;
    this.messageCount++;
  }

  /** The records so far: a view, valid until `reset()`. */
  records(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }

  messageIndexes(): Iterable<McapTypes.MessageIndex> {
    return this.indexes.values();
  }

  reset(): void {
    this.length = 0;
    this.messageCount = 0;
    this.indexes.clear();
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.byteLength) return;
    const grown = new Uint8Array(Math.max(this.buffer.byteLength * 2, this.length + bytes));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
    this.view = new DataView(grown.buffer);
  }
}
