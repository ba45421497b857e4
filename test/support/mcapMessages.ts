// Counts what a streaming reader finds in an MCAP file as it is on disk now: finished chunks only,
// with or without a footer. Fault tests compare it before and after a crash or a full disk.
import { readFile } from 'node:fs/promises';
import { McapStreamReader } from '@mcap/core';
import { DECOMPRESS_HANDLERS, zstdReady } from '../../main/recording/chunkCompression.ts';

export interface LogContents {
  messages: number;
  /** Messages per topic. */
  topics: Map<string, number>;
  footer: boolean;
}

export async function readLogAsItIs(path: string): Promise<LogContents> {
  await zstdReady();
  const reader = new McapStreamReader({ decompressHandlers: DECOMPRESS_HANDLERS });
  reader.append(await readFile(path));
  const channelTopics = new Map<number, string>();
  const topics = new Map<string, number>();
  let messages = 0;
  let footer = false;
  for (let record = reader.nextRecord(); record !== undefined; record = reader.nextRecord()) {
    if (record.type === 'Channel') channelTopics.set(record.id, record.topic);
    if (record.type === 'Message') {
      messages++;
      const topic = channelTopics.get(record.channelId) ?? '?';
      topics.set(topic, (topics.get(topic) ?? 0) + 1);
    }
    if (record.type === 'Footer') footer = true;
  }
  return { messages, topics, footer };
}
