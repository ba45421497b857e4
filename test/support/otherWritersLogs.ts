// MCAP logs laid out as other tools write them, by @mcap/core's own McapWriter with its options: no
// statistics, no chunk index, no message indexes, no summary at all, unchunked, lz4 chunks (by lz4js,
// which shares no code with the reader's lz4). For tests of reading logs Reins did not write.
import { open, writeFile } from 'node:fs/promises';
import { parse } from '@foxglove/rosmsg';
import { MessageReader, MessageWriter } from '@foxglove/rosmsg2-serialization';
import { McapIndexedReader, McapWriter, TempBuffer, type McapWriterOptions } from '@mcap/core';
import { loadDecompressHandlers } from '@mcap/support';
import { compress } from 'lz4js';
import { ConcurrentFileReadable } from '../../main/recording/recordingReader.ts';

export interface WrittenMessage {
  topic: string;
  logTimeNs: bigint;
  publishTimeNs: bigint;
  value: { topic: string; i: number };
}

/** 1,700,000,000 s and 123 ns: times a float of milliseconds cannot hold to the nanosecond. */
export const OTHER_LOG_START_NS = 1_700_000_000_000_000_123n;
export const OTHER_LOG_TOPICS = ['/notes', '/status'] as const;

/** Leaves out every part of the summary: the footer says there is none (an unindexed log). */
export const NO_SUMMARY = {
  repeatSchemas: false,
  repeatChannels: false,
  useStatistics: false,
  useChunkIndex: false,
  useAttachmentIndex: false,
  useMetadataIndex: false,
  useSummaryOffsets: false,
} satisfies Partial<McapWriterOptions>;

/** For McapWriter's `compressChunk`: every chunk an LZ4 frame. */
export function lz4Chunk(chunk: Uint8Array): { compression: string; compressedData: Uint8Array } {
  return { compression: 'lz4', compressedData: compress(chunk) };
}

/**
 * Writes `messagesPerTopic` JSON messages on each of OTHER_LOG_TOPICS (one with a `jsonschema`
 * schema, one schemaless), interleaved, 10 ms and a few nanoseconds apart, in chunks of about 1 KiB
 * unless the options say otherwise; returns them in log-time order.
 */
export async function writeOtherWritersLog(path: string, options: Omit<McapWriterOptions, 'writable'>, messagesPerTopic = 40): Promise<WrittenMessage[]> {
  const buffer = new TempBuffer();
  const writer = new McapWriter({ chunkSize: 1024, ...options, writable: buffer });
  await writer.start({ profile: '', library: 'another tool' });
  const schemaId = await writer.registerSchema({
    name: 'other.Note',
    encoding: 'jsonschema',
    data: new TextEncoder().encode(JSON.stringify({ type: 'object', properties: { topic: { type: 'string' }, i: { type: 'integer' } } })),
  });
  const channelIds = [
    await writer.registerChannel({ topic: OTHER_LOG_TOPICS[0], schemaId, messageEncoding: 'json', metadata: new Map() }),
    await writer.registerChannel({ topic: OTHER_LOG_TOPICS[1], schemaId: 0, messageEncoding: 'json', metadata: new Map() }),
  ];
  const written: WrittenMessage[] = [];
  for (let i = 0; i < messagesPerTopic; i++) {
    for (const [index, topic] of OTHER_LOG_TOPICS.entries()) {
      const logTimeNs = OTHER_LOG_START_NS + BigInt(i) * 10_000_007n + BigInt(index) * 3_000_001n;
      const publishTimeNs = logTimeNs - 1_999_999n;
      const value = { topic, i };
      await writer.addMessage({
        channelId: channelIds[index]!,
        sequence: i,
        logTime: logTimeNs,
        publishTime: publishTimeNs,
        data: new TextEncoder().encode(JSON.stringify(value)),
      });
      written.push({ topic, logTimeNs, publishTimeNs, value });
    }
  }
  await writer.end();
  await writeFile(path, buffer.get());
  return written;
}

/**
 * The log rewritten by @mcap/core's writer with no summary, chunks compressed by `compressChunk`;
 * with `doubledOdometry`, also a second odometry topic of that name: /odom with its x doubled.
 */
export async function rewriteWithoutSummary(
  from: string,
  to: string,
  compressChunk: (chunk: Uint8Array) => { compression: string; compressedData: Uint8Array },
  doubledOdometry?: string,
): Promise<void> {
  const handle = await open(from, 'r');
  try {
    const reader = await McapIndexedReader.Initialize({ readable: new ConcurrentFileReadable(handle), decompressHandlers: await loadDecompressHandlers() });
    const buffer = new TempBuffer();
    const writer = new McapWriter({ writable: buffer, ...NO_SUMMARY, compressChunk, chunkSize: 32 * 1024 });
    await writer.start({ profile: 'ros2', library: 'test rewrite' });
    const schemaIds = new Map<number, number>();
    for (const schema of reader.schemasById.values()) schemaIds.set(schema.id, await writer.registerSchema(schema));
    const channelIds = new Map<number, number>();
    let odometry: { from: number; to: number; reader: MessageReader; writer: MessageWriter } | undefined;
    for (const channel of reader.channelsById.values()) {
      const schemaId = schemaIds.get(channel.schemaId) ?? 0;
      channelIds.set(channel.id, await writer.registerChannel({ ...channel, schemaId }));
      if (doubledOdometry !== undefined && channel.topic === '/odom') {
        const definitions = parse(new TextDecoder().decode(reader.schemasById.get(channel.schemaId)!.data), { ros2: true });
        const id = await writer.registerChannel({ ...channel, topic: doubledOdometry, schemaId });
        odometry = { from: channel.id, to: id, reader: new MessageReader(definitions), writer: new MessageWriter(definitions) };
      }
    }
    for await (const message of reader.readMessages()) {
      await writer.addMessage({ ...message, channelId: channelIds.get(message.channelId)! });
      if (odometry !== undefined && message.channelId === odometry.from) {
        const value = odometry.reader.readMessage<{ pose: { pose: { position: { x: number } } } }>(message.data);
        value.pose.pose.position.x *= 2;
        await writer.addMessage({ ...message, channelId: odometry.to, data: odometry.writer.writeMessage(value) });
      }
    }
    await writer.end();
    await writeFile(to, buffer.get());
  } finally {
    await handle.close();
  }
}
