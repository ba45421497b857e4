import { open, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McapIndexedReader, McapWriter, TempBuffer, type IWritable } from '@mcap/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NO_SUMMARY, OTHER_LOG_TOPICS, lz4Chunk, writeOtherWritersLog, type WrittenMessage } from '../../test/support/otherWritersLogs.ts';
import type { Received, RobotMessage } from '../core/messages.ts';
import { msFromNs } from './logTimes.ts';
import { Recorder } from './recorder.ts';
import { RecordingReader, type RecordedMessage } from './recordingReader.ts';
import { COMMAND_SENT_CHANNEL } from './reinsEvents.ts';
import { openReviewLog, type ReviewLog } from './reviewLog.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-review-log-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const T0_MS = 1_700_000_000_000;
const TWO_GIB = 2 * 1024 ** 3;

function scan(atMs: number, i: number): Received<RobotMessage> {
  const rangesM = new Float32Array(64).map((_, beam) => 1 + ((beam + i) % 9));
  return {
    topic: '/scan',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs,
    msg: { kind: 'LaserScan', frameId: 'laser', angleMinRad: -1, angleMaxRad: 1, angleIncrementRad: 0.03, rangeMinM: 0.1, rangeMaxM: 10, rangesM },
  };
}
function noisyImage(atMs: number, seed: number): Received<RobotMessage> {
  const data = new Uint8Array(24 * 16 * 3);
  let state = seed * 2654435761 + 1;
  for (let i = 0; i < data.length; i++) data[i] = (state = (state * 1103515245 + 12345) >>> 0) >>> 24;
  return {
    topic: '/camera/image_raw',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs,
    msg: { kind: 'Image', frameId: 'camera', width: 24, height: 16, encoding: 'rgb8', step: 72, data },
  };
}

/** A closed session log in small chunks: scans (which zstd shrinks) for the first half, then noisy frames (stored raw); commands as events throughout. */
async function recordSession(name: string, steps = 60): Promise<string> {
  const path = join(folder, name);
  const recorder = await Recorder.open({ path, chunkBytes: 4096 });
  for (let i = 0; i < steps; i++) {
    const atMs = T0_MS + i * 100;
    if (i < steps / 2) recorder.record(scan(atMs, i));
    else recorder.record(noisyImage(atMs + 10, i));
    recorder.recordEvent(COMMAND_SENT_CHANNEL, atMs + 20, {
      driver: 'operator',
      command: { linearMps: 0.1, angularRadps: 0 },
      requested: { linearMps: 0.1, angularRadps: 0 },
      clipped: false,
      delivered: true,
      atMs: atMs + 20,
    });
  }
  await recorder.close();
  return path;
}

async function all(log: Pick<ReviewLog, 'messages'> | RecordingReader, range = {}): Promise<RecordedMessage[]> {
  const out: RecordedMessage[] = [];
  for await (const message of log.messages(range)) out.push(message);
  return out;
}

async function referenceMessages(path: string) {
  const reader = await RecordingReader.open(path);
  try {
    return { messages: await all(reader), chunks: reader.mcap!.chunkIndexes };
  } finally {
    await reader.close();
  }
}

