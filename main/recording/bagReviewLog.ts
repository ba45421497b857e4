// A ROS 1 bag (format 2.0, as `rosbag record` and the rosbag Python library write it) opened for
// review. @foxglove/rosbag reads the index at the end of the file (connections and chunk infos),
// which gives the topics, their message counts and the time span without reading a message, and
// reads one chunk at a time (bz2 and lz4 through @mcap/support's WebAssembly builds of both
// libraries). The chunks are read as the blocks of an MCAP log are (logBlocks.ts): in log-time order
// however they overlap, each on its own, so a chunk that does not decompress costs only its own
// messages. Each connection's messages decode with the definition it carries (types named `pkg/Type`).
// A bag whose index is damaged or missing is re-indexed by walking its chunks (bagReindex.ts).
import { open, type FileHandle } from 'node:fs/promises';
import { Bag } from '@foxglove/rosbag';
import { MessageReader } from '@foxglove/rosmsg-serialization';
import type { McapTypes } from '@mcap/core';
import { adoptIndex, reindexBag } from './bagReindex.ts';
import { supportDecompressors } from './chunkCompression.ts';
import { readBytes, type LogBlock } from './logBlocks.ts';
import { damageReason } from './logScan.ts';
import { formatLogTime } from './logTimes.ts';
import { BlockReviewLog, blockSpanMs, type ReviewLogSummary, type ReviewTopic } from './reviewLog.ts';
import { parsedDefinitions } from './rosSchemas.ts';

type ChunkInfo = Bag['chunkInfos'][number];
type Decompress = Parameters<Bag['reader']['readChunkMessages']>[4];

export async function openBagReviewLog(path: string): Promise<BagReviewLog> {
  const handlers = await supportDecompressors();
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
      const why = indexProblem(bag, sizeBytes, error);
      // As `rosbag reindex` does: the chunks are found by walking the file, each with its connections and times.
      const reindexed = await reindexBag((offset, length) => readBytes(handle, offset, length), sizeBytes, decompress, bag.header?.indexPosition).catch(
        () => undefined,
      );
      if (reindexed === undefined || reindexed.chunkInfos.length === 0)
        throw new Error(
          `its index cannot be read (${why}), nor any chunk found by reading it through: the bag may be cut short or still being recorded (\`rosbag reindex\` repairs it)`,
        );
      adoptIndex(bag, reindexed);
      const said = `its index cannot be read (${why}): it was re-indexed by reading its ${reindexed.chunkInfos.length} chunks through, as \`rosbag reindex\` would (which repairs the file)`;
      return new BagReviewLog(path, handle, bag, decompress, { problems: [said, ...reindexed.problems], endOfChunks: reindexed.endOfChunks });
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

export class BagReviewLog extends BlockReviewLog {
  readonly summary: ReviewLogSummary;
  private readonly chunkOf = new Map<LogBlock, ChunkInfo>();
  private readonly decoders = new Map<number, ((data: Uint8Array) => unknown) | undefined>();

  constructor(
    path: string,
    handle: FileHandle,
    private readonly bag: Bag,
    private readonly decompress: Decompress,
    /** A bag re-indexed by walking it: what that found, and where its chunks end. */
    reindexed: { problems: string[]; endOfChunks: number } | undefined = undefined,
  ) {
    // The bag's chunks as blocks: a chunk record and the index records after it.
    const indexAt = reindexed?.endOfChunks ?? bag.header?.indexPosition ?? 0;
    const blocks = bag.chunkInfos.map((info, index): LogBlock => ({
      offset: info.chunkPosition,
      length: (bag.chunkInfos[index + 1]?.chunkPosition ?? indexAt) - info.chunkPosition,
      startNs: nsOf(info.startTime),
      endNs: nsOf(info.endTime),
      channelIds: new Set(info.connections.map((connection) => connection.conn)),
      chunkNumber: index + 1,
    }));
    super(path, handle, blocks, [...(reindexed?.problems ?? [])]);
    for (const [index, block] of blocks.entries()) this.chunkOf.set(block, bag.chunkInfos[index]!);
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
    this.summary = { topics: [...topics.values()], ...blockSpanMs(blocks), chunkCount: blocks.length };
    for (const connection of bag.connections.values()) this.decoder(connection.conn);
  }

  protected *channelTopics(): Iterable<{ id: number; topic: string }> {
    for (const connection of this.bag.connections.values()) yield { id: connection.conn, topic: connection.topic };
  }

  /** A chunk's messages, as MCAP messages of channel = connection id. */
  protected async readMessages(block: LogBlock): Promise<McapTypes.Message[]> {
    const info = this.chunkOf.get(block)!;
    const records = await this.bag.reader.readChunkMessages(info, [...block.channelIds!], info.startTime, info.endTime, this.decompress);
    return records.map((record) => {
      const timeNs = nsOf(record.time);
      // A bag keeps one time per message, when it was recorded: it is both log and publish time.
      return { channelId: record.conn, sequence: 0, logTime: timeNs, publishTime: timeNs, data: record.data ?? new Uint8Array(0) };
    });
  }

  protected async damageProblem(block: LogBlock, error: unknown): Promise<string> {
    const lost = this.chunkOf.get(block)!.connections.reduce((sum, connection) => sum + connection.count, 0);
    return `chunk ${block.chunkNumber} (${formatLogTime(block.startNs)}–${formatLogTime(block.endNs)}) ${damageReason(error)}: its ${lost} messages are skipped`;
  }

  protected channelOf(connectionId: number): { topic: string; schemaName: string } | undefined {
    const connection = this.bag.connections.get(connectionId);
    return connection === undefined ? undefined : { topic: connection.topic, schemaName: connection.type ?? '' };
  }

  /** The connection's decoder, from the definition it carries; undefined (with a problem said once) when that does not parse. */
  protected decoder(connectionId: number): ((data: Uint8Array) => unknown) | undefined {
    if (this.decoders.has(connectionId)) return this.decoders.get(connectionId);
    const connection = this.bag.connections.get(connectionId);
    let decoder: ((data: Uint8Array) => unknown) | undefined;
    if (connection !== undefined) {
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
    }
    this.decoders.set(connectionId, decoder);
    return decoder;
  }
}
