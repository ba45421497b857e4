// A process writing to the memory is killed (SIGKILL) mid-stream; the memory must open again with
// every batch the writer reported committed intact, nothing half-written, and keep taking rows.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Memory } from '../../main/memory/memory.ts';
import { MemoryWriter } from '../../main/memory/memoryWriter.ts';
import { ticksFromArrow } from '../../main/memory/tickRead.ts';
import { CRASH_BATCH_ROWS, CRASH_SPACE, numberedTick } from '../support/memoryTicks.ts';

const WRITER = fileURLToPath(new URL('../support/memoryCrashWriter.ts', import.meta.url));
const KILL_AFTER_BATCHES = 25;

/** Runs the writer until it reports `batches` committed batches, then SIGKILLs it. Returns the last batch reported. */
function writeThenKill(uri: string, batches: number): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, uri], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-10_000)));
  return new Promise((resolve, reject) => {
    let lastCommitted = -1;
    child.once('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(lastCommitted);
      else reject(new Error(`the writer exited (${code ?? signal}) before it was killed; stderr:\n${stderr}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^committed (\d+)$/.exec(line);
      if (!match) return;
      lastCommitted = Number(match[1]);
      // Killed the moment it reports: it is already appending, or writing, the next batch.
      if (lastCommitted + 1 >= batches) child.kill('SIGKILL');
    });
  });
}

describe('memory after a crash', () => {
  let folder: string | undefined;
  afterEach(() => folder && rmSync(folder, { recursive: true, force: true }));

  it('keeps every committed batch intact when the writing process is killed mid-stream', async () => {
    folder = mkdtempSync(join(tmpdir(), 'reins-memory-crash-'));
    const lastCommitted = await writeThenKill(folder, KILL_AFTER_BATCHES);
    expect(lastCommitted).toBe(KILL_AFTER_BATCHES - 1);

    const memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 } });
    try {
      const store = await memory.ticks(CRASH_SPACE);
      const rows = ticksFromArrow(await store.query());
      const numbers = rows.map((row) => Number(row.mcapLogTimeNs! / 1_000_000n)).sort((a, b) => a - b);
      // Batches commit whole: everything reported, perhaps the batch in flight, nothing partial, no repeats.
      const committedRows = (lastCommitted + 1) * CRASH_BATCH_ROWS;
      expect([committedRows, committedRows + CRASH_BATCH_ROWS]).toContain(rows.length);
      expect(numbers).toEqual(Array.from({ length: rows.length }, (_, n) => n));
      for (const row of rows) expect(row).toEqual(numberedTick(Number(row.mcapLogTimeNs! / 1_000_000n)));

      // …and the memory takes new rows after the crash.
      const writer = new MemoryWriter(store);
      writer.append(numberedTick(rows.length));
      await writer.close();
      expect(await store.countRows()).toBe(rows.length + 1);
    } finally {
      await memory.close();
    }
  });
});
