// A ROS 1 bag (format 2.0, as `rosbag record` and the rosbag Python library write it) opened for
// review. @foxglove/rosbag reads the index at the end of the file (connections and chunk infos),
// which gives the topics, their message counts and the time span without reading a message, and
// reads one chunk at a time (bz2 and lz4 through @mcap/support's WebAssembly builds of both
// libraries). The chunks are read as the blocks of an MCAP log are (logBlocks.ts): in log-time order
// however they overlap, each on its own, so a chunk that does not decompress costs only its own
// messages. Each connection's messages decode with the definition it carries (types named `pkg/Type`).
import { open, type FileHandle } from 'node:fs/promises';
import { Bag } from '@foxglove/rosbag';
import { MessageReader } from '@foxglove/rosmsg-serialization';
import type { McapTypes } from '@mcap/core';
import { loadDecompressHandlers } from '@mcap/support';
import { latestMessage, messagesInOrder, readBytes, type LogBlock } from './logBlocks.ts';
import { damageReason } from './logScan.ts';
import { formatLogTime, msFromNs, nsFromMs } from './logTimes.ts';
import type { RecordedMessage, TimeRange } from './recordingReader.ts';
import type { ReviewableLog, ReviewLogSummary, ReviewTopic } from './reviewLog.ts';
import { parsedDefinitions } from './rosSchemas.ts';

type Connection = Bag['connections'] extends Map<number, infer C> ? C : never;
type ChunkInfo = Bag['chunkInfos'][number];
type Decompress = Parameters<Bag['reader']['readChunkMessages']>[4];

const NO_END_NS = BigInt(Number.MAX_SAFE_INTEGER) * 1_000_000n;

