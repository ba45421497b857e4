// Memory folders written by earlier Reins (test/fixtures/memory-folders: before the structure issue,
// and just before ticks were cut into segments) open and are read in place: their one ticks table is
// segment 0. By default it goes on taking ticks (one table, as before segments); with a segment bound
// it has passed, it is closed and new ticks go to segments beside it.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Memory } from '../../main/memory/memory.ts';
import { loadReplayIndex } from '../../main/memory/replayIndex.ts';
import { readSequences } from '../../main/memory/replaySequences.ts';
import { ticksFromArrow } from '../../main/memory/tickRead.ts';
import { nearestMoments } from '../../main/memory/tickSearch.ts';
import type { TickRow } from '../../main/memory/tickSchema.ts';
import { FIXTURE_SESSIONS, FIXTURE_SPACE, fixtureEmbedding, fixtureTick } from '../fixtures/memory-folders/writeMemoryFolder.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'memory-folders');

/** Every tick the fixture writer wrote, in the order it wrote them. */
const written: TickRow[] = FIXTURE_SESSIONS.flatMap((session, sessionNumber) =>
  session.episodeIds.flatMap((episodeId, index) =>
    Array.from({ length: session.ticksPerEpisode }, (_, step) => fixtureTick(sessionNumber * 2 + index, episodeId, step, session.startMs)),
  ),
);

/** What a search should return of a tick, distance aside (the surprise as its column stores it). */
function momentOf(tick: TickRow) {
  const { episodeId, step, timeMs, actedBy, surpriseNats, mcapFile, mcapLogTimeNs } = tick;
  return { episodeId, step, timeMs, actedBy, surpriseNats: surpriseNats === undefined ? undefined : Math.fround(surpriseNats), mcapFile, mcapLogTimeNs };
}

function nearestByHand(query: Float32Array, k: number): string[] {
  const distance = (tick: TickRow) => tick.embedding.reduce((sum, value, d) => sum + (value - query[d]!) ** 2, 0);
  return written
    .map((tick) => ({ id: `${tick.episodeId}#${tick.step}`, distance: distance(tick) }))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, k)
    .map((entry) => entry.id);
}

