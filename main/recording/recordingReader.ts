// Random access into a recorded log by time: the messages of some topics in a time range (clips),
// and the latest message of a topic at a time (the frame for a preference question or a "similar
// moment"). A strict reader: a log that is damaged or cut is refused in words (ReviewLog reads what
// it can of those), and a channel it cannot decode fails the read. Through the official indexed
// reader when the summary locates every message; a log without a summary, or whose summary does not
// say where its messages are (unchunked, or no chunk index), is read through once on opening to find
// them. Decodes `ros1`, `cdr` (ROS 2: ros2msg and ros2idl schemas), `json` and `protobuf` messages.
import { open, type FileHandle } from 'node:fs/promises';
import { McapIndexedReader, type McapTypes } from '@mcap/core';
import { MessageReader } from '@foxglove/rosmsg-serialization';
import { DECOMPRESS_HANDLERS, decompressorsReady } from './chunkCompression.ts';
import { definitionRecords, latestMessage, messagesInOrder, readBlockMessages, type LogBlock, type LogDefinitions } from './logBlocks.ts';
import { scanLog, summaryLocatesMessages } from './logScan.ts';
import { msFromNs, nsFromMs } from './logTimes.ts';
import { protobufDecoder } from './protobufDecoding.ts';
import { cdrDecoder, isRos2Schema } from './ros2Decoding.ts';
import { parsedDefinitions } from './rosSchemas.ts';

export interface RecordedMessage {
  topic: string;
  schemaName: string;
  /** Log and publish times as the log holds them, whole nanoseconds since the epoch. */
  logTimeNs: bigint;
  publishTimeNs: bigint;
  /** The same times in milliseconds, for timelines and displays. */
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

/** How a channel's messages decode: ROS 1 or ROS 2 (CDR) binary with its schema, JSON, or protobuf with its FileDescriptorSet; anything else is refused. */
export function messageDecoder(channel: McapTypes.Channel, schema: McapTypes.Schema | undefined): (data: Uint8Array) => unknown {
  if (channel.messageEncoding === 'ros1' && schema?.encoding === 'ros1msg') {
    const reader = new MessageReader(parsedDefinitions(textDecoder.decode(schema.data)));
    return (data) => reader.readMessage(data);
  }
  if (channel.messageEncoding === 'cdr' && isRos2Schema(schema)) return cdrDecoder(schema);
  if (channel.messageEncoding === 'json') return (data) => JSON.parse(textDecoder.decode(data)) as unknown;
  if (channel.messageEncoding === 'protobuf' && schema?.encoding === 'protobuf') return protobufDecoder(schema);
  throw new Error(`${channel.topic}: unknown message encoding "${channel.messageEncoding}"`);
}

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

/** Where a log's messages are found: through the summary's chunk indexes, or in the blocks found by reading it through. */
type MessageLocations = { by: 'summary'; mcap: McapIndexedReader } | { by: 'scan'; blocks: readonly LogBlock[]; definitionRecords: Uint8Array };

export class RecordingReader {
  private readonly decoders = new Map<number, (data: Uint8Array) => unknown>();

  /** @param mcap the summary as the official indexed reader opened it; undefined for a log without one */
  private constructor(
    private readonly handle: FileHandle,
    readonly mcap: McapIndexedReader | undefined,
    private readonly definitions: LogDefinitions,
    private readonly locations: MessageLocations,
  ) {}

  static async open(path: string): Promise<RecordingReader> {
    await decompressorsReady();
    const handle = await open(path, 'r');
    try {
      let mcap: McapIndexedReader | undefined;
      let summaryError: Error | undefined;
      try {
        mcap = await McapIndexedReader.Initialize({ readable: new ConcurrentFileReadable(handle), decompressHandlers: DECOMPRESS_HANDLERS });
      } catch (error) {
        summaryError = error as Error;
      }
      if (mcap !== undefined && summaryLocatesMessages(mcap))
        return new RecordingReader(handle, mcap, { schemas: mcap.schemasById, channels: mcap.channelsById }, { by: 'summary', mcap });
      const scanned = await scanLog(handle, (await handle.stat()).size, { openEveryChunk: true });
      if (scanned.problems.length > 0) {
        const summary = summaryError === undefined ? '' : ` (its summary: ${summaryError.message.replace(/ \[library=.*\]$/, '')})`;
        throw new Error(`${path} is not a whole MCAP log${summary}: ${scanned.problems.join('; ')}`);
      }
      return new RecordingReader(handle, mcap, scanned, { by: 'scan', blocks: scanned.blocks, definitionRecords: definitionRecords(scanned) });
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  topics(): string[] {
    return [...this.definitions.channels.values()].map((channel) => channel.topic);
  }

  /** Messages of the topics (all when omitted) with log times in [startMs, endMs], in log-time order. */
  async *messages(range: TimeRange = {}): AsyncGenerator<RecordedMessage> {
    const startNs = range.startMs === undefined ? undefined : nsFromMs(range.startMs);
    const endNs = range.endMs === undefined ? undefined : nsFromMs(range.endMs);
    const { locations } = this;
    const messages =
      locations.by === 'summary'
        ? locations.mcap.readMessages({ topics: range.topics, startTime: startNs, endTime: endNs })
        : messagesInOrder(
            locations.blocks,
            (block) => readBlockMessages(this.handle, block, locations.definitionRecords),
            startNs ?? 0n,
            endNs ?? BigInt(Number.MAX_SAFE_INTEGER) * 1_000_000n,
            this.channelIdsOf(range.topics),
          );
    for await (const message of messages) yield this.decode(message);
  }

  /** The last message of a topic logged at or before `timeMs`, if any. */
  async latestAt(topic: string, timeMs: number): Promise<RecordedMessage | undefined> {
    const timeNs = nsFromMs(timeMs);
    const { locations } = this;
    if (locations.by === 'scan') {
      const readBlock = (block: LogBlock) => readBlockMessages(this.handle, block, locations.definitionRecords);
      const latest = await latestMessage(locations.blocks, readBlock, this.channelIdsOf([topic])!, timeNs);
      return latest === undefined ? undefined : this.decode(latest);
    }
    for await (const message of locations.mcap.readMessages({ topics: [topic], endTime: timeNs, reverse: true })) {
      return this.decode(message);
    }
    return undefined;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private channelIdsOf(topics: readonly string[] | undefined): Set<number> | undefined {
    if (topics === undefined) return undefined;
    return new Set([...this.definitions.channels.values()].filter((channel) => topics.includes(channel.topic)).map((channel) => channel.id));
  }

  private decode(message: McapTypes.Message): RecordedMessage {
    const channel = this.definitions.channels.get(message.channelId)!;
    const schema = this.definitions.schemas.get(channel.schemaId);
    return {
      topic: channel.topic,
      schemaName: schema?.name ?? '',
      logTimeNs: message.logTime,
      publishTimeNs: message.publishTime,
      logTimeMs: msFromNs(message.logTime),
      publishTimeMs: msFromNs(message.publishTime),
      value: this.decoder(message.channelId)(message.data),
    };
  }

  private decoder(channelId: number): (data: Uint8Array) => unknown {
    let decoder = this.decoders.get(channelId);
    if (decoder === undefined) {
      const channel = this.definitions.channels.get(channelId)!;
      decoder = messageDecoder(channel, this.definitions.schemas.get(channel.schemaId));
      this.decoders.set(channelId, decoder);
    }
    return decoder;
  }
}
