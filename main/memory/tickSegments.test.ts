import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SeededRandom } from '../core/util/seededRandom.ts';
import { Memory, type MemoryOptions } from './memory.ts';
import { loadReplayIndex } from './replayIndex.ts';
import { ReplaySampler } from './replaySampler.ts';
import { readSequences } from './replaySequences.ts';
import { nearestMoments, type Moment } from './tickSearch.ts';
import type { TickRow, TickSpace } from './tickSchema.ts';
import { FLAT_UPKEEP_SEGMENT_ROWS, segmentNumber, segmentTableName } from './tickSegments.ts';
import { tickRow } from '../../test/support/tickRows.ts';

const SPACE: TickSpace = { encoderVersion: 'enc-1', embeddingSize: 8, distance: 'l2' };
const SEGMENT_ROWS = 100;

/** Ticks of random embeddings, ten episodes of 50 steps in turn; the same for the same seed. */
function randomTicks(count: number, seed = 7): TickRow[] {
  const random = new SeededRandom(seed);
  return Array.from({ length: count }, (_, i) =>
    tickRow({
      episodeId: `ep-${Math.floor(i / 50)}`,
      step: i % 50,
      timeMs: 1_700_000_000_000 + i * 100,
      actedBy: i % 3 === 0 ? 'operator' : 'policy',
      surpriseNats: (i % 10) / 4,
      embedding: Float32Array.from({ length: SPACE.embeddingSize }, () => random.next() * 2 - 1),
    }),
  );
}

/** The k nearest by squared L2, computed here, ties broken by position. */
function bruteForce(ticks: readonly TickRow[], query: Float32Array, k: number): string[] {
  const distance = (tick: TickRow) => tick.embedding.reduce((sum, value, d) => sum + (value - query[d]!) ** 2, 0);
  return ticks
    .map((tick, position) => ({ id: `${tick.episodeId}#${tick.step}`, distance: distance(tick), position }))
    .sort((a, b) => a.distance - b.distance || a.position - b.position)
    .slice(0, k)
    .map((entry) => entry.id);
}

const ids = (moments: readonly Moment[]) => moments.map((moment) => `${moment.episodeId}#${moment.step}`);

