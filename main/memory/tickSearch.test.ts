import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Memory } from './memory.ts';
import { ticksFromArrow } from './tickRead.ts';
import { nearestMoments, type Moment } from './tickSearch.ts';
import type { ActedBy, TickRow, TickSpace } from './tickSchema.ts';
import type { TickStore } from './tickStore.ts';
import { tickRow } from '../../test/support/tickRows.ts';

const SPACE: TickSpace = { encoderVersion: 'enc-1', embeddingSize: 4, distance: 'l2' };
const EPISODES = ['ep-a', 'ep-b', 'ep-c'];
const STEPS = 50;
const T0_MS = 1_700_000_000_000;

/** Step s of every episode sits at the same place, nudged apart by episode: [s, episode × 0.01, 0, 1]. */
function tick(episode: number, step: number): TickRow {
  const actedBy: ActedBy = step % 2 === 0 ? 'operator' : 'policy';
  return tickRow({
    episodeId: EPISODES[episode]!,
    step,
    timeMs: T0_MS + (episode * STEPS + step) * 100,
    embedding: Float32Array.from([step, episode * 0.01, 0, 1]),
    actedBy,
    surpriseNats: step / 10,
  });
}

const where = (moments: Moment[]) => moments.map((moment) => `${moment.episodeId}#${moment.step}`);
const near = (step: number) => ({ embedding: Float32Array.from([step, 0, 0, 1]) });

describe('nearest moments', () => {
  let folder: string;
  let memory: Memory;
  let store: TickStore;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'reins-memory-'));
    memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 } });
    store = await memory.ticks(SPACE);
    await store.write(EPISODES.flatMap((_, episode) => Array.from({ length: STEPS }, (__, step) => tick(episode, step))));
  });
  afterAll(async () => {
    await memory.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('finds the k nearest ticks to an embedding, nearest first, with their distance', async () => {
    const moments = await nearestMoments(store, near(20), { k: 4 });
    expect(where(moments)).toEqual(['ep-a#20', 'ep-b#20', 'ep-c#20', moments[3]!.episodeId + '#' + moments[3]!.step]);
    expect(moments[3]!.step === 19 || moments[3]!.step === 21).toBe(true);
    expect(moments[0]).toMatchObject({ actedBy: 'operator', surpriseNats: 2, distance: 0, timeMs: T0_MS + 2000 });
  });

  it('finds moments like a stored tick, leaving that tick out', async () => {
    expect(where(await nearestMoments(store, { episodeId: 'ep-b', step: 30 }, { k: 2 }))).toEqual(['ep-a#30', 'ep-c#30']);
    await expect(nearestMoments(store, { episodeId: 'ep-b', step: 999 })).rejects.toThrow('no tick ep-b step 999 in ticks-enc-1');
  });

  it('filters by episode, by who acted, by time and by surprise', async () => {
    expect(where(await nearestMoments(store, near(20), { k: 2, filter: { episodeIds: ['ep-c'] } }))).toEqual([
      'ep-c#20',
      expect.stringMatching(/^ep-c#(19|21)$/),
    ]);
    expect(where(await nearestMoments(store, near(20), { k: 2, filter: { excludeEpisodeIds: ['ep-a', 'ep-b'] } }))[0]).toBe('ep-c#20');
    const policy = await nearestMoments(store, near(20), { k: 6, filter: { actedBy: ['policy'] } });
    expect(new Set(policy.map((moment) => moment.step))).toEqual(new Set([19, 21]));
    const late = await nearestMoments(store, near(20), { k: 3, filter: { fromMs: T0_MS + (2 * STEPS + 10) * 100, toMs: T0_MS + (2 * STEPS + 30) * 100 } });
    expect(where(late)).toEqual(['ep-c#20', expect.stringMatching(/^ep-c#(19|21)$/), expect.stringMatching(/^ep-c#(19|21)$/)]);
    const surprising = await nearestMoments(store, near(20), { k: 3, filter: { minSurpriseNats: 4.5 } });
    expect(surprising.every((moment) => moment.step > 45)).toBe(true);
    expect(await nearestMoments(store, near(20), { filter: { episodeIds: [] } })).toEqual([]);
  });

  it('refuses a query embedding that does not belong to this encoder', async () => {
    await expect(nearestMoments(store, { embedding: new Float32Array(3) })).rejects.toThrow(
      'query embedding has 3 values; ticks-enc-1 holds 4-float embeddings',
    );
    await expect(nearestMoments(store, { embedding: Float32Array.from([0, NaN, 0, 0]) })).rejects.toThrow('query embedding holds NaN at index 1');
  });

  it('never returns ticks of another encoder version', async () => {
    const other = await memory.ticks({ encoderVersion: 'enc-2', embeddingSize: 4, distance: 'l2' });
    await other.write([{ ...tick(0, 20), episodeId: 'ep-new', encoderVersion: 'enc-2' }]);
    expect(where(await nearestMoments(store, near(20), { k: 1 }))).toEqual(['ep-a#20']);
    expect(where(await nearestMoments(other, near(20), { k: 5 }))).toEqual(['ep-new#20']);
  });
});

describe('a moment read from its packed column', () => {
  it('is the tick as its columns hold it, fields absent or present', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'reins-memory-'));
    const memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 } });
    try {
      const store = await memory.ticks(SPACE);
      expect(store.segments.map((segment) => segment.packedMoments)).toEqual([true]);
      // Every other tick recorded (file and log time) and surprising (a value a 32-bit float rounds).
      const ticks = Array.from({ length: 20 }, (_, step) =>
        tickRow({
          episodeId: `ep "${step % 3}" ✓`,
          step,
          timeMs: T0_MS + step * 100.5,
          embedding: Float32Array.from([step, 0, 0, 1]),
          actedBy: step % 2 === 0 ? 'operator' : 'safety',
          ...(step % 2 === 0 ? { surpriseNats: step / 3, mcapFile: `run-${step}.mcap`, mcapLogTimeNs: 9_007_199_254_740_993n + BigInt(step) } : {}),
        }),
      );
      await store.write(ticks);
      const found = await nearestMoments(store, near(10), { k: 20 });
      expect(found).toHaveLength(20);
      const columns = ticksFromArrow(await store.query());
      for (const moment of found) {
        const row = columns.find((candidate) => candidate.episodeId === moment.episodeId && candidate.step === moment.step)!;
        const { episodeId, step, timeMs, actedBy, surpriseNats, mcapFile, mcapLogTimeNs } = row;
        expect(moment).toEqual({ episodeId, step, timeMs, actedBy, surpriseNats, mcapFile, mcapLogTimeNs, distance: (moment.step - 10) ** 2 });
      }
      expect(found.find((moment) => moment.step === 4)).toMatchObject({ surpriseNats: Math.fround(4 / 3), mcapLogTimeNs: 9_007_199_254_740_997n });
      expect(found.find((moment) => moment.step === 5)).toMatchObject({ surpriseNats: undefined, mcapFile: undefined, mcapLogTimeNs: undefined });
    } finally {
      await memory.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
