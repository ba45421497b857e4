// MCAP logs laid out as other tools write them, by @mcap/core's own McapWriter with its options: no
// statistics, no chunk index, no message indexes, no summary at all, unchunked, lz4 chunks (by lz4js,
// which shares no code with the reader's lz4). For tests of reading logs Reins did not write.
import { writeFile } from 'node:fs/promises';
import { McapWriter, TempBuffer, type McapWriterOptions } from '@mcap/core';
import { compress } from 'lz4js';

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
