// One MCAP file being written: chunked, indexed (message and chunk indexes, statistics, summary
// offsets), schemas and channels registered the first time a topic appears in a type and encoding.
// The chunking is ours rather than McapWriter's because a chunk must also be finishable before it
// is full (the recorder's age limit), which McapWriter cannot do. Every chunk repeats the schema and
// channel records of the messages in it, so each finished chunk reads on its own after a crash, even
// when an earlier one is lost. Callers await each call before the next; the recorder's drain loop does.
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { McapRecordBuilder, Opcode, type McapTypes } from '@mcap/core';
import { ChunkCompressor } from './chunkCompression.ts';
import { ChunkRecords } from './chunkRecords.ts';
import { writeSummary } from './mcapSummary.ts';

export interface ChannelSpec {
  topic: string;
  schemaName: string;
  /** `ros1msg`, `ros2msg` or `jsonschema`. */
  schemaEncoding: string;
  schemaData: Uint8Array;
  /** `ros1`, `cdr` or `json`. */
  messageEncoding: string;
}

/** Chunks of about this size: a crash loses at most the chunk being filled. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;

export class McapFile {
  private readonly channels = new Map<string, McapTypes.Channel>();
  private readonly schemas = new Map<string, McapTypes.Schema>();
  private readonly schemasById = new Map<number, McapTypes.Schema>();
  private readonly chunk = new ChunkRecords();
  private readonly channelsInChunk = new Set<number>();
  /** Every finished chunk's index record, encoded (for the summary). */
  private readonly chunkIndexRecords = new McapRecordBuilder();
  private readonly statistics: McapTypes.Statistics = {
    messageCount: 0n,
    schemaCount: 0,
    channelCount: 0,
    attachmentCount: 0,
    metadataCount: 0,
    chunkCount: 0,
    messageStartTime: 0n,
    messageEndTime: 0n,
    channelMessageCounts: new Map(),
  };
  private sequence = 0;
  private messagesInChunks = 0;
  private position = 0;
  private chunkOpenedAtMs = 0;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly chunkBytes: number,
    readonly compressor: ChunkCompressor,
  ) {}

  static async create(path: string, chunkBytes = DEFAULT_CHUNK_BYTES, compressor = new ChunkCompressor()): Promise<McapFile> {
    const handle = await open(path, 'wx');
    const file = new McapFile(path, handle, chunkBytes, compressor);
    const start = new McapRecordBuilder();
    start.writeMagic();
    // No profile: the `ros1` profile allows only `ros1` channels, and a Reins log holds its events as
    // `json` beside the robot's `ros1` streams. The header is the file's first record, written before
    // any channel is known, so it cannot wait to see whether a log stays all `ros1`.
    start.writeHeader({ profile: '', library: 'reins' });
    await file.write([start.buffer]);
    return file;
  }

  /** Bytes in the file so far. */
  get sizeBytes(): number {
    return this.position;
  }

  /** Chunks finished and handed to the operating system: they survive a crash of this process. */
  get chunksWritten(): number {
    return this.statistics.chunkCount;
  }

  /** Messages inside finished chunks. */
  get messagesWritten(): number {
    return this.messagesInChunks;
  }

  /** How long (wall clock, ms) the chunk being filled has held messages; 0 when it is empty. */
  openChunkAgeMs(nowMs = performance.now()): number {
    return this.chunk.messageCount === 0 ? 0 : nowMs - this.chunkOpenedAtMs;
  }

  /** Adds a message (its bytes are copied: the caller may reuse them once this resolves); writes the chunk when it reaches the size limit. */
  async add(channel: ChannelSpec, logTimeNs: bigint, publishTimeNs: bigint, data: Uint8Array): Promise<void> {
    const registered = this.channels.get(channelKey(channel)) ?? this.register(channel);
    if (this.chunk.messageCount === 0) this.chunkOpenedAtMs = performance.now();
    if (!this.channelsInChunk.has(registered.id)) {
      const definitions = new McapRecordBuilder();
      if (registered.schemaId !== 0) definitions.writeSchema(this.schemasById.get(registered.schemaId)!);
      definitions.writeChannel(registered);
      this.chunk.addRecords(definitions.buffer);
      this.channelsInChunk.add(registered.id);
    }
    this.chunk.addMessage({ channelId: registered.id, sequence: this.sequence++, logTime: logTimeNs, publishTime: publishTimeNs, data });
    this.count(registered.id, logTimeNs);
    if (this.chunk.byteLength >= this.chunkBytes) await this.finishChunk();
  }

  /** Writes the chunk being filled now, full or not (nothing when it is empty). */
  async finishChunk(): Promise<void> {
    const messages = this.chunk.messageCount;
    if (messages === 0) return;
    const records = this.chunk.records();
    const { compression, compressedData } = this.compressor.compressChunk(records);
    const chunkRecord = chunkRecordHeader({
      messageStartTime: this.chunk.messageStartTime,
      messageEndTime: this.chunk.messageEndTime,
      uncompressedSize: BigInt(records.byteLength),
      uncompressedCrc: crc32(records),
      compression,
      recordsBytes: compressedData.byteLength,
    });
    const chunkStartOffset = BigInt(this.position);
    const chunkLength = BigInt(chunkRecord.byteLength + compressedData.byteLength);
    const indexes = new McapRecordBuilder();
    const messageIndexOffsets = new Map<number, bigint>();
    for (const messageIndex of this.chunk.messageIndexes()) {
      messageIndexOffsets.set(messageIndex.channelId, chunkStartOffset + chunkLength + BigInt(indexes.length));
      indexes.writeMessageIndex(messageIndex);
    }
    this.chunkIndexRecords.writeChunkIndex({
      messageStartTime: this.chunk.messageStartTime,
      messageEndTime: this.chunk.messageEndTime,
      chunkStartOffset,
      chunkLength,
      messageIndexOffsets,
      messageIndexLength: BigInt(indexes.length),
      compression,
      compressedSize: BigInt(compressedData.byteLength),
      uncompressedSize: BigInt(records.byteLength),
    });
    // The records go out as they are (no copy into a record buffer); the chunk's buffer is reused only after.
    await this.write([chunkRecord, compressedData, indexes.buffer]);
    this.chunk.reset();
    this.channelsInChunk.clear();
    this.statistics.chunkCount++;
    this.messagesInChunks += messages;
  }

  /** Writes the last chunk, the summary (schemas, channels, statistics, chunk indexes) and the footer, and closes the file. */
  async close(): Promise<void> {
    try {
      await this.finishChunk();
      await this.write(
        writeSummary(BigInt(this.position), {
          schemas: [...this.schemas.values()],
          channels: [...this.channels.values()],
          statistics: this.statistics,
          chunkIndexRecords: this.chunkIndexRecords.buffer,
        }),
      );
    } finally {
      await this.handle.close();
    }
  }

  /** Closes the file without a footer (after a write failed); readers recover its finished chunks. */
  async abandon(): Promise<void> {
    await this.handle.close();
  }

  private register(spec: ChannelSpec): McapTypes.Channel {
    // A topic may change type or encoding (a RosFields message the CDR writer cannot take goes as JSON): each its own channel and schema.
    const schemaKey = `${spec.schemaName}\u0000${spec.schemaEncoding}\u0000${Buffer.from(spec.schemaData).toString('latin1')}`;
    let schema = this.schemas.get(schemaKey);
    if (schema === undefined) {
      schema = { id: this.schemas.size + 1, name: spec.schemaName, encoding: spec.schemaEncoding, data: spec.schemaData };
      this.schemas.set(schemaKey, schema);
      this.schemasById.set(schema.id, schema);
      this.statistics.schemaCount++;
    }
    const channel: McapTypes.Channel = {
      id: this.channels.size,
      schemaId: schema.id,
      topic: spec.topic,
      messageEncoding: spec.messageEncoding,
      metadata: new Map(),
    };
    this.channels.set(channelKey(spec), channel);
    this.statistics.channelCount++;
    return channel;
  }

  private count(channelId: number, logTimeNs: bigint): void {
    const stats = this.statistics;
    if (stats.messageCount === 0n || logTimeNs < stats.messageStartTime) stats.messageStartTime = logTimeNs;
    if (stats.messageCount === 0n || logTimeNs > stats.messageEndTime) stats.messageEndTime = logTimeNs;
    stats.messageCount++;
    stats.channelMessageCounts.set(channelId, (stats.channelMessageCounts.get(channelId) ?? 0n) + 1n);
  }

  private async write(buffers: readonly Uint8Array[]): Promise<void> {
    const { bytesWritten } = await this.handle.writev(buffers as Uint8Array[]);
    const expected = buffers.reduce((sum, buffer) => sum + buffer.byteLength, 0);
    if (bytesWritten !== expected) throw new Error(`wrote ${bytesWritten} of ${expected} bytes to ${this.path}`);
    this.position += bytesWritten;
  }
}

