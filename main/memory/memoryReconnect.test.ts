// Memory.reconnect(): a fresh LanceDB connection replaces the old one under every open table, and what
// the old one held is freed (it keeps native memory for every commit until closed).
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mallocStats } from '../core/runtime/allocatorTuning.ts';
import { Memory } from './memory.ts';
import type { TickSpace } from './tickSchema.ts';
import { tickRow } from '../../test/support/tickRows.ts';

const SPACE: TickSpace = { encoderVersion: 'enc-1', embeddingSize: 4, distance: 'l2' };
const tick = (step: number) => tickRow({ episodeId: 'ep-1', step, embedding: Float32Array.from([step, 0, 0, 1]) });
const episode = { episodeId: 'ep-1', robotId: 'sim', task: 'reach', startMs: 1000, policyVersion: 'p-1', encoderVersion: 'enc-1' };

describe('Memory.reconnect', () => {
  let folder: string;
  let memory: Memory;
  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'reins-reconnect-'));
    memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 }, reconnectEveryMs: 0 });
  });
  afterEach(async () => {
    await memory.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('moves every open table to the new connection: what was written stays, writes and reads go on', async () => {
    const store = await memory.ticks(SPACE);
    await store.write([tick(0), tick(1)]);
    await memory.records.putEpisode(episode);
    const [ticksBefore, episodesBefore] = [store.openSegment.table, memory.records.episodes];

    await memory.reconnect();

    expect(store.openSegment.table).not.toBe(ticksBefore);
    expect(memory.records.episodes).not.toBe(episodesBefore);
    expect(memory.reconnectStatus()).toEqual({ reconnects: 1, lastError: undefined });
    await store.write([tick(2)]);
    expect(await store.countRows()).toBe(3);
    await memory.records.putEpisode({ ...episode, endMs: 4000, outcome: 'succeeded' });
    expect(await memory.records.listEpisodes()).toMatchObject([{ episodeId: 'ep-1', endMs: 4000 }]);
    expect(await memory.tickSpaces()).toEqual([SPACE]);
    await expect(ticksBefore.countRows()).rejects.toThrow(/closed/i);
  });

  it('lets a write in flight on the old connection finish and land', async () => {
    const store = await memory.ticks(SPACE);
    const writing = store.write([tick(0), tick(1), tick(2)]);
    await Promise.all([writing, memory.reconnect()]);
    expect(await store.countRows()).toBe(3);
  });

  it('opens a store asked for during a reconnect on the connection that stays', async () => {
    const reconnecting = memory.reconnect();
    const store = memory.ticks(SPACE);
    await reconnecting;
    await (await store).write([tick(0)]);
    expect(await (await store).countRows()).toBe(1);
  });

  it('keeps the old connection when a table cannot be opened on the new one, and says why', async () => {
    const store = await memory.ticks(SPACE);
    await store.write([tick(0)]);
    const before = store.openSegment.table;
    renameSync(join(folder, 'corrections.lance'), join(folder, 'moved-away'));

    await expect(memory.reconnect()).rejects.toThrow(/corrections/);

    expect(memory.reconnectStatus().lastError).toMatch(/^memory reconnect failed: .*corrections/);
    expect(store.openSegment.table).toBe(before);
    await store.write([tick(1)]);
    expect(await store.countRows()).toBe(2);
    renameSync(join(folder, 'moved-away'), join(folder, 'corrections.lance'));
    await memory.reconnect();
    expect(memory.reconnectStatus()).toEqual({ reconnects: 1, lastError: undefined });
  });

  it('frees the native memory the old connection kept for every commit', async () => {
    const before = mallocStats();
    if (before === undefined) return; // not glibc, or the addon is not built: nothing to measure with
    const store = await memory.ticks(SPACE);
    // One commit a write, as the tick writer makes every 2 s.
    for (let step = 0; step < 300; step++) await store.write([tick(step)]);
    const grown = mallocStats()!.inUse - before.inUse;
    await memory.reconnect();
    const kept = mallocStats()!.inUse - before.inUse;
    // 300 commits keep ~25 MiB in the connection; after the reconnect at most a fifth of the growth stays.
    expect(grown).toBeGreaterThan(10 * 2 ** 20);
    expect(kept).toBeLessThan(grown / 5);
    expect(await store.countRows()).toBe(300);
  });

  it('is refused once the memory is closed', async () => {
    await memory.close();
    await expect(memory.reconnect()).rejects.toThrow('the memory is closed');
    memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 }, reconnectEveryMs: 0 });
  });
});
