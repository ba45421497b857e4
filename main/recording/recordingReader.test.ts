import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McapIndexedReader, TempBuffer } from '@mcap/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NO_SUMMARY, writeOtherWritersLog, type WrittenMessage } from '../../test/support/otherWritersLogs.ts';
import { msFromNs } from './logTimes.ts';
import { RecordingReader, type RecordedMessage } from './recordingReader.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-recording-reader-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function all(reader: RecordingReader, range = {}): Promise<WrittenMessage[]> {
  const out: RecordedMessage[] = [];
  for await (const message of reader.messages(range)) out.push(message);
  return out.map(({ topic, logTimeNs, publishTimeNs, value }) => ({ topic, logTimeNs, publishTimeNs, value: value as WrittenMessage['value'] }));
}

describe('RecordingReader', () => {
  it('reads a log without a summary, which the official indexed reader refuses', async () => {
    const path = join(folder, 'unindexed.mcap');
    const written = await writeOtherWritersLog(path, NO_SUMMARY);
    await expect(McapIndexedReader.Initialize({ readable: new TempBuffer(await readFile(path)) })).rejects.toThrow('File is not indexed');

    const reader = await RecordingReader.open(path);
    try {
      expect(reader.mcap).toBeUndefined();
      expect(reader.topics()).toEqual(['/notes', '/status']);
      expect(await all(reader)).toEqual(written);
      const middle = written.slice(20, 41);
      const clip = await all(reader, { topics: ['/status'], startMs: msFromNs(middle[0]!.logTimeNs), endMs: msFromNs(middle.at(-1)!.logTimeNs) });
      expect(clip).toEqual(middle.filter((message) => message.topic === '/status'));
      const latest = await reader.latestAt('/notes', msFromNs(written[31]!.logTimeNs));
      expect(latest?.value).toEqual(written[30]!.value);
    } finally {
      await reader.close();
    }
  });

  it('reads unchunked messages under a summary, where the official indexed reader finds none', async () => {
    const path = join(folder, 'unchunked.mcap');
    const written = await writeOtherWritersLog(path, { useChunks: false });
    const official = await McapIndexedReader.Initialize({ readable: new TempBuffer(await readFile(path)) });
    expect(official.statistics?.messageCount).toBe(BigInt(written.length));
    let officialCount = 0;
    for await (const _ of official.readMessages()) officialCount++;
    expect(officialCount).toBe(0);

    const reader = await RecordingReader.open(path);
    try {
      expect(reader.mcap?.statistics?.messageCount).toBe(BigInt(written.length));
      expect(await all(reader)).toEqual(written);
      expect((await reader.latestAt('/status', msFromNs(written.at(-1)!.logTimeNs)))?.value).toEqual(written.at(-1)!.value);
    } finally {
      await reader.close();
    }
  });

  it('still refuses, in words, a log without a summary that was cut short', async () => {
    const path = join(folder, 'cut.mcap');
    await writeOtherWritersLog(path, NO_SUMMARY);
    const bytes = await readFile(path);
    await writeFile(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(RecordingReader.open(path)).rejects.toThrow(
      /cut\.mcap is not a whole MCAP log \(its summary: .*\): the file ends mid-(chunk|record) at byte \d+/,
    );
  });
});