/** A chunk record up to (not including) its records, whose length it declares. */
function chunkRecordHeader(chunk: Omit<McapTypes.Chunk, 'records'> & { recordsBytes: number }): Uint8Array {
  const compression = new TextEncoder().encode(chunk.compression);
  const contentBytes = 8 + 8 + 8 + 4 + 4 + compression.byteLength + 8 + chunk.recordsBytes;
  const header = new Uint8Array(1 + 8 + contentBytes - chunk.recordsBytes);
  const view = new DataView(header.buffer);
  let offset = 0;
  view.setUint8(offset, Opcode.CHUNK);
  view.setBigUint64((offset += 1), BigInt(contentBytes), true);
  view.setBigUint64((offset += 8), chunk.messageStartTime, true);
  view.setBigUint64((offset += 8), chunk.messageEndTime, true);
  view.setBigUint64((offset += 8), chunk.uncompressedSize, true);
  view.setUint32((offset += 8), chunk.uncompressedCrc, true);
  view.setUint32((offset += 4), compression.byteLength, true);
  header.set(compression, (offset += 4));
  view.setBigUint64(offset + compression.byteLength, BigInt(chunk.recordsBytes), true);
  return header;
}

function channelKey(spec: ChannelSpec): string {
  return `${spec.topic}\u0000${spec.schemaName}\u0000${spec.schemaEncoding}\u0000${spec.messageEncoding}`;
}
