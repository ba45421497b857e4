// Reads a session's MCAP files back through, chunk by chunk (each decompressed and its CRC checked),
// and counts the messages found per topic: what the soak compares with what the recorder was given.
import { createReadStream } from 'node:fs';
import { McapStreamReader } from '@mcap/core';
import { zstdReady } from '../../recording/chunkCompression.ts';
import { DECOMPRESS_HANDLERS } from '../../recording/recordingReader.ts';

export interface McapReadBack {
  /** Messages read back per topic, over every file. */
  byTopic: Map<string, number>;
  total: number;
  /** Files that ended without their footer (cut short): their finished chunks still count. */
  unfinishedFiles: string[];
}

export async function readBackMessages(paths: readonly string[]): Promise<McapReadBack> {
  await zstdReady();
  const byTopic = new Map<string, number>();
  const unfinishedFiles: string[] = [];
  let total = 0;
  for (const path of paths) {
    const reader = new McapStreamReader({ decompressHandlers: DECOMPRESS_HANDLERS, validateCrcs: true });
    const channelTopics = new Map<number, string>();
    let footer = false;
    // One file at a time and a few MiB at a time: an hour's log is many GiB.
    for await (const bytes of createReadStream(path, { highWaterMark: 4 * 1024 * 1024 })) {
      reader.append(bytes as Buffer);
      for (let record = reader.nextRecord(); record !== undefined; record = reader.nextRecord()) {
        if (record.type === 'Channel') channelTopics.set(record.id, record.topic);
        else if (record.type === 'Message') {
          const topic = channelTopics.get(record.channelId) ?? `channel ${record.channelId}`;
          byTopic.set(topic, (byTopic.get(topic) ?? 0) + 1);
          total++;
        } else if (record.type === 'Footer') footer = true;
      }
    }
    if (!footer) unfinishedFiles.push(path);
  }
  return { byTopic, total, unfinishedFiles };
}
