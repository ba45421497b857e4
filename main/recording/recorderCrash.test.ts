// A recording process is SIGKILLed mid-session: the file has no footer, and a streaming reader must
// still find every message of every chunk finished before the kill; with a slow stream, the chunk
// age limit bounds what the kill loses to about that limit.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { McapStreamReader } from '@mcap/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DECOMPRESS_HANDLERS, zstdReady } from './chunkCompression.ts';

const WRITER = fileURLToPath(new URL('../../test/support/recordingCrashWriter.ts', import.meta.url));
const CHUNKS_BEFORE_KILL = 3;
const MAX_CHUNK_AGE_MS = 250;
const SLOW_PERIOD_MS = 20;
/** Timer and pipe latency on a loaded machine, beyond the age limit itself. */
const LATENCY_ALLOWANCE_MS = 350;

/** Records odometry at 50 Hz (a megabyte chunk would take over a minute to fill) and says what it recorded and flushed. */
const SLOW_WRITER = `
const { Recorder } = await import(${JSON.stringify(new URL('./recorder.ts', import.meta.url).href)});
const recorder = await Recorder.open({
  path: process.argv[1],
  maxChunkAgeMs: ${MAX_CHUNK_AGE_MS},
  onChunkWritten: ({ chunks, messages }) => process.stdout.write('flushed ' + chunks + ' ' + messages + '\\n'),
});
setInterval(() => {
  const atMs = Date.now();
  recorder.record({ topic: '/odom', receiveTimeMs: atMs, sourceTimeMs: atMs, msg: { kind: 'Odometry', frameId: 'odom', childFrameId: 'base', odomFromBaseXM: 1, odomFromBaseYM: 2, odomFromBaseYawRad: 0, linearMps: 0.3, angularRadps: 0 } });
  process.stdout.write('recorded 0 ' + atMs + '\\n');
}, ${SLOW_PERIOD_MS});
`;

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-recorder-crash-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

interface KillPoint {
  /** Messages inside the chunks finished before the kill, as the recorder counted them. */
  flushedMessages: number;
  /** Log time of the last message the recorder took before the kill. */
  lastRecordedMs: number;
}

/** Runs a writer until it has finished CHUNKS_BEFORE_KILL chunks and recorded `recordsAfter` more messages, then SIGKILLs it. */
function recordUntilKilled(args: readonly string[], recordsAfter = 0): Promise<KillPoint> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  return new Promise((resolve, reject) => {
    const point: KillPoint = { flushedMessages: 0, lastRecordedMs: 0 };
    let recordsToGo: number | undefined;
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(point);
      else reject(new Error(`the recorder exited (${code ?? signal}) before it was killed; stderr:\n${stderr}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (child.killed) return;
      const [kind, first, second] = line.split(' ');
      if (kind === 'flushed' && recordsToGo === undefined) {
        point.flushedMessages = Number(second);
        if (Number(first) >= CHUNKS_BEFORE_KILL) recordsToGo = recordsAfter;
      }
      if (kind === 'recorded') {
        point.lastRecordedMs = Number(second);
        if (recordsToGo !== undefined) recordsToGo--;
      }
      if (recordsToGo !== undefined && recordsToGo <= 0) child.kill('SIGKILL');
    });
  });
}

/** Every message a streaming reader finds in a log without its footer. */
async function readCrashedLog(path: string) {
  await zstdReady();
  const reader = new McapStreamReader({ decompressHandlers: DECOMPRESS_HANDLERS });
  reader.append(await readFile(path));
  const logTimesMs: number[] = [];
  let footer = false;
  const topics = new Set<string>();
  const channelTopics = new Map<number, string>();
  for (let record = reader.nextRecord(); record !== undefined; record = reader.nextRecord()) {
    if (record.type === 'Channel') channelTopics.set(record.id, record.topic);
    if (record.type === 'Message') {
      logTimesMs.push(Number(record.logTime) / 1e6);
      topics.add(channelTopics.get(record.channelId)!);
    }
    if (record.type === 'Footer') footer = true;
  }
  return { logTimesMs, footer, topics: [...topics] };
}

it('leaves a readable log with every message of the finished chunks when killed', async () => {
  const path = join(folder, 'crash.mcap');
  const { flushedMessages } = await recordUntilKilled([WRITER, path]);
  expect(flushedMessages).toBeGreaterThan(0);

  const log = await readCrashedLog(path);
  expect(log.footer).toBe(false);
  expect(log.logTimesMs.length).toBeGreaterThanOrEqual(flushedMessages);
  expect(log.topics).toEqual(['/scan']);
}, 30_000);

it('loses at most about the chunk age limit of a slow stream when killed', async () => {
  const path = join(folder, 'slow.mcap');
  // Killed halfway into the next chunk's age, so the kill always falls inside an unfinished chunk.
  const killed = await recordUntilKilled(['--input-type=module', '-e', SLOW_WRITER, path], MAX_CHUNK_AGE_MS / SLOW_PERIOD_MS / 2);
  expect(killed.flushedMessages).toBeGreaterThan(0);

  const log = await readCrashedLog(path);
  expect(log.footer).toBe(false);
  expect(log.topics).toEqual(['/odom']);
  expect(log.logTimesMs.length).toBeGreaterThanOrEqual(killed.flushedMessages);
  // Without the age limit nothing would be there: three 1 MiB chunks of odometry take minutes.
  const lostMs = killed.lastRecordedMs - Math.max(...log.logTimesMs);
  expect(lostMs).toBeLessThanOrEqual(MAX_CHUNK_AGE_MS + LATENCY_ALLOWANCE_MS);
}, 30_000);
