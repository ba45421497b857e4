import { randomFillSync } from 'node:crypto';
import { mkdtemp, open, rm, stat, truncate, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McapWriter } from '@mcap/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLogAsItIs } from '../../test/support/mcapMessages.ts';
import { decompressorsReady } from './chunkCompression.ts';
import { scanLog, type ScannedLog } from './logScan.ts';
import { Recorder } from './recorder.ts';

const T0_MS = 1_700_000_000_000;
let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-log-scan-'));
  await decompressorsReady();
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A crashed session's log: 48 KiB frames of random bytes (zstd cannot shrink them) and odometry in 100 KiB chunks, cut where its data section ends. */
async function crashedSession(): Promise<string> {
  const path = join(folder, 'crashed.mcap');
  const recorder = await Recorder.open({ path, chunkBytes: 100 * 1024 });
  for (let i = 0; i < 60; i++) {
    const data = randomFillSync(new Uint8Array(128 * 128 * 3));
    const atMs = T0_MS + i * 33;
    recorder.record({
      topic: '/camera',
      receiveTimeMs: atMs,
      sourceTimeMs: atMs,
      msg: { kind: 'Image', frameId: 'c', width: 128, height: 128, encoding: 'rgb8', step: 384, data },
    });
    recorder.record({
      topic: '/odom',
      receiveTimeMs: atMs + 1,
      sourceTimeMs: atMs,
      msg: {
        kind: 'Odometry',
        frameId: 'odom',
        childFrameId: 'base',
        odomFromBaseXM: i,
        odomFromBaseYM: 0,
        odomFromBaseYawRad: 0,
        linearMps: 1,
        angularRadps: 0,
      },
    });
  }
  await recorder.close();
  // The footer (29 bytes, then the closing magic) says where the summary starts, after DataEnd (13 bytes): keep what precedes DataEnd.
  expect((await readLogAsItIs(path)).footer).toBe(true);
  const handle = await open(path, 'r');
  try {
    const summaryStart = Buffer.alloc(8);
    await handle.read(summaryStart, 0, 8, (await handle.stat()).size - 8 - 29 + 9);
    await truncate(path, Number(summaryStart.readBigUInt64LE(0)) - 13);
  } finally {
    await handle.close();
  }
  return path;
}

/** Scans the file through a handle that counts the bytes read. */
async function scanCounting(path: string, options: Parameters<typeof scanLog>[2] = {}): Promise<{ log: ScannedLog; bytesRead: number }> {
  const handle = await open(path, 'r');
  let bytesRead = 0;
  const counting = {
    read: (buffer: Uint8Array, offset: number, length: number, position: number) => {
      bytesRead += length;
      return handle.read(buffer, offset, length, position);
    },
  } as unknown as FileHandle;
  try {
    return { log: await scanLog(counting, (await stat(path)).size, options), bytesRead };
  } finally {
    await handle.close();
  }
}

describe('scanLog', () => {
  it('indexes a crashed log from its chunk headers and message indexes, reading a small part of it, with the counts a full read finds', async () => {
    const path = await crashedSession();
    const sizeBytes = (await stat(path)).size;
    const expected = await readLogAsItIs(path);
    const { log, bytesRead } = await scanCounting(path);
    const { log: opened, bytesRead: allRead } = await scanCounting(path, { openEveryChunk: true });

    const countsByTopic = (scanned: ScannedLog) =>
      new Map([...scanned.channels.values()].map((channel) => [channel.topic, scanned.messageCounts.get(channel.id)]));
    expect(countsByTopic(log)).toEqual(expected.topics);
    expect(countsByTopic(opened)).toEqual(expected.topics);
    expect(log.blocks).toEqual(opened.blocks);
    expect(log.chunkCount).toBeGreaterThan(20);
    expect(log.problems).toEqual([expect.stringMatching(/^the log stops at byte \d+ without its summary/)]);
    // The first chunk is opened to learn the channels; every later one is known from its header and indexes.
    expect(bytesRead).toBeLessThan(sizeBytes / 4);
    expect(allRead).toBeGreaterThanOrEqual(sizeBytes - 1024);
  });

  it('indexes unchunked messages from their headers, in runs of about a megabyte', async () => {
    const path = join(folder, 'unchunked.mcap');
    const handle = await open(path, 'w');
    const writer = new McapWriter({
      writable: {
        position: () => BigInt(position),
        write: async (buffer: Uint8Array) => {
          await handle.write(buffer);
          position += buffer.byteLength;
        },
      },
      useChunks: false,
      useSummaryOffsets: false,
    });
    let position = 0;
    await writer.start({ profile: '', library: 'test' });
    const channelId = await writer.registerChannel({ topic: '/big', schemaId: 0, messageEncoding: 'json', metadata: new Map() });
    const body = new TextEncoder().encode(JSON.stringify({ pad: 'x'.repeat(300 * 1024) }));
    for (let i = 0; i < 10; i++) {
      const logTime = BigInt(T0_MS + i) * 1_000_000n;
      await writer.addMessage({ channelId, sequence: i, logTime, publishTime: logTime, data: body });
    }
    await writer.end();
    await handle.close();

    const { log, bytesRead } = await scanCounting(path);
    expect(log.messageCounts.get(channelId)).toBe(10);
    // Runs of about 1 MiB: 4 messages of 300 KiB each.
    expect(log.blocks.map((block) => block.endNs - block.startNs)).toEqual([3_000_000n, 3_000_000n, 1_000_000n]);
    expect(bytesRead).toBeLessThan(20 * 16 * 1024);
  });
});