describe('tick segments', () => {
  let folder: string;
  const opened: Memory[] = [];
  const open = async (options: Partial<MemoryOptions> = {}, uri = folder) => {
    const memory = await Memory.open({ uri, maintenance: { periodMs: 0, keepVersionsMs: 0 }, ticks: { segmentRows: SEGMENT_ROWS }, ...options });
    opened.push(memory);
    return memory;
  };
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'reins-segments-'));
  });
  afterEach(async () => {
    for (const memory of opened.splice(0)) await memory.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('names segments after their encoder version and tells them from other tables', () => {
    expect(segmentTableName(SPACE, 12)).toBe('ticks-enc-1.s000012');
    expect(segmentNumber(SPACE, 'ticks-enc-1.s000012')).toBe(12);
    expect(segmentNumber(SPACE, 'ticks-enc-1')).toBe(0);
    expect(segmentNumber(SPACE, 'ticks-enc-10.s000001')).toBeUndefined();
    expect(segmentNumber(SPACE, 'episodes')).toBeUndefined();
  });

  it('closes the open segment at its row bound and opens the next; a new session goes on in the newest one while it has room', async () => {
    const ticks = randomTicks(250);
    let store = await (await open()).ticks(SPACE);
    for (let from = 0; from < 230; from += 30) await store.write(ticks.slice(from, Math.min(230, from + 30)));
    expect(store.segments.map((segment) => segment.name)).toEqual(['ticks-enc-1.s000001', 'ticks-enc-1.s000002', 'ticks-enc-1.s000003']);
    expect(await Promise.all(store.segments.map((segment) => segment.table.countRows()))).toEqual([90, 90, 50]);
    expect(await store.countRows()).toBe(230);
    await opened.pop()!.close();

    store = await (await open()).ticks(SPACE);
    expect(store.openSegment.name).toBe('ticks-enc-1.s000003');
    await store.write(ticks.slice(230, 250));
    expect(await store.openSegment.table.countRows()).toBe(70);
    await opened.pop()!.close();

    // A memory whose newest segment is full starts the next one when opened.
    store = await (await open({ ticks: { segmentRows: 70 } })).ticks(SPACE);
    expect(store.openSegment.name).toBe('ticks-enc-1.s000004');
    expect(await store.countRows()).toBe(250);
  });

  it('by default keeps every tick in one segment, which never closes (a search asks one table, as before segments)', async () => {
    // Past the bound one asks for where upkeep must stay flat.
    const ticks = randomTicks(FLAT_UPKEEP_SEGMENT_ROWS + 50);
    let store = await (await open({ ticks: {} })).ticks(SPACE);
    await store.write(ticks.slice(0, FLAT_UPKEEP_SEGMENT_ROWS));
    await store.write(ticks.slice(FLAT_UPKEEP_SEGMENT_ROWS));
    // Named as before segments: the memory is the layout earlier Reins reads.
    expect(store.segments.map((segment) => segment.name)).toEqual(['ticks-enc-1']);
    await opened.pop()!.close();
    store = await (await open({ ticks: {} })).ticks(SPACE);
    expect(store.segments.map((segment) => segment.name)).toEqual(['ticks-enc-1']);
    expect(await store.openSegment.table.countRows()).toBe(ticks.length);
    await expect(open({ ticks: { segmentRows: 0 } }).then((memory) => memory.ticks(SPACE))).rejects.toThrow(/segment rows must be/);
  });

  it('finds across segments exactly what one table holding the same rows finds, nearest first', async () => {
    const ticks = randomTicks(330);
    const segmented = await (await open()).ticks(SPACE);
    for (let from = 0; from < ticks.length; from += 40) await segmented.write(ticks.slice(from, from + 40));
    expect(segmented.segments.length).toBe(4);
    const whole = await (await open({ ticks: { segmentRows: 10_000 } }, join(folder, 'whole'))).ticks(SPACE);
    await whole.write(ticks);
    expect(whole.segments.length).toBe(1);

    const random = new SeededRandom(99);
    for (let query = 0; query < 20; query++) {
      const embedding = Float32Array.from({ length: SPACE.embeddingSize }, () => random.next() * 2 - 1);
      const found = await nearestMoments(segmented, { embedding }, { k: 10 });
      expect(ids(found)).toEqual(bruteForce(ticks, embedding, 10));
      expect(ids(found)).toEqual(ids(await nearestMoments(whole, { embedding }, { k: 10 })));
      expect(found.map((moment) => moment.distance)).toEqual([...found.map((moment) => moment.distance)].sort((a, b) => a - b));
      const filter = { actedBy: ['operator' as const], minSurpriseNats: 1 };
      const kept = ticks.filter((tick) => tick.actedBy === 'operator' && tick.surpriseNats! > 1);
      expect(ids(await nearestMoments(segmented, { embedding }, { k: 5, filter }))).toEqual(bruteForce(kept, embedding, 5));
    }
    // A stored tick as the query: found in whichever segment holds it, and left out of the answer.
    const stored = ticks[301]!;
    const like = await nearestMoments(segmented, { episodeId: stored.episodeId, step: stored.step }, { k: 3 });
    expect(ids(like)).toEqual(bruteForce(ticks, stored.embedding, 4).slice(1));
  });

  it('searches segments with and without a vector index together', async () => {
    const ticks = randomTicks(330);
    const memory = await open({ maintenance: { periodMs: 0, keepVersionsMs: 0, indexMinRows: 80 } });
    const store = await memory.ticks(SPACE);
    for (let from = 0; from < ticks.length; from += 50) await store.write(ticks.slice(from, from + 50));
    const report = await memory.maintenance.runOnce();
    // The three full segments are indexed; the open one (30 rows) is searched exactly.
    expect(report.vectorIndexes).toEqual({
      'ticks-enc-1.s000001': 'built',
      'ticks-enc-1.s000002': 'built',
      'ticks-enc-1.s000003': 'built',
      'ticks-enc-1.s000004': 'too-small',
    });
    const random = new SeededRandom(5);
    let hits = 0;
    for (let query = 0; query < 20; query++) {
      const embedding = Float32Array.from({ length: SPACE.embeddingSize }, () => random.next() * 2 - 1);
      const truth = new Set(bruteForce(ticks, embedding, 10));
      expect(ids(await nearestMoments(store, { embedding }, { k: 10, exact: true }))).toEqual([...truth]);
      hits += ids(await nearestMoments(store, { embedding }, { k: 10 })).filter((id) => truth.has(id)).length;
    }
    expect(hits / 200).toBeGreaterThanOrEqual(0.9);
  });

  it('replays episodes that go on across a rollover: the index spans segments and a sequence reads back whole', async () => {
    const memory = await open();
    const store = await memory.ticks(SPACE);
    const ticks = randomTicks(200).map((tick, i) => ({ ...tick, episodeId: 'long', step: i }));
    for (let from = 0; from < 200; from += 25) await store.write(ticks.slice(from, from + 25));
    expect(store.segments.length).toBe(2);
    const index = await loadReplayIndex(store);
    expect(index.episodes.map((episode) => episode.episodeId)).toEqual(['long']);
    expect(Array.from(index.episodes[0]!.steps)).toEqual(ticks.map((tick) => tick.step));
    const [across] = await readSequences(store, [{ episodeId: 'long', startStep: 90, length: 20 }]);
    expect(across!.map((row) => row.step)).toEqual(Array.from({ length: 20 }, (_, i) => 90 + i));
    expect(Array.from(across![15]!.embedding)).toEqual(Array.from(ticks[105]!.embedding));
  });

  it('draws the same replay sequences from segments as from one table holding the same rows', async () => {
    const ticks = randomTicks(500).map((tick, i) => ({ ...tick, surpriseNats: (i % 37) / 9 }));
    const segmented = await (await open()).ticks(SPACE);
    for (let from = 0; from < ticks.length; from += 30) await segmented.write(ticks.slice(from, from + 30));
    const whole = await (await open({ ticks: { segmentRows: 10_000 } }, join(folder, 'whole'))).ticks(SPACE);
    await whole.write(ticks);
    expect(segmented.segments.length).toBe(6);
    for (const priority of ['uniform', 'surpriseNats'] as const) {
      const draw = async (store: typeof whole) => new ReplaySampler(await loadReplayIndex(store), { sequenceLength: 8, priority, seed: 3 }).sample(40);
      const refs = await draw(segmented);
      expect(refs).toEqual(await draw(whole));
      const rows = await readSequences(segmented, refs);
      expect(rows.map((sequence) => sequence.map((row) => `${row.episodeId}#${row.step}`))).toEqual(
        (await readSequences(whole, refs)).map((sequence) => sequence.map((row) => `${row.episodeId}#${row.step}`)),
      );
    }
  });

  it('maintenance rewrites the open segment every run and a closed one once, leaving closed ones untouched after', async () => {
    const memory = await open();
    const store = await memory.ticks(SPACE);
    const ticks = randomTicks(500);
    for (let from = 0; from < 250; from += 10) await store.write(ticks.slice(from, from + 10));
    let report = await memory.maintenance.runOnce();
    expect(report.segmentsOptimized).toEqual(['ticks-enc-1.s000001', 'ticks-enc-1.s000002', 'ticks-enc-1.s000003']);
    const closed = store.segments.slice(0, 2);
    const versions = await Promise.all(closed.map((segment) => segment.table.version()));
    // Pre-compaction versions are dropped on a later visit (keepVersionsMs is 0 here, so at once).
    report = await memory.maintenance.runOnce();
    expect(report.segmentsOptimized).toEqual(['ticks-enc-1.s000001', 'ticks-enc-1.s000002', 'ticks-enc-1.s000003']);
    const settled = await Promise.all(closed.map((segment) => segment.table.version()));
    for (let run = 0; run < 3; run++) {
      await store.write(ticks.slice(250 + run * 10, 260 + run * 10));
      report = await memory.maintenance.runOnce();
      expect(report.segmentsOptimized).toEqual(['ticks-enc-1.s000003']);
    }
    expect(await Promise.all(closed.map((segment) => segment.table.version()))).toEqual(settled);
    expect(settled.every((version, i) => version >= versions[i]!)).toBe(true);
    expect((await closed[0]!.table.stats()).fragmentStats.numFragments).toBe(1);

    // A new process looks at every closed segment once (one a crash left unfinished is finished then).
    await opened.pop()!.close();
    const again = await open();
    await again.ticks(SPACE);
    expect((await again.maintenance.runOnce()).segmentsOptimized).toEqual(['ticks-enc-1.s000001', 'ticks-enc-1.s000002', 'ticks-enc-1.s000003']);
    await again.maintenance.runOnce(); // the visit that drops old versions
    expect((await again.maintenance.runOnce()).segmentsOptimized).toEqual(['ticks-enc-1.s000003']);
  });

  it('a reader on another connection sees the segments the writer opened once it refreshes', async () => {
    const writer = await (await open()).ticks(SPACE);
    const reader = await (await open()).ticks(SPACE);
    const ticks = randomTicks(250);
    for (let from = 0; from < 250; from += 50) await writer.write(ticks.slice(from, from + 50));
    expect(reader.segments.length).toBe(1);
    await reader.refresh();
    expect(reader.segments.map((segment) => segment.name)).toEqual(writer.segments.map((segment) => segment.name));
    expect(await reader.countRows()).toBe(250);
    expect((await reader.query({ columns: ['step'] })).numRows).toBe(250);
    expect(readdirSync(folder).filter((entry) => entry.startsWith('ticks-'))).toHaveLength(3);
  });
});
