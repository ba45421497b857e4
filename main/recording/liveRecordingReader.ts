// Reads back a recording while it is still being written (a preference question's clips come from
// the last minute of the session's log). An indexed reader needs the footer, which a live log has
// not got yet; this reader follows the file instead: it reads each finished top-level record once,
// keeps a small index (per topic: log time → which chunk holds it), and reads only those chunks back
// when asked for a time range. What is still in the writer's open chunk is not there yet.
import { open } from 'node:fs/promises';
import { McapRecordBuilder, McapStreamReader, type McapTypes } from '@mcap/core';
import { DECOMPRESS_HANDLERS, zstdReady } from './chunkCompression.ts';
import { msFromNs, nsFromMs } from './logTimes.ts';
import { messageDecoder, type RecordedMessage } from './recordingReader.ts';

const MAGIC_BYTES = 8;
const RECORD_HEADER_BYTES = 9;
const CHUNK_OPCODE = 0x06;
const READ_BLOCK_BYTES = 4 * 1024 * 1024;

interface IndexedMessage {
  logTimeNs: bigint;
  chunkOffset: number;
}

interface FollowedFile {
  path: string;
  /** Bytes of the file read and parsed so far (whole records only). */
  position: number;
  stream: McapStreamReader;
  schemas: Map<number, McapTypes.Schema>;
  channels: Map<number, McapTypes.Channel>;
  /** Chunk offset → the chunk record's whole length (header included). */
  chunkLengths: Map<number, number>;
  byTopic: Map<string, IndexedMessage[]>;
}

export class LiveRecordingReader {
  private readonly followed = new Map<string, FollowedFile>();
  private readonly decoders = new Map<string, (data: Uint8Array) => unknown>();
  private refreshing: Promise<void> | undefined;

  /**
   * @param files the recording's files, oldest first (they rotate at a size limit; a quota may delete old ones)
   * @param topics the topics to index; others are skipped
   */
  constructor(
    private readonly files: () => readonly string[],
    private readonly topics: ReadonlySet<string>,
  ) {}

