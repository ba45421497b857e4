// Any MCAP file opened for review, however it was left and whoever wrote it. A whole log opens
// through its summary alone (McapIndexedReader: a 2 GB file opens without reading its data) when the
// summary locates every message (chunk indexes) and counts them (statistics, or else the message
// indexes); a log whose summary does not, and a crashed, cut or damaged one, is read through once
// (logScan.ts) to find what is readable. Either way the messages are read block by block
// (logBlocks.ts), so a chunk that fails its CRC costs only its own messages, and channels Reins
// cannot decode are listed and skipped. What was lost is said in `problems`, in words.
import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { McapIndexedReader, Opcode, type McapTypes } from '@mcap/core';
import { decompressorsReady } from './chunkCompression.ts';
import {
  definitionRecords,
  indexedMessageCounts,
  latestMessage,
  messagesInOrder,
  readBlockMessages,
  readBytes,
  type LogBlock,
  type LogDefinitions,
} from './logBlocks.ts';
import { damageReason, scanLog, summaryLocatesMessages } from './logScan.ts';
import { formatLogTime, msFromNs, nsFromMs } from './logTimes.ts';
import { RecentBlocks } from './recentBlocks.ts';
import { UnreadableSchemaError } from './protobufDecoding.ts';
import { ConcurrentFileReadable, messageDecoder, type RecordedMessage, type TimeRange } from './recordingReader.ts';

export interface ReviewLogOptions {
  /** Told the fraction read, when a damaged log must be read through to open. */
  onProgress?: (fraction: number) => void;
}

export interface ReviewTopic {
  topic: string;
  schemaName: string;
  schemaEncoding: string;
  messageEncoding: string;
  messageCount: number;
}

export interface ReviewLogSummary {
  topics: ReviewTopic[];
  /** Log times (epoch ms) of the first and last readable message; 0 when there is none. */
  startMs: number;
  endMs: number;
  chunkCount: number;
}

/** A log opened for review, whatever its format (an MCAP log here, a ROS 1 bag in bagReviewLog.ts). */
export interface ReviewableLog {
  readonly path: string;
  readonly summary: ReviewLogSummary;
  /** What could not be read, in words. */
  readonly problems: readonly string[];
  /** Every channel with its schema's name and its message encoding (`ros1`, `cdr`, `json`, …). */
  readonly channels: readonly { topic: string; schemaName: string; messageEncoding: string }[];
  readonly startMs: number;
  readonly endMs: number;
  messages(range?: TimeRange): AsyncGenerator<RecordedMessage>;
  latestAt(topic: string, timeMs: number): Promise<RecordedMessage | undefined>;
  close(): Promise<void>;
}

const MCAP_MAGIC = [0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a];