describe('openReviewLog', () => {
  it('opens a whole log through its summary and reads it like the recording reader', async () => {
    const path = await recordSession('whole.mcap');
    const reference = await referenceMessages(path);
    const log = await openReviewLog(path);
    try {
      expect(log.problems).toEqual([]);
      expect(log.summary.chunkCount).toBe(reference.chunks.length);
      expect(log.summary.startMs).toBe(T0_MS);
      expect(log.summary.endMs).toBe(T0_MS + 59 * 100 + 20);
      expect(log.summary.topics).toEqual(
        expect.arrayContaining([
          { topic: '/scan', schemaName: 'sensor_msgs/LaserScan', schemaEncoding: 'ros1msg', messageEncoding: 'ros1', messageCount: 30 },
          { topic: '/camera/image_raw', schemaName: 'sensor_msgs/Image', schemaEncoding: 'ros1msg', messageEncoding: 'ros1', messageCount: 30 },
          {
            topic: COMMAND_SENT_CHANNEL.topic,
            schemaName: COMMAND_SENT_CHANNEL.schemaName,
            schemaEncoding: 'jsonschema',
            messageEncoding: 'json',
            messageCount: 60,
          },
        ]),
      );
      expect(await all(log)).toEqual(reference.messages);
      const clip = await all(log, { topics: ['/scan'], startMs: T0_MS + 1000, endMs: T0_MS + 1999 });
      expect(clip.map((m) => m.logTimeMs)).toEqual(Array.from({ length: 10 }, (_, i) => T0_MS + 1000 + i * 100));
      expect((await log.latestAt('/camera/image_raw', T0_MS + 4050))?.logTimeMs).toBeCloseTo(T0_MS + 4010, 3);
      expect(await log.latestAt('/camera/image_raw', T0_MS + 2950)).toBeUndefined();
    } finally {
      await log.close();
    }
  });

  it('refuses a file that is not MCAP, saying what it starts with', async () => {
    const zip = join(folder, 'notes.mcap');
    await writeFile(zip, Buffer.from('PK\x03\x04\x14\x00\x00\x00 rest of a zip file', 'latin1'));
    await expect(openReviewLog(zip)).rejects.toThrow("notes.mcap is not an MCAP log (it starts with 'PK\\x03\\x04\\x14\\x00\\x00\\x00')");
    const empty = join(folder, 'empty.mcap');
    await writeFile(empty, '');
    await expect(openReviewLog(empty)).rejects.toThrow('empty.mcap is empty, not an MCAP log');
  });

  it('recovers every whole chunk of a log cut anywhere, and says where it ends', async () => {
    const path = await recordSession('cut.mcap');
    const reference = await referenceMessages(path);
    const bytes = await readFile(path);
    const third = reference.chunks[2]!;
    const dataEnd = Number(reference.chunks.at(-1)!.chunkStartOffset + reference.chunks.at(-1)!.chunkLength) + 200;
    const cuts = [
      { at: Number(third.chunkStartOffset) + 5, lastWholeChunk: 1 },
      { at: Number(third.chunkStartOffset + third.chunkLength) - 100, lastWholeChunk: 1 },
      { at: Number(third.chunkStartOffset + third.chunkLength) + 3, lastWholeChunk: 2 },
      { at: dataEnd, lastWholeChunk: reference.chunks.length - 1 },
      { at: bytes.length - 4, lastWholeChunk: reference.chunks.length - 1 },
    ];
    for (const cut of cuts) {
      const cutPath = join(folder, `cut-${cut.at}.mcap`);
      await writeFile(cutPath, bytes.subarray(0, cut.at));
      const progress: number[] = [];
      const log = await openReviewLog(cutPath, { onProgress: (fraction) => progress.push(fraction) });
      try {
        const lastTimeNs = reference.chunks[cut.lastWholeChunk]!.messageEndTime;
        expect(await all(log)).toEqual(reference.messages.filter((m) => m.logTimeNs <= lastTimeNs));
        expect(log.problems.length).toBeGreaterThan(0);
        if (cut.at < dataEnd)
          expect(log.problems[0]).toMatch(
            new RegExp(`^the file ends mid-(chunk|record) at byte ${cut.at}: everything up to \\d\\d:\\d\\d:\\d\\d\\.\\d is shown$`),
          );
        expect(progress.at(-1)).toBe(1);
        expect(log.summary.endMs).toBe(msFromNs(lastTimeNs));
      } finally {
        await log.close();
      }
    }
  });

  it('lists channels it cannot decode and skips their messages, with a problem for each', async () => {
    const path = join(folder, 'foreign.mcap');
    const handle = await open(path, 'w');
    const writer = new McapWriter({ writable: new FileWritable(handle) });
    await writer.start({ profile: '', library: 'another tool' });
    const flatbuffer = await writer.registerChannel({
      topic: '/foo',
      schemaId: await writer.registerSchema({ name: 'foo.Bar', encoding: 'flatbuffer', data: new Uint8Array([1, 2]) }),
      messageEncoding: 'flatbuffer',
      metadata: new Map(),
    });
    const ros2 = await writer.registerChannel({
      topic: '/tf',
      schemaId: await writer.registerSchema({ name: 'tf2_msgs/msg/TFMessage', encoding: 'ros2msg', data: new TextEncoder().encode('int32 x') }),
      messageEncoding: 'ros1',
      metadata: new Map(),
    });
    const json = await writer.registerChannel({ topic: '/notes', schemaId: 0, messageEncoding: 'json', metadata: new Map() });
    for (let i = 0; i < 5; i++) {
      const logTime = BigInt(T0_MS + i * 10) * 1_000_000n;
      for (const channelId of [flatbuffer, ros2, json])
        await writer.addMessage({ channelId, sequence: i, logTime, publishTime: logTime, data: new TextEncoder().encode(JSON.stringify({ i })) });
    }
    await writer.end();
    await handle.close();

    const log = await openReviewLog(path);
    try {
      expect(log.summary.topics.map((t) => [t.topic, t.messageEncoding, t.messageCount])).toEqual([
        ['/foo', 'flatbuffer', 5],
        ['/tf', 'ros1', 5],
        ['/notes', 'json', 5],
      ]);
      const messages = await all(log);
      expect(messages.map((m) => [m.topic, m.value])).toEqual(Array.from({ length: 5 }, (_, i) => ['/notes', { i }]));
      expect(await log.latestAt('/foo', T0_MS + 100)).toBeUndefined();
      expect(log.problems).toEqual([
        'topic /foo uses message encoding "flatbuffer", which Reins cannot decode: its 5 messages are listed but not shown',
        'topic /tf uses schema encoding "ros2msg", which Reins cannot decode: its 5 messages are listed but not shown',
      ]);
    } finally {
      await log.close();
    }
  });

  it('skips a chunk that fails its CRC check, compressed or not, and returns every other message', async () => {
    const path = await recordSession('flipped.mcap');
    const reference = await referenceMessages(path);
    const bytes = await readFile(path);
    const zstdChunk = reference.chunks.findIndex((c, i) => c.compression === 'zstd' && i > 0);
    const rawChunk = reference.chunks.findIndex((c) => c.compression === '');
    expect(zstdChunk).toBeGreaterThanOrEqual(0);
    expect(rawChunk).toBeGreaterThan(zstdChunk);
    for (const damaged of [zstdChunk, rawChunk]) {
      const chunk = reference.chunks[damaged]!;
      const flipped = Buffer.from(bytes);
      const inRecords = Number(chunk.chunkStartOffset + chunk.chunkLength) - 40;
      flipped[inRecords] = flipped[inRecords]! ^ 0xff;
      const flippedPath = join(folder, `flipped-${damaged}.mcap`);
      await writeFile(flippedPath, flipped);
      const inChunk = (m: RecordedMessage) => m.logTimeNs >= chunk.messageStartTime && m.logTimeNs <= chunk.messageEndTime;
      const lost = reference.messages.filter(inChunk);

      const log = await openReviewLog(flippedPath);
      try {
        expect(await all(log)).toEqual(reference.messages.filter((m) => !inChunk(m)));
        expect(log.problems).toHaveLength(1);
        expect(log.problems[0]).toMatch(
          new RegExp(
            `^chunk ${damaged + 1} \\(\\d\\d:\\d\\d:\\d\\d\\.\\d–\\d\\d:\\d\\d:\\d\\d\\.\\d\\) (fails its CRC check|cannot be decompressed|is damaged .*): its ${lost.length} messages are skipped$`,
          ),
        );
        // Asked again (a replay seeking back), the chunk is skipped without a second problem.
        const atEndOfChunk = msFromNs(chunk.messageEndTime);
        expect((await log.latestAt(COMMAND_SENT_CHANNEL.topic, atEndOfChunk))?.logTimeNs).toBeLessThan(chunk.messageStartTime);
        expect(log.problems).toHaveLength(1);
      } finally {
        await log.close();
      }

      // The same damage in a crashed log (no summary): indexed from its message indexes, the chunk is found damaged when read.
      const crashedPath = join(folder, `crashed-${damaged}.mcap`);
      await writeFile(crashedPath, flipped.subarray(0, Number(reference.chunks.at(-1)!.chunkStartOffset)));
      const crashed = await openReviewLog(crashedPath);
      try {
        const beforeLastChunk = reference.chunks.at(-1)!.messageStartTime;
        expect(await all(crashed)).toEqual(reference.messages.filter((m) => !inChunk(m) && m.logTimeNs < beforeLastChunk));
        expect(crashed.problems).toContainEqual(
          expect.stringMatching(
            new RegExp(`^chunk ${damaged + 1} \\(.*\\) (fails its CRC check|cannot be decompressed|is damaged .*): its ${lost.length} messages are skipped$`),
          ),
        );
      } finally {
        await crashed.close();
      }
    }
  });

  describe('a 2 GiB file', () => {
    it('opens through its summary without reading the 2 GiB in between', async () => {
      const path = join(folder, 'padded.mcap');
      const handle = await open(path, 'w');
      const writable = new FileWritable(handle);
      const writer = new McapWriter({ writable, chunkSize: 4096 });
      await writer.start({ profile: 'ros1', library: 'test' });
      const channelId = await writer.registerChannel({ topic: '/notes', schemaId: 0, messageEncoding: 'json', metadata: new Map() });
      const add = async (i: number) => {
        const logTime = BigInt(T0_MS + i) * 1_000_000n;
        await writer.addMessage({ channelId, sequence: i, logTime, publishTime: logTime, data: new TextEncoder().encode(JSON.stringify({ i })) });
      };
      for (let i = 0; i < 500; i++) await add(i);
      // A 2 GiB record of an opcode readers skip, left sparse on disk: the data section is 2 GiB long.
      await writable.skipWithPrivateRecord(TWO_GIB);
      for (let i = 500; i < 1000; i++) await add(i);
      await writer.end();
      await handle.close();

      const { log, maxGapMs, openMs } = await openWatchingTheEventLoop(path);
      try {
        expect(log.problems).toEqual([]);
        expect((await all(log)).map((m) => (m.value as { i: number }).i)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
        expect(maxGapMs).toBeLessThan(200);
        expect(openMs).toBeLessThan(2000);
      } finally {
        await log.close();
      }
    });

    it('opens a log followed by 2 GiB of zeros, reading only the log, with the event loop free', async () => {
      const path = await recordSession('tailed.mcap', 200);
      const reference = await referenceMessages(path);
      const logBytes = (await readFile(path)).length;
      await truncate(path, TWO_GIB);

      const progress: number[] = [];
      const { log, maxGapMs, openMs } = await openWatchingTheEventLoop(path, (fraction) => progress.push(fraction));
      try {
        expect(log.problems).toEqual([`${TWO_GIB - logBytes} bytes of unexpected data follow the end of the log (byte ${logBytes})`]);
        expect(await all(log)).toEqual(reference.messages);
        expect(maxGapMs).toBeLessThan(200);
        expect(openMs).toBeLessThan(5000);
        expect(progress.at(-1)).toBe(1);
      } finally {
        await log.close();
      }
    });
  });
});

describe('openReviewLog on logs from other writers', () => {
  /** What a log read back holds, in the shape it was written in. */
  const asWritten = (messages: readonly RecordedMessage[]): WrittenMessage[] =>
    messages.map(({ topic, logTimeNs, publishTimeNs, value }) => ({ topic, logTimeNs, publishTimeNs, value: value as WrittenMessage['value'] }));

  /** The summary as the official indexed reader opens it. */
  async function officialSummary(path: string): Promise<McapIndexedReader> {
    return McapIndexedReader.Initialize({ readable: new TempBuffer(await readFile(path)) });
  }

  it('finds the messages of a log whose summary has neither chunk indexes nor statistics, chunked or not', async () => {
    for (const [name, options] of [
      ['chunked', { useChunkIndex: false, useStatistics: false }],
      ['unchunked', { useChunks: false, useStatistics: false }],
    ] as const) {
      const path = join(folder, `${name}-no-index.mcap`);
      const written = await writeOtherWritersLog(path, options);
      const summary = await officialSummary(path);
      expect([summary.chunkIndexes.length, summary.statistics, summary.channelsById.size]).toEqual([0, undefined, 2]);

      const log = await openReviewLog(path);
      try {
        expect(asWritten(await all(log))).toEqual(written);
        expect(log.problems).toEqual([]);
        expect(log.summary.topics.map((t) => [t.topic, t.messageCount])).toEqual(OTHER_LOG_TOPICS.map((topic) => [topic, 40]));
        expect([log.startMs, log.endMs]).toEqual([msFromNs(written[0]!.logTimeNs), msFromNs(written.at(-1)!.logTimeNs)]);
        expect(asWritten([(await log.latestAt('/notes', log.endMs))!])).toEqual([written.at(-2)]);
      } finally {
        await log.close();
      }
    }
  });

  it('reads lz4-compressed chunks, in a log with a summary and in one without', async () => {
    for (const [name, options] of [
      ['summary', { compressChunk: lz4Chunk }],
      ['no-summary', { compressChunk: lz4Chunk, ...NO_SUMMARY }],
    ] as const) {
      const path = join(folder, `lz4-${name}.mcap`);
      const written = await writeOtherWritersLog(path, options);
      const log = await openReviewLog(path);
      try {
        expect(log.summary.chunkCount).toBeGreaterThan(3);
        expect(asWritten(await all(log))).toEqual(written);
        // Read through, a log without a summary is said to be one; no chunk is said to be lost.
        expect(log.problems.filter((problem) => /chunk|compress|skipped/.test(problem))).toEqual([]);
        expect(log.summary.topics.map((t) => [t.topic, t.messageCount])).toEqual(OTHER_LOG_TOPICS.map((topic) => [topic, 40]));
      } finally {
        await log.close();
      }
    }
    expect((await officialSummary(join(folder, 'lz4-summary.mcap'))).chunkIndexes.every((chunk) => chunk.compression === 'lz4')).toBe(true);
  });

  it("counts each topic's messages without a statistics record: from the message indexes, or by reading the log through", async () => {
    for (const [name, options] of [
      ['message-indexes', { useStatistics: false }],
      ['no-message-indexes', { useStatistics: false, useMessageIndex: false }],
    ] as const) {
      const path = join(folder, `${name}.mcap`);
      const written = await writeOtherWritersLog(path, options, 30);
      const summary = await officialSummary(path);
      expect(summary.statistics).toBeUndefined();
      expect(summary.chunkIndexes.length).toBeGreaterThan(3);

      const log = await openReviewLog(path);
      try {
        expect(log.summary.topics.map((t) => [t.topic, t.messageCount])).toEqual(OTHER_LOG_TOPICS.map((topic) => [topic, 30]));
        expect(asWritten(await all(log))).toEqual(written);
        expect(log.problems).toEqual([]);
      } finally {
        await log.close();
      }
    }
  });
});

/** Opens a log while a 5 ms interval runs; the largest gap between its ticks is how long the event loop was held. */
async function openWatchingTheEventLoop(path: string, onProgress?: (fraction: number) => void) {
  let last = performance.now();
  let maxGapMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 5);
  const startMs = performance.now();
  try {
    const log = await openReviewLog(path, onProgress ? { onProgress } : {});
    const openMs = performance.now() - startMs;
    maxGapMs = Math.max(maxGapMs, performance.now() - last);
    return { log, maxGapMs, openMs };
  } finally {
    clearInterval(ticker);
  }
}

/** McapWriter's output straight to a file, able to leave a sparse hole the size of a record it declares. */
class FileWritable implements IWritable {
  private offset = 0n;

  constructor(private readonly handle: import('node:fs/promises').FileHandle) {}

  position(): bigint {
    return this.offset;
  }

  async write(buffer: Uint8Array): Promise<void> {
    await this.handle.write(buffer, 0, buffer.byteLength, Number(this.offset));
    this.offset += BigInt(buffer.byteLength);
  }

  /** A record of opcode 0x80 (private to the writing application; readers skip it) whose content is a hole. */
  async skipWithPrivateRecord(contentBytes: number): Promise<void> {
    const header = new DataView(new ArrayBuffer(9));
    header.setUint8(0, 0x80);
    header.setBigUint64(1, BigInt(contentBytes), true);
    await this.write(new Uint8Array(header.buffer));
    this.offset += BigInt(contentBytes);
  }
}