  /** Reads what the writer has finished since the last call. Calls made meanwhile share one read. */
  refresh(): Promise<void> {
    this.refreshing ??= this.readNewRecords().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Messages of the topics logged in [startMs, endMs], in log-time order, from finished chunks. */
  async messages(range: { topics: readonly string[]; startMs: number; endMs: number }): Promise<RecordedMessage[]> {
    await this.refresh();
    const startNs = nsFromMs(range.startMs);
    const endNs = nsFromMs(range.endMs);
    const out: RecordedMessage[] = [];
    for (const file of this.followed.values()) {
      const chunkOffsets = new Set<number>();
      for (const topic of range.topics) {
        for (const entry of file.byTopic.get(topic) ?? []) {
          if (entry.logTimeNs >= startNs && entry.logTimeNs <= endNs) chunkOffsets.add(entry.chunkOffset);
        }
      }
      if (chunkOffsets.size === 0) continue;
      const handle = await open(file.path, 'r');
      try {
        for (const offset of [...chunkOffsets].sort((a, b) => a - b)) {
          const bytes = new Uint8Array(file.chunkLengths.get(offset)!);
          await handle.read(bytes, 0, bytes.length, offset);
          for (const message of this.chunkMessages(file, bytes)) {
            const channel = file.channels.get(message.channelId);
            if (!channel || !range.topics.includes(channel.topic) || message.logTime < startNs || message.logTime > endNs) continue;
            out.push({
              topic: channel.topic,
              schemaName: file.schemas.get(channel.schemaId)?.name ?? '',
              logTimeNs: message.logTime,
              publishTimeNs: message.publishTime,
              logTimeMs: msFromNs(message.logTime),
              publishTimeMs: msFromNs(message.publishTime),
              value: this.decode(file, channel, message.data),
            });
          }
        }
      } finally {
        await handle.close();
      }
    }
    return out.sort((a, b) => (a.logTimeNs < b.logTimeNs ? -1 : a.logTimeNs > b.logTimeNs ? 1 : 0));
  }

  private async readNewRecords(): Promise<void> {
    await zstdReady();
    const paths = this.files();
    for (const path of this.followed.keys()) if (!paths.includes(path)) this.followed.delete(path);
    for (const path of paths) {
      let file = this.followed.get(path);
      if (!file) {
        file = {
          path,
          position: 0,
          stream: new McapStreamReader({ includeChunks: true, decompressHandlers: DECOMPRESS_HANDLERS }),
          schemas: new Map(),
          channels: new Map(),
          chunkLengths: new Map(),
          byTopic: new Map(),
        };
        this.followed.set(path, file);
      }
      await this.follow(file);
    }
  }

  private async follow(file: FollowedFile): Promise<void> {
    let handle;
    try {
      handle = await open(file.path, 'r');
    } catch {
      this.followed.delete(file.path);
      return;
    }
    try {
      for (;;) {
        const block = new Uint8Array(READ_BLOCK_BYTES);
        const { bytesRead } = await handle.read(block, 0, block.length, file.position);
        if (bytesRead === 0) return;
        const parsed = this.parseBlock(file, block.subarray(0, bytesRead));
        if (parsed === 0) {
          // A record longer than the block: read exactly it once it is whole.
          const length = this.nextRecordLength(block.subarray(0, bytesRead), file.position);
          if (length === undefined || length <= bytesRead) return;
          const whole = new Uint8Array(length);
          const read = await handle.read(whole, 0, length, file.position);
          if (read.bytesRead < length || this.parseBlock(file, whole) === 0) return;
        }
      }
    } finally {
      await handle.close();
    }
  }

  /** The length of the record at the start of `bytes` (the magic counts as one), if its header is there. */
  private nextRecordLength(bytes: Uint8Array, position: number): number | undefined {
    if (position === 0) return MAGIC_BYTES;
    if (bytes.length < RECORD_HEADER_BYTES) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return RECORD_HEADER_BYTES + Number(view.getBigUint64(1, true));
  }

  /** Parses the whole records at the start of `bytes`; returns how many bytes they took. */
  private parseBlock(file: FollowedFile, bytes: Uint8Array): number {
    let used = 0;
    for (;;) {
      const length = this.nextRecordLength(bytes.subarray(used), file.position);
      if (length === undefined || used + length > bytes.length) return used;
      const record = bytes.subarray(used, used + length);
      const recordOffset = file.position;
      file.stream.append(record);
      if (file.position > 0 && record[0] === CHUNK_OPCODE) file.chunkLengths.set(recordOffset, length);
      for (let parsed; (parsed = file.stream.nextRecord());) this.index(file, parsed, recordOffset);
      used += length;
      file.position += length;
    }
  }

  private index(file: FollowedFile, record: McapTypes.TypedMcapRecord, recordOffset: number): void {
    if (record.type === 'Schema') file.schemas.set(record.id, record);
    else if (record.type === 'Channel') file.channels.set(record.id, record);
    else if (record.type === 'Message' && file.chunkLengths.has(recordOffset)) {
      const topic = file.channels.get(record.channelId)?.topic;
      if (topic === undefined || !this.topics.has(topic)) return;
      let entries = file.byTopic.get(topic);
      if (!entries) file.byTopic.set(topic, (entries = []));
      entries.push({ logTimeNs: record.logTime, chunkOffset: recordOffset });
    }
  }

  /** The messages inside one chunk record, read with the schemas and channels seen before it. */
  private chunkMessages(file: FollowedFile, chunkRecord: Uint8Array): McapTypes.Message[] {
    const reader = new McapStreamReader({ noMagicPrefix: true, decompressHandlers: DECOMPRESS_HANDLERS });
    const builder = new McapRecordBuilder();
    for (const schema of file.schemas.values()) builder.writeSchema(schema);
    for (const channel of file.channels.values()) builder.writeChannel(channel);
    reader.append(builder.buffer);
    reader.append(chunkRecord);
    const messages: McapTypes.Message[] = [];
    for (let record; (record = reader.nextRecord());) if (record.type === 'Message') messages.push(record);
    return messages;
  }

  private decode(file: FollowedFile, channel: McapTypes.Channel, data: Uint8Array): unknown {
    const key = `${file.path}#${channel.id}`;
    let decoder = this.decoders.get(key);
    if (!decoder) {
      decoder = messageDecoder(channel, file.schemas.get(channel.schemaId));
      this.decoders.set(key, decoder);
    }
    return decoder(data);
  }
}