export async function openReviewLog(path: string, options: ReviewLogOptions = {}): Promise<ReviewLog> {
  await decompressorsReady();
  const handle = await open(path, 'r');
  try {
    const sizeBytes = (await handle.stat()).size;
    await checkMagic(handle, path, sizeBytes);
    let mcap: McapIndexedReader;
    try {
      mcap = await McapIndexedReader.Initialize({ readable: new ConcurrentFileReadable(handle), decompressHandlers: {} });
    } catch (error) {
      const scanned = await scanLog(handle, sizeBytes, options);
      const cause = (error as Error).message.replace(/ \[library=.*\]$/, '');
      const noIndex = scanned.problems.length > 0 ? [] : [`the log's summary could not be read (${cause}): it was re-indexed by reading the file through`];
      return new ReviewLog(path, handle, { ...scanned, problems: [...noIndex, ...scanned.problems] });
    }
    if (summaryLocatesMessages(mcap)) {
      const counts = statisticsCounts(mcap.statistics) ?? (await indexedMessageCounts(handle, mcap.chunkIndexes));
      if (counts !== undefined) return ReviewLog.fromSummary(path, handle, mcap, counts);
    }
    // The summary does not say where the messages are (unchunked, or no chunk index), or how many
    // each topic has (no statistics and no message indexes): the log is read through once.
    return new ReviewLog(path, handle, await scanLog(handle, sizeBytes, options));
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Messages per channel as a statistics record counts them; undefined when there is none, or it counts only the total. */
function statisticsCounts(statistics: McapTypes.Statistics | undefined): Map<number, number> | undefined {
  if (statistics === undefined || (statistics.channelMessageCounts.size === 0 && statistics.messageCount > 0n)) return undefined;
  return new Map([...statistics.channelMessageCounts].map(([id, count]) => [id, Number(count)]));
}

async function checkMagic(handle: FileHandle, path: string, sizeBytes: number): Promise<void> {
  const start = await readBytes(handle, 0, Math.min(MCAP_MAGIC.length, sizeBytes));
  if (start.length === MCAP_MAGIC.length && MCAP_MAGIC.every((byte, i) => start[i] === byte)) return;
  if (sizeBytes === 0) throw new Error(`${basename(path)} is empty, not an MCAP log`);
  const shown = Array.from(start, (byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`)).join('');
  throw new Error(`${basename(path)} is not an MCAP log (it starts with '${shown}')`);
}

interface LogContents extends LogDefinitions {
  blocks: readonly LogBlock[];
  messageCounts: ReadonlyMap<number, number>;
  chunkCount: number;
  problems: string[];
}

/**
 * A log read block by block (an MCAP log's chunks, a bag's chunks): in log-time order however the
 * blocks overlap, each on its own, so a block that does not read costs only its own messages and is
 * said once; undecodable messages are left out and said once per topic. A format supplies how a
 * block's messages are read, what its damage costs, and how each channel decodes.
 */
export abstract class BlockReviewLog implements ReviewableLog {
  abstract readonly summary: ReviewLogSummary;
  /** Blocks found damaged on reading: skipped from then on. */
  private readonly damaged = new Set<LogBlock>();
  private readonly reported = new Set<string>();
  /** The blocks read last: a seek reads each stream's latest message from the same few. */
  private readonly recent = new RecentBlocks();

  protected constructor(
    readonly path: string,
    protected readonly handle: FileHandle,
    protected readonly blocks: readonly LogBlock[],
    /** What could not be read, in words; grows as reading finds more. */
    protected readonly problemList: string[],
  ) {}

  /** Each channel's id and topic. */
  protected abstract channelTopics(): Iterable<{ id: number; topic: string }>;
  /** A block's messages; throws when the block cannot be read. */
  protected abstract readMessages(block: LogBlock): Promise<McapTypes.Message[]>;
  /** The problem to say for a block that could not be read. */
  protected abstract damageProblem(block: LogBlock, error: unknown): Promise<string>;
  /** The channel's topic and schema name; undefined for a channel the log does not have. */
  protected abstract channelOf(channelId: number): { topic: string; schemaName: string } | undefined;
  /** The channel's decoder; undefined (with a problem said once) when Reins cannot decode it. */
  protected abstract decoder(channelId: number): ((data: Uint8Array) => unknown) | undefined;

  get problems(): readonly string[] {
    return this.problemList;
  }

  get channels(): readonly { topic: string; schemaName: string; messageEncoding: string }[] {
    return this.summary.topics;
  }

  get startMs(): number {
    return this.summary.startMs;
  }

  get endMs(): number {
    return this.summary.endMs;
  }

  /** Messages of the topics (all when omitted) with log times in [startMs, endMs], in log-time order; undecodable ones are left out. */
  async *messages(range: TimeRange = {}): AsyncGenerator<RecordedMessage> {
    const startNs = range.startMs === undefined ? 0n : nsFromMs(range.startMs);
    const endNs = range.endMs === undefined ? BigInt(Number.MAX_SAFE_INTEGER) * 1_000_000n : nsFromMs(range.endMs);
    for await (const message of messagesInOrder(this.blocks, (block) => this.readBlock(block), startNs, endNs, this.channelIdsOf(range.topics))) {
      const decoded = this.decode(message);
      if (decoded !== undefined) yield decoded;
    }
  }

  /** The last decodable message of a topic logged at or before `timeMs`, if any. */
  async latestAt(topic: string, timeMs: number): Promise<RecordedMessage | undefined> {
    const best = await latestMessage(
      this.blocks,
      (block) => this.readBlock(block),
      this.channelIdsOf([topic])!,
      nsFromMs(timeMs),
      (message) => this.decoder(message.channelId) !== undefined,
    );
    return best === undefined ? undefined : this.decode(best);
  }

  async close(): Promise<void> {
    this.recent.clear();
    await this.handle.close();
  }

  protected reportOnce(key: string, problem: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.problemList.push(problem);
  }

  private channelIdsOf(topics: readonly string[] | undefined): Set<number> | undefined {
    if (topics === undefined) return undefined;
    return new Set([...this.channelTopics()].filter((channel) => topics.includes(channel.topic)).map((channel) => channel.id));
  }

  /** A block's messages; a damaged block is said once and reads as empty. */
  private async readBlock(block: LogBlock): Promise<McapTypes.Message[]> {
    if (this.damaged.has(block)) return [];
    try {
      return await this.recent.get(block, (unread) => this.readMessages(unread));
    } catch (error) {
      this.damaged.add(block);
      // Two reads may find the same damage at once (a replay playing while a frame is looked up).
      this.reportOnce(`block:${block.offset}`, await this.damageProblem(block, error));
      return [];
    }
  }

  private decode(message: McapTypes.Message): RecordedMessage | undefined {
    const decode = this.decoder(message.channelId);
    const channel = this.channelOf(message.channelId);
    if (decode === undefined || channel === undefined) return undefined;
    try {
      return {
        topic: channel.topic,
        schemaName: channel.schemaName,
        logTimeNs: message.logTime,
        publishTimeNs: message.publishTime,
        logTimeMs: msFromNs(message.logTime),
        publishTimeMs: msFromNs(message.publishTime),
        value: decode(message.data),
      };
    } catch (error) {
      this.reportOnce(
        `undecodable:${channel.topic}`,
        `a message on ${channel.topic} at ${formatLogTime(message.logTime)} cannot be decoded (${(error as Error).message}): such messages are skipped`,
      );
      return undefined;
    }
  }
}

/** The span of a log's blocks, in milliseconds (0 and 0 without any). */
export function blockSpanMs(blocks: readonly LogBlock[]): { startMs: number; endMs: number } {
  const startNs = blocks.reduce((min, block) => (min === undefined || block.startNs < min ? block.startNs : min), undefined as bigint | undefined);
  const endNs = blocks.reduce((max, block) => (block.endNs > max ? block.endNs : max), 0n);
  return { startMs: startNs === undefined ? 0 : msFromNs(startNs), endMs: msFromNs(endNs) };
}

export class ReviewLog extends BlockReviewLog {
  readonly summary: ReviewLogSummary;
  private readonly decoders = new Map<number, ((data: Uint8Array) => unknown) | undefined>();
  private readonly definitions: Uint8Array;

  /** Opens through the summary: schemas, channels and chunk indexes, with each channel's message count. */
  static fromSummary(path: string, handle: FileHandle, mcap: McapIndexedReader, counts: ReadonlyMap<number, number>): ReviewLog {
    const blocks = mcap.chunkIndexes.map((chunk, index) => ({
      offset: Number(chunk.chunkStartOffset),
      length: Number(chunk.chunkLength),
      startNs: chunk.messageStartTime,
      endNs: chunk.messageEndTime,
      channelIds: chunk.messageIndexOffsets.size > 0 ? new Set(chunk.messageIndexOffsets.keys()) : undefined,
      chunkNumber: index + 1,
    }));
    return new ReviewLog(path, handle, {
      schemas: mcap.schemasById,
      channels: mcap.channelsById,
      blocks,
      messageCounts: counts,
      chunkCount: blocks.length,
      problems: [],
    });
  }

  constructor(
    path: string,
    handle: FileHandle,
    private readonly contents: LogContents,
  ) {
    super(path, handle, contents.blocks, [...contents.problems]);
    this.definitions = definitionRecords(contents);
    this.summary = {
      topics: [...contents.channels.values()].map((channel) => this.describe(channel)),
      ...blockSpanMs(contents.blocks),
      chunkCount: contents.chunkCount,
    };
    for (const channel of contents.channels.values()) this.decoder(channel.id);
  }

  protected channelTopics(): Iterable<{ id: number; topic: string }> {
    return this.contents.channels.values();
  }

  protected readMessages(block: LogBlock): Promise<McapTypes.Message[]> {
    return readBlockMessages(this.handle, block, this.definitions);
  }

  protected async damageProblem(block: LogBlock, error: unknown): Promise<string> {
    const span = `${formatLogTime(block.startNs)}–${formatLogTime(block.endNs)}`;
    const lost = await this.messagesIndexedIn(block);
    const what = block.chunkNumber === undefined ? `the messages at byte ${block.offset} (${span})` : `chunk ${block.chunkNumber} (${span})`;
    return `${what} ${damageReason(error)}: its ${lost === undefined ? '' : `${lost} `}messages are skipped`;
  }

  protected channelOf(channelId: number): { topic: string; schemaName: string } | undefined {
    const channel = this.contents.channels.get(channelId);
    return channel === undefined ? undefined : { topic: channel.topic, schemaName: this.contents.schemas.get(channel.schemaId)?.name ?? '' };
  }

  /** How many messages the message indexes after a chunk list, when the file has them. */
  private async messagesIndexedIn(block: LogBlock): Promise<number | undefined> {
    const indexStart = block.offset + block.length;
    try {
      let count = 0;
      for (let offset = indexStart; ;) {
        const recordHeader = await readBytes(this.handle, offset, 9);
        if (recordHeader[0] !== Opcode.MESSAGE_INDEX) return offset === indexStart ? undefined : count;
        const length = Number(new DataView(recordHeader.buffer).getBigUint64(1, true));
        const entries = await readBytes(this.handle, offset + 9 + 2, 4);
        count += Math.floor(new DataView(entries.buffer).getUint32(0, true) / 16);
        offset += 9 + length;
      }
    } catch {
      return undefined;
    }
  }

  protected decoder(channelId: number): ((data: Uint8Array) => unknown) | undefined {
    if (this.decoders.has(channelId)) return this.decoders.get(channelId);
    const channel = this.contents.channels.get(channelId);
    let decoder: ((data: Uint8Array) => unknown) | undefined;
    if (channel !== undefined) {
      const schema = this.contents.schemas.get(channel.schemaId);
      try {
        decoder = messageDecoder(channel, schema);
      } catch (error) {
        const count = this.contents.messageCounts.get(channelId) ?? 0;
        const encoding = ['ros1', 'cdr', 'json', 'protobuf'].includes(channel.messageEncoding)
          ? `schema encoding "${schema?.encoding ?? 'none'}"`
          : `message encoding "${channel.messageEncoding}"`;
        const why = (error as Error).message.startsWith(`${channel.topic}: unknown message encoding`) ? '' : ` (${(error as Error).message})`;
        const unreadable =
          error instanceof UnreadableSchemaError
            ? `topic ${channel.topic}: ${error.message}`
            : `topic ${channel.topic} uses ${encoding}, which Reins cannot decode${why}`;
        this.problemList.push(`${unreadable}: its ${count} messages are listed but not shown`);
      }
    }
    this.decoders.set(channelId, decoder);
    return decoder;
  }

  private describe(channel: McapTypes.Channel): ReviewTopic {
    const schema = this.contents.schemas.get(channel.schemaId);
    return {
      topic: channel.topic,
      schemaName: schema?.name ?? '',
      schemaEncoding: schema?.encoding ?? '',
      messageEncoding: channel.messageEncoding,
      messageCount: this.contents.messageCounts.get(channel.id) ?? 0,
    };
  }
}
