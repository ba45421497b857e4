import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Memory } from './memory.ts';
import { MemoryWriter, type MemoryWriterOptions } from './memoryWriter.ts';
import type { TickRow, TickSpace } from './tickSchema.ts';
import type { TickStore } from './tickStore.ts';
import { tickRow } from '../../test/support/tickRows.ts';

const SPACE: TickSpace = { encoderVersion: 'enc-1', embeddingSize: 4, distance: 'l2' };

function tick(step: number, embedding = Float32Array.from([step, 0, 0, 1])): TickRow {
  return tickRow({ episodeId: 'ep-1', step, timeMs: 1_700_000_000_000 + step * 100, embedding, robotId: 'robot-1', policyVersion: 'policy-1' });
}

async function storedSteps(store: TickStore): Promise<number[]> {
  const rows = (await store.query({ columns: ['step'] })).toArray();
  return rows.map((row: { step: number }) => row.step).sort((a, b) => a - b);
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('MemoryWriter', () => {
  let folder: string;
  let memory: Memory;
  let store: TickStore;
  const writers: MemoryWriter<TickRow>[] = [];
  const writer = (options: Partial<MemoryWriterOptions>) => {
    const made = new MemoryWriter(store, options);
    writers.push(made);
    return made;
  };

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'reins-memory-'));
    memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 } });
    store = await memory.ticks(SPACE);
  });
  afterEach(async () => {
    for (const made of writers.splice(0)) await made.close().catch(() => undefined);
    await memory.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('queues without waiting, writes full batches at once and the rest on its timer', async () => {
    const rows = writer({ batchRows: 10, maxBatchRows: 10, flushIntervalMs: 20 });
    for (const step of range(0, 23)) expect(rows.append(tick(step))).toEqual({ accepted: true });
    expect(rows.status()).toMatchObject({ queued: 23, written: 0 });
    // Two full batches go at once; the last three wait for the interval, with nobody calling flush.
    await vi.waitFor(() => expect(rows.status().written).toBe(23));
    expect(rows.status()).toEqual({ queued: 0, written: 23, dropped: 0, rejected: 0, degraded: false, lastError: undefined });
    expect(await storedSteps(store)).toEqual(range(0, 23));
  });

  it('refuses a bad row with the field named and loses nothing else', async () => {
    const rows = writer({ batchRows: 100 });
    rows.append(tick(0));
    const refused = rows.append(tick(1, new Float32Array(3)));
    expect(refused).toMatchObject({ accepted: false, reason: 'invalid' });
    expect(refused.accepted === false && refused.reason === 'invalid' && refused.error.field).toBe('embedding');
    expect(rows.append(tick(2, Float32Array.from([0, NaN, 0, 0])))).toMatchObject({ reason: 'invalid' });
    rows.append(tick(3));
    await rows.flush();
    expect(rows.status()).toMatchObject({ written: 2, rejected: 2, degraded: false, lastError: 'ticks row refused: embedding holds NaN at index 1' });
    expect(await storedSteps(store)).toEqual([0, 3]);
  });

  it('under overload drops and counts rows beyond its bound, says so, and recovers once drained', async () => {
    const rows = writer({ batchRows: 10, maxBatchRows: 10, maxQueuedRows: 20 });
    const results = range(0, 50).map((step) => rows.append(tick(step)));
    expect(results.filter((result) => result.accepted)).toHaveLength(20);
    expect(results[20]).toEqual({ accepted: false, reason: 'queue-full' });
    expect(rows.status()).toMatchObject({ queued: 20, dropped: 30, degraded: true });
    await rows.flush();
    expect(rows.status()).toMatchObject({ queued: 0, written: 20, dropped: 30, degraded: false });
    expect(await storedSteps(store)).toEqual(range(0, 20));
  });

  it('keeps taking rows when the disk refuses writes, reports it, and writes the backlog once the disk is back', async () => {
    // No timer retries during the test (a long interval): flush() is what tries, so every step is deterministic.
    const rows = writer({ batchRows: 100, maxBatchRows: 100, maxQueuedRows: 200, flushIntervalMs: 60_000 });
    rows.append(tick(0));
    await rows.flush();
    const data = join(folder, `${store.openSegment.name}.lance`, 'data');
    renameSync(data, `${data}.aside`);
    writeFileSync(data, 'a file where LanceDB writes its data files');

    for (const step of range(1, 6)) rows.append(tick(step));
    await expect(rows.flush()).rejects.toThrow(/writing ticks-enc-1 failed: .*File exists/);
    expect(rows.status()).toMatchObject({ queued: 5, written: 1, degraded: true });
    expect(rows.status().lastError).not.toMatch(/\.rs:\d+/);
    // The loop keeps going: appends neither throw nor wait, and the bound still holds.
    const later = range(6, 260).map((step) => rows.append(tick(step)));
    expect(later.filter((result) => !result.accepted)).toHaveLength(59);
    expect(rows.status()).toMatchObject({ queued: 200, dropped: 59, degraded: true });

    rmSync(data);
    renameSync(`${data}.aside`, data);
    await rows.flush();
    expect(rows.status()).toMatchObject({ queued: 0, written: 201, dropped: 59, degraded: false });
    expect(await storedSteps(store)).toEqual(range(0, 201));
  });

  it('close() writes everything queued, then refuses new rows', async () => {
    const rows = writer({ batchRows: 1000 });
    for (const step of range(0, 7)) rows.append(tick(step));
    await rows.close();
    expect(await storedSteps(store)).toEqual(range(0, 7));
    expect(rows.append(tick(7))).toEqual({ accepted: false, reason: 'closed' });
    expect(rows.status()).toMatchObject({ written: 7, dropped: 1 });
  });
});
