// Random access into a recorded log by time: the messages of some topics in a time range (clips),
// and the latest message of a topic at a time (the frame for a preference question or a "similar
// moment"). Uses the chunk and message indexes; decodes `ros1` and `json` messages.
import { open, type FileHandle } from 'node:fs/promises';
import { McapIndexedReader, type McapTypes } from '@mcap/core';
import { MessageReader } from '@foxglove/rosmsg-serialization';
import { decompress } from '@bokuweb/zstd-wasm';
import { zstdReady } from './chunkCompression.ts';
import { nsFromMs } from './entryEncoding.ts';
import { parsedDefinitions } from './rosSchemas.ts';

export interface RecordedMessage {
  topic: string;
  schemaName: string;
  logTimeMs: number;
  publishTimeMs: number;
  /** The message as ROS 1 fields (snake_case, stamps as sec/nsec) or the JSON event. */
  value: unknown;
}

export interface TimeRange {
  topics?: readonly string[];
  startMs?: number;
  endMs?: number;
}

const textDecoder = new TextDecoder();

/** How a channel's messages decode: ROS 1 binary with its schema, or JSON; anything else is refused. */
export function messageDecoder(channel: McapTypes.Channel, schema: McapTypes.Schema | undefined): (data: Uint8Array) => unknown {
  if (channel.messageEncoding === 'ros1' && schema?.encoding === 'ros1msg') {
    const reader = new MessageReader(parsedDefinitions(textDecoder.decode(schema.data)));
    return (data) => reader.readMessage(data);
  }
  if (channel.messageEncoding === 'json') return (data) => JSON.parse(textDecoder.decode(data)) as unknown;
  throw new Error(`${channel.topic}: unknown message encoding "${channel.messageEncoding}"`);
}

export const DECOMPRESS_HANDLERS: McapTypes.DecompressHandlers = {
  zstd: (buffer) => decompress(buffer),
};

/**
 * The log file as @mcap/core reads it. Each read gets its own buffer: @mcap/nodejs' FileHandleReadable
 * reuses one, so two reads in flight at once (a replay playing while a search reads a frame) would
 * overwrite each other's bytes.
 */
export class ConcurrentFileReadable implements McapTypes.IReadable {
  constructor(private readonly handle: FileHandle) {}

  async size(): Promise<bigint> {
    return BigInt((await this.handle.stat()).size);
  }

  async read(offset: bigint, length: bigint): Promise<Uint8Array> {
    if (offset > BigInt(Number.MAX_SAFE_INTEGER) || length > BigInt(Number.MAX_SAFE_INTEGER))
      throw new Error(`read too large: offset ${offset}, length ${length}`);
    const buffer = new Uint8Array(Number(length));
    const { bytesRead } = await this.handle.read({ buffer, position: Number(offset) });
    if (bytesRead !== buffer.length) throw new Error(`read only ${bytesRead} bytes at offset ${offset}, expected ${length}`);
    return buffer;
  }
}

export class RecordingReader {
  private readonly decoders = new Map<number, (data: Uint8Array) => unknown>();

  private constructor(
    private readonly handle: FileHandle,
    readonly mcap: McapIndexedReader,
  ) {}

  static async open(path: string): Promise<RecordingReader> {
    await zstdReady();
    const handle = await open(path, 'r');
    try {
      const mcap = await McapIndexedReader.Initialize({ readable: new ConcurrentFileReadable(handle), decompressHandlers: DECOMPRESS_HANDLERS });
      return new RecordingReader(handle, mcap);
    } catch (error) {
      await handle.close();
      throw new Error(`${path} is not a readable indexed MCAP log: ${(error as Error).message}`, { cause: error });
    }
  }

  topics(): string[] {
    return [...this.mcap.channelsById.values()].map((channel) => channel.topic);
  }

  /** Messages of the topics (all when omitted) with log times in [startMs, endMs], in log-time order. */
  async *messages(range: TimeRange = {}): AsyncGenerator<RecordedMessage> {
    for await (const message of this.mcap.readMessages({
      topics: range.topics,
      startTime: range.startMs === undefined ? undefined : nsFromMs(range.startMs),
      endTime: range.endMs === undefined ? undefined : nsFromMs(range.endMs),
    })) {
      yield this.decode(message);
    }
  }

  /** The last message of a topic logged at or before `timeMs`, if any. */
  async latestAt(topic: string, timeMs: number): Promise<RecordedMessage | undefined> {
    for await (const message of this.mcap.readMessages({ topics: [topic], endTime: nsFromMs(timeMs), reverse: true })) {
      return this.decode(message);
    }
    return undefined;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private decode(message: McapTypes.TypedMcapRecords['Message']): RecordedMessage {
    const channel = this.mcap.channelsById.get(message.channelId)!;
    const schema = this.mcap.schemasById.get(channel.schemaId);
    return {
      topic: channel.topic,
      schemaName: schema?.name ?? '',
      logTimeMs: Number(message.logTime) / 1e6,
      publishTimeMs: Number(message.publishTime) / 1e6,
      value: this.decoder(message.channelId)(message.data),
    };
  }

  private decoder(channelId: number): (data: Uint8Array) => unknown {
    let decoder = this.decoders.get(channelId);
    if (decoder === undefined) {
      const channel = this.mcap.channelsById.get(channelId)!;
      decoder = messageDecoder(channel, this.mcap.schemasById.get(channel.schemaId));
      this.decoders.set(channelId, decoder);
    }
    return decoder;
  }
}