export async function openBagReviewLog(path: string): Promise<BagReviewLog> {
  const handlers = await loadDecompressHandlers();
  const decompress: Decompress = {
    bz2: (buffer, size) => handlers.bz2!(buffer, BigInt(size)),
    lz4: (buffer, size) => handlers.lz4!(buffer, BigInt(size)),
  };
  const handle = await open(path, 'r');
  try {
    const sizeBytes = (await handle.stat()).size;
    const bag = new Bag({ read: (offset, length) => readBytes(handle, offset, length), size: () => sizeBytes }, { parse: false, decompress });
    try {
      await bag.open();
    } catch (error) {
      throw new Error(
        `its index cannot be read (${indexProblem(bag, sizeBytes, error)}): the bag may be cut short or still being recorded (\`rosbag reindex\` repairs it)`,
      );
    }
    return new BagReviewLog(path, handle, bag, decompress);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Why the index did not read, in the bag's terms where its header says enough. */
function indexProblem(bag: Bag, sizeBytes: number, error: unknown): string {
  const indexAt = bag.header?.indexPosition;
  if (indexAt === 0) return 'its header says it has none';
  if (indexAt !== undefined && indexAt >= sizeBytes) return `the file ends at byte ${sizeBytes}, before the index at byte ${indexAt}`;
  return (error as Error).message;
}

function nsOf(time: { sec: number; nsec: number }): bigint {
  return BigInt(time.sec) * 1_000_000_000n + BigInt(time.nsec);
}

export class BagReviewLog implements ReviewableLog {
  readonly summary: ReviewLogSummary;
  /** The bag's chunks as blocks (a chunk record and the index records after it), each with its chunk info. */
  private readonly blocks: LogBlock[];
  private readonly chunkOf = new Map<LogBlock, ChunkInfo>();
  private readonly decoders = new Map<number, ((data: Uint8Array) => unknown) | undefined>();
  /** Chunks found damaged on reading: skipped from then on. */
  private readonly damaged = new Set<LogBlock>();
  private readonly problemList: string[] = [];
  private readonly reported = new Set<string>();

  constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly bag: Bag,
    private readonly decompress: Decompress,
  ) {
    const indexAt = bag.header?.indexPosition ?? 0;
    this.blocks = bag.chunkInfos.map((info, index) => {
      const block: LogBlock = {
        offset: info.chunkPosition,
        length: (bag.chunkInfos[index + 1]?.chunkPosition ?? indexAt) - info.chunkPosition,
        startNs: nsOf(info.startTime),
        endNs: nsOf(info.endTime),
        channelIds: new Set(info.connections.map((connection) => connection.conn)),
        chunkNumber: index + 1,
      };
      this.chunkOf.set(block, info);
      return block;
    });
    const counts = new Map<number, number>();
    for (const info of bag.chunkInfos) for (const { conn, count } of info.connections) counts.set(conn, (counts.get(conn) ?? 0) + count);
    const topics = new Map<string, ReviewTopic>();
    for (const connection of bag.connections.values()) {
      const topic = topics.get(connection.topic);
      const count = counts.get(connection.conn) ?? 0;
      if (topic !== undefined) topic.messageCount += count;
      else
        topics.set(connection.topic, {
          topic: connection.topic,
          schemaName: connection.type ?? '',
          schemaEncoding: 'ros1msg',
          messageEncoding: 'ros1',
          messageCount: count,
        });
    }
    const startNs = this.blocks.reduce((min, block) => (min === undefined || block.startNs < min ? block.startNs : min), undefined as bigint | undefined);
    const endNs = this.blocks.reduce((max, block) => (block.endNs > max ? block.endNs : max), 0n);
    this.summary = {
      topics: [...topics.values()],
      startMs: startNs === undefined ? 0 : msFromNs(startNs),
      endMs: msFromNs(endNs),
      chunkCount: this.blocks.length,
    };
    for (const connection of bag.connections.values()) this.decoder(connection);
  }

  /** What could not be read, in words; grows when reading finds a damaged chunk or an undecodable message. */
  get problems(): readonly string[] {
    return this.problemList;
  }

  get channels(): readonly { topic: string; schemaName: string }[] {
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
    const endNs = range.endMs === undefined ? NO_END_NS : nsFromMs(range.endMs);
    for await (const message of messagesInOrder(this.blocks, (block) => this.readBlock(block), startNs, endNs, this.connectionIdsOf(range.topics))) {
      const decoded = this.decode(message);
      if (decoded !== undefined) yield decoded;
    }
  }

  /** The last decodable message of a topic recorded at or before `timeMs`, if any. */
  async latestAt(topic: string, timeMs: number): Promise<RecordedMessage | undefined> {
    const best = await latestMessage(
      this.blocks,
      (block) => this.readBlock(block),
      this.connectionIdsOf([topic])!,
      nsFromMs(timeMs),
      (message) => this.decoderOf(message.channelId) !== undefined,
    );
    return best === undefined ? undefined : this.decode(best);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private connectionIdsOf(topics: readonly string[] | undefined): Set<number> | undefined {
    if (topics === undefined) return undefined;
    return new Set([...this.bag.connections.values()].filter((connection) => topics.includes(connection.topic)).map((connection) => connection.conn));
  }

  /** A chunk's messages, as MCAP messages of channel = connection id; a damaged chunk is reported once and reads as empty. */
  private async readBlock(block: LogBlock): Promise<McapTypes.Message[]> {
    if (this.damaged.has(block)) return [];
    const info = this.chunkOf.get(block)!;
    try {
      const records = await this.bag.reader.readChunkMessages(info, [...block.channelIds!], info.startTime, info.endTime, this.decompress);
      return records.map((record) => {
        const timeNs = nsOf(record.time);
        // A bag keeps one time per message, when it was recorded: it is both log and publish time.
        return { channelId: record.conn, sequence: 0, logTime: timeNs, publishTime: timeNs, data: record.data ?? new Uint8Array(0) };
      });
    } catch (error) {
      this.damaged.add(block);
      const lost = info.connections.reduce((sum, connection) => sum + connection.count, 0);
      this.reportOnce(
        `chunk:${block.offset}`,
        `chunk ${block.chunkNumber} (${formatLogTime(block.startNs)}–${formatLogTime(block.endNs)}) ${damageReason(error)}: its ${lost} messages are skipped`,
      );
      return [];
    }
  }

  private decode(message: McapTypes.Message): RecordedMessage | undefined {
    const connection = this.bag.connections.get(message.channelId);
    const decode = this.decoderOf(message.channelId);
    if (decode === undefined || connection === undefined) return undefined;
    try {
      return {
        topic: connection.topic,
        schemaName: connection.type ?? '',
        logTimeNs: message.logTime,
        publishTimeNs: message.publishTime,
        logTimeMs: msFromNs(message.logTime),
        publishTimeMs: msFromNs(message.publishTime),
        value: decode(message.data),
      };
    } catch (error) {
      this.reportOnce(
        `undecodable:${connection.topic}`,
        `a message on ${connection.topic} at ${formatLogTime(message.logTime)} cannot be decoded (${(error as Error).message}): such messages are skipped`,
      );
      return undefined;
    }
  }

  private decoderOf(connectionId: number): ((data: Uint8Array) => unknown) | undefined {
    const connection = this.bag.connections.get(connectionId);
    return connection === undefined ? undefined : this.decoder(connection);
  }

  /** The connection's decoder; undefined (with a problem said once) when its definition does not parse. */
  private decoder(connection: Connection): ((data: Uint8Array) => unknown) | undefined {
    if (this.decoders.has(connection.conn)) return this.decoders.get(connection.conn);
    let decoder: ((data: Uint8Array) => unknown) | undefined;
    try {
      const reader = new MessageReader(parsedDefinitions(connection.messageDefinition));
      decoder = (data) => reader.readMessage(data);
    } catch (error) {
      const count = this.summary.topics.find((topic) => topic.topic === connection.topic)?.messageCount ?? 0;
      this.reportOnce(
        `definition:${connection.topic}`,
        `topic ${connection.topic} (${connection.type ?? 'no type'}) has a definition Reins cannot read (${(error as Error).message}): its ${count} messages are listed but not shown`,
      );
    }
    this.decoders.set(connection.conn, decoder);
    return decoder;
  }

  private reportOnce(key: string, problem: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.problemList.push(problem);
  }
}