describe.each(['before-structure', 'before-segments'])('the memory folder written %s', (fixture) => {
  let folder: string;
  let memory: Memory | undefined;
  beforeEach(() => {
    // A copy: opening writes (the open segment), and the fixture stays as it was committed.
    folder = join(mkdtempSync(join(tmpdir(), 'reins-old-memory-')), 'memory');
    cpSync(join(FIXTURES, fixture), folder, { recursive: true });
  });
  afterEach(async () => {
    await memory?.close();
    memory = undefined;
    rmSync(join(folder, '..'), { recursive: true, force: true });
  });

  it('opens with every tick, episode, correction and checkpoint, its ticks table read in place as the only segment', async () => {
    memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 } });
    expect(await memory.tickSpaces()).toEqual([FIXTURE_SPACE]);
    const store = await memory.ticks(FIXTURE_SPACE);
    expect(store.segments.map((segment) => segment.name)).toEqual(['ticks-enc-fixture']);
    expect(await store.countRows()).toBe(written.length);
    const rows = ticksFromArrow(await store.query()).sort((a, b) => a.episodeId.localeCompare(b.episodeId) || a.step - b.step);
    expect(rows).toHaveLength(written.length);
    const s1ep1 = rows.find((row) => row.episodeId === 's1-ep1' && row.step === 42)!;
    const expected = fixtureTick(1, 's1-ep1', 42, FIXTURE_SESSIONS[0]!.startMs);
    expect({ ...s1ep1, embedding: Array.from(s1ep1.embedding!), latent: Array.from(s1ep1.latent!) }).toEqual({
      ...expected,
      // Stored as 32-bit floats.
      actionLinearMps: Math.fround(expected.actionLinearMps),
      actionAngularRadps: Math.fround(expected.actionAngularRadps),
      surpriseNats: Math.fround(expected.surpriseNats!),
      embedding: Array.from(expected.embedding),
      latent: Array.from(expected.latent!),
    });
    expect((await memory.records.listEpisodes()).map((episode) => [episode.episodeId, episode.outcome])).toEqual([
      ['s1-ep0', 'succeeded'],
      ['s1-ep1', 'succeeded'],
      ['s2-ep0', 'succeeded'],
      ['s2-ep1', 'succeeded'],
    ]);
    expect((await memory.records.listCheckpoints('policy')).map((checkpoint) => checkpoint.version)).toEqual(['policy-1', 'policy-2']);
  });

  it('finds its moments and replays its episodes as before', async () => {
    memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 } });
    const store = await memory.ticks(FIXTURE_SPACE);
    const found = await nearestMoments(store, { embedding: fixtureEmbedding(3, 17) }, { k: 5 });
    expect(found[0]).toMatchObject({ episodeId: 's2-ep1', step: 17, distance: 0, mcapFile: 'session-s2.mcap', mcapLogTimeNs: 1_700_000_000n });
    expect(found.map((moment) => `${moment.episodeId}#${moment.step}`)).toEqual(nearestByHand(fixtureEmbedding(3, 17), 5));
    const exact = await nearestMoments(store, { episodeId: 's1-ep0', step: 80 }, { k: 4, exact: true, filter: { actedBy: ['policy'] } });
    expect(exact.every((moment) => moment.actedBy === 'policy' && !(moment.episodeId === 's1-ep0' && moment.step === 80))).toBe(true);

    const index = await loadReplayIndex(store, memory.records);
    expect(index.episodes.map((episode) => [episode.episodeId, episode.steps.length])).toEqual([
      ['s1-ep0', 100],
      ['s1-ep1', 100],
      ['s2-ep0', 100],
      ['s2-ep1', 100],
    ]);
    // The undo of s2-ep1's takeover is honoured.
    expect([...index.interventions.keys()].sort()).toEqual(['s1-ep0', 's1-ep1', 's2-ep0']);
    const [sequence] = await readSequences(store, [{ episodeId: 's2-ep0', startStep: 38, length: 4 }]);
    expect(sequence!.map((row) => row.actedBy)).toEqual(['policy', 'policy', 'operator', 'operator']);
  });

  it('by default takes new ticks into its one table, and reopens as one table', async () => {
    memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 } });
    const store = await memory.ticks(FIXTURE_SPACE);
    await store.write(Array.from({ length: 30 }, (_, step) => fixtureTick(4, 's3-ep0', step, Date.UTC(2026, 0, 7, 9))));
    expect(await store.segments[0]!.table.countRows()).toBe(written.length + 30);
    expect((await memory.maintenance.runOnce()).segmentsOptimized).toEqual(['ticks-enc-fixture']);
    expect((await nearestMoments(store, { embedding: fixtureEmbedding(4, 3) }, { k: 1 }))[0]).toMatchObject({ episodeId: 's3-ep0', step: 3, distance: 0 });
    await memory.close();

    memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 } });
    const reopened = await memory.ticks(FIXTURE_SPACE);
    expect(reopened.segments.map((segment) => segment.name)).toEqual(['ticks-enc-fixture']);
    expect(await reopened.countRows()).toBe(written.length + 30);
    // Its old rows have no packed moment, so the table is still searched for the moment's columns,
    // for the new rows as for the old, after the migration and new writes as before them.
    expect(reopened.segments.map((segment) => segment.packedMoments)).toEqual([false]);
    for (const [episode, episodeId, step, startMs] of [
      [4, 's3-ep0', 3, Date.UTC(2026, 0, 7, 9)],
      [3, 's2-ep1', 17, FIXTURE_SESSIONS[1]!.startMs],
    ] as const) {
      const [moment] = await nearestMoments(reopened, { embedding: fixtureEmbedding(episode, step) }, { k: 1 });
      expect(moment).toEqual({ ...momentOf(fixtureTick(episode, episodeId, step, startMs)), distance: 0 });
    }
  });

  it('with a segment bound it has passed, takes new ticks into a segment beside the old table, which maintenance finishes once and then leaves alone', async () => {
    const segmented = { uri: folder, maintenance: { periodMs: 0 }, ticks: { segmentRows: written.length - 1 } };
    memory = await Memory.open(segmented);
    const store = await memory.ticks(FIXTURE_SPACE);
    expect(store.segments.map((segment) => segment.name)).toEqual(['ticks-enc-fixture', 'ticks-enc-fixture.s000001']);
    const old = store.segments[0]!.table;
    const oldVersion = await old.version();
    const next = Array.from({ length: 30 }, (_, step) => fixtureTick(4, 's3-ep0', step, Date.UTC(2026, 0, 7, 9)));
    await store.write(next);
    expect(await old.version()).toBe(oldVersion);
    expect(await old.countRows()).toBe(written.length);
    expect(await store.countRows()).toBe(written.length + 30);
    expect((await memory.maintenance.runOnce()).segmentsOptimized).toEqual(['ticks-enc-fixture', 'ticks-enc-fixture.s000001']);
    expect(await old.countRows()).toBe(written.length);
    const found = await nearestMoments(store, { embedding: fixtureEmbedding(4, 3) }, { k: 1 });
    expect(found[0]).toEqual({ ...momentOf(next[3]!), distance: 0 });
    // The new segment packs each row's moment; the old table is searched for its columns.
    expect(store.segments.map((segment) => segment.packedMoments)).toEqual([false, true]);
    await memory.close();

    memory = await Memory.open(segmented);
    const reopened = await memory.ticks(FIXTURE_SPACE);
    expect(reopened.segments.map((segment) => segment.name)).toEqual(['ticks-enc-fixture', 'ticks-enc-fixture.s000001']);
    expect(await reopened.countRows()).toBe(written.length + 30);
  });
});
