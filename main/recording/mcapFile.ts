// One MCAP file being written: chunked, indexed (message and chunk indexes, statistics, summary
// offsets), schemas and channels registered the first time a topic appears. Callers await each call
// before the next (McapWriter's rule); the recorder's drain loop does.
import { open, type FileHandle } from 'node:fs/promises';
import { McapWriter } from '@mcap/core';
import { FileHandleWritable } from '@mcap/nodejs';
import { ChunkCompressor } from './chunkCompression.ts';

export interface ChannelSpec {
  topic: string;
  schemaName: string;
  /** `ros1msg` or `jsonschema`. */
  schemaEncoding: string;
  schemaData: Uint8Array;
  /** `ros1` or `json`. */
  messageEncoding: string;
}

/** Chunks of about this size: a crash loses at most the chunk being filled. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;

export class McapFile {
  private readonly channelIds = new Map<string, number>();
  private readonly schemaIds = new Map<string, number>();
  private sequence = 0;
  private messagesAdded = 0;
  private messagesInChunks = 0;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly writable: FileHandleWritable,
    private readonly writer: McapWriter,
    readonly compressor: ChunkCompressor,
  ) {}

  static async create(path: string, chunkBytes = DEFAULT_CHUNK_BYTES, compressor = new ChunkCompressor()): Promise<McapFile> {
    const handle = await open(path, 'wx');
    const writable = new FileHandleWritable(handle);
    const writer = new McapWriter({
      writable,
      useChunks: true,
      useChunkIndex: true,
      useMessageIndex: true,
      useStatistics: true,
      useSummaryOffsets: true,
      chunkSize: chunkBytes,
      compressChunk: compressor.compressChunk,
    });
    await writer.start({ profile: 'ros1', library: 'reins' });
    return new McapFile(path, handle, writable, writer, compressor);
  }

  /** Bytes in the file so far. */
  get sizeBytes(): number {
    return Number(this.writable.position());
  }

  /** Chunks finished and handed to the operating system: they survive a crash of this process. */
  get chunksWritten(): number {
    return Number(this.writer.statistics?.chunkCount ?? 0n);
  }

  /** Messages inside finished chunks. */
  get messagesWritten(): number {
    return this.messagesInChunks;
  }

  async add(channel: ChannelSpec, logTimeNs: bigint, publishTimeNs: bigint, data: Uint8Array): Promise<void> {
    const channelId = this.channelIds.get(channel.topic) ?? (await this.registerChannel(channel));
    const chunksBefore = this.chunksWritten;
    await this.writer.addMessage({ channelId, sequence: this.sequence++, logTime: logTimeNs, publishTime: publishTimeNs, data });
    this.messagesAdded++;
    if (this.chunksWritten !== chunksBefore) this.messagesInChunks = this.messagesAdded;
  }

  /** Writes the last chunk, the indexes and the footer, and closes the file. */
  async close(): Promise<void> {
    try {
      await this.writer.end();
      this.messagesInChunks = this.messagesAdded;
    } finally {
      await this.handle.close();
    }
  }

  /** Closes the file without a footer (after a write failed); readers recover its finished chunks. */
  async abandon(): Promise<void> {
    await this.handle.close();
  }

  private async registerChannel(channel: ChannelSpec): Promise<number> {
    let schemaId = this.schemaIds.get(channel.schemaName);
    if (schemaId === undefined) {
      schemaId = await this.writer.registerSchema({ name: channel.schemaName, encoding: channel.schemaEncoding, data: channel.schemaData });
      this.schemaIds.set(channel.schemaName, schemaId);
    }
    const channelId = await this.writer.registerChannel({ topic: channel.topic, schemaId, messageEncoding: channel.messageEncoding, metadata: new Map() });
    this.channelIds.set(channel.topic, channelId);
    return channelId;
  }
}
