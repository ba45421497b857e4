// What a finished session left behind, read back: every message in its MCAP files (each chunk
// decompressed and its CRC checked) and the rows in its memory. The soak compares them with what the
// recorder and the memory writer were given.
import { createReadStream } from 'node:fs';
import { McapStreamReader } from '@mcap/core';
import type { TickSpace } from '../memory/tickSchema.ts';
import { DECOMPRESS_HANDLERS, zstdReady } from '../recording/chunkCompression.ts';
import { COMMAND_SENT_CHANNEL, TICK_CHANNEL } from '../recording/reinsEvents.ts';
import { countMemoryTicks } from './memoryParts.ts';

export interface RecordingReadBack {
  /** Messages read back per topic, over every file. */
  byTopic: Map<string, number>;
  total: number;
  /** The commands sent (one event each), read back. */
  commandsSent: number;
  /** The control ticks (one event each), read back. */
  ticks: number;
  /** Files that ended without their footer (cut short): their finished chunks still count. */
  unfinishedFiles: string[];
}

/** Reads a recording's files through and counts their messages per topic. */
export async function readBackRecording(paths: readonly string[]): Promise<RecordingReadBack> {
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
  return { byTopic, total, commandsSent: byTopic.get(COMMAND_SENT_CHANNEL.topic) ?? 0, ticks: byTopic.get(TICK_CHANNEL.topic) ?? 0, unfinishedFiles };
}

/** The tick rows a session's memory holds, counted after the session has closed. */
export function readBackMemoryTicks(memory: { uri: string; space: TickSpace }): Promise<number> {
  return countMemoryTicks(memory.uri, memory.space);
}
