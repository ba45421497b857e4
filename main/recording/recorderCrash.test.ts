// A recording process is SIGKILLed mid-session: the file has no footer, and a streaming reader must
// still find every message of every chunk finished before the kill.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { McapStreamReader } from '@mcap/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { zstdReady } from './chunkCompression.ts';
import { DECOMPRESS_HANDLERS } from './recordingReader.ts';

const WRITER = fileURLToPath(new URL('../../test/support/recordingCrashWriter.ts', import.meta.url));
const CHUNKS_BEFORE_KILL = 3;

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-recorder-crash-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

function recordUntilKilled(path: string): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, path], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  return new Promise((resolve, reject) => {
    let flushedMessages = 0;
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(flushedMessages);
      else reject(new Error(`the recorder exited (${code ?? signal}) before it was killed; stderr:\n${stderr}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [, chunks, messages] = line.split(' ').map(Number);
      if (chunks! >= CHUNKS_BEFORE_KILL && child.exitCode === null && !child.killed) {
        flushedMessages = messages!;
        child.kill('SIGKILL');
      }
    });
  });
}

it('leaves a readable log with every message of the finished chunks when killed', async () => {
  const path = join(folder, 'crash.mcap');
  const flushedMessages = await recordUntilKilled(path);
  expect(flushedMessages).toBeGreaterThan(0);

  await zstdReady();
  const reader = new McapStreamReader({ decompressHandlers: DECOMPRESS_HANDLERS });
  reader.append(await readFile(path));
  let messages = 0;
  let footer = false;
  const topics = new Set<string>();
  const channelTopics = new Map<number, string>();
  for (let record = reader.nextRecord(); record !== undefined; record = reader.nextRecord()) {
    if (record.type === 'Channel') channelTopics.set(record.id, record.topic);
    if (record.type === 'Message') {
      messages++;
      topics.add(channelTopics.get(record.channelId)!);
    }
    if (record.type === 'Footer') footer = true;
  }
  expect(footer).toBe(false);
  expect(messages).toBeGreaterThanOrEqual(flushedMessages);
  expect([...topics]).toEqual(['/scan']);
}, 30_000);
