import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Memory } from './memory.ts';
import { ACTOR_CODES, loadReplayIndex, type ReplayEpisode, type ReplayIndex } from './replayIndex.ts';
import { ReplaySampler, type SequenceRef } from './replaySampler.ts';
import { readSequence, readSequences } from './replaySequences.ts';
import type { ActedBy, TickRow } from './tickSchema.ts';

type Actor = 'operator' | 'policy' | 'other';

function episode(episodeId: string, steps: number[], actorOf: (step: number) => Actor, surpriseOf: (step: number) => number = () => 0): ReplayEpisode {
  return {
    episodeId,
    steps: Int32Array.from(steps),
    actors: Uint8Array.from(steps, (step) => ACTOR_CODES[actorOf(step)]),
    surpriseNats: Float32Array.from(steps, surpriseOf),
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

function index(episodes: ReplayEpisode[], interventions: ReplayIndex['interventions'] = new Map()): ReplayIndex {
  return { episodes, interventions };
}

/** The actor driving most of a sequence, read from the index. */
function majority(replay: ReplayIndex, ref: SequenceRef): Actor {
  const found = replay.episodes.find((candidate) => candidate.episodeId === ref.episodeId)!;
  let operator = 0;
  let policy = 0;
  for (let step = ref.startStep; step < ref.startStep + ref.length; step++) {
    const code = found.actors[found.steps.indexOf(step)];
    if (code === ACTOR_CODES.operator) operator++;
    if (code === ACTOR_CODES.policy) policy++;
  }
  return operator > 0 && operator >= policy ? 'operator' : policy > 0 ? 'policy' : 'other';
}

describe('replay sampling', () => {
  // Episode "a" is 90% operator; "b" has a gap between steps 4 and 10 (rows lost in an overload).
  const replay = index([
    episode('a', range(0, 100), (step) => (step < 90 ? 'operator' : 'policy')),
    episode('b', [...range(0, 5), ...range(10, 15)], () => 'policy'),
  ]);

  it('draws fixed-length runs of consecutive steps within one episode, never across a gap', () => {
    const refs = new ReplaySampler(replay, { sequenceLength: 4, balanced: false, seed: 3 }).sample(500);
    for (const ref of refs) {
      const steps = replay.episodes.find((candidate) => candidate.episodeId === ref.episodeId)!.steps;
      for (let step = ref.startStep; step < ref.startStep + 4; step++) expect(steps.includes(step)).toBe(true);
    }
    expect(new Set(refs.filter((ref) => ref.episodeId === 'b').map((ref) => ref.startStep))).toEqual(new Set([0, 1, 10, 11]));
  });

  it('gives the same sequences for the same seed, and others for another', () => {
    const draw = (seed: number) => new ReplaySampler(replay, { sequenceLength: 8, seed }).sample(20);
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it('balances operator and policy data half and half, however lopsided the memory', () => {
    const refs = new ReplaySampler(replay, { sequenceLength: 4, seed: 1 }).sample(2000);
    const operatorShare = refs.filter((ref) => majority(replay, ref) === 'operator').length / refs.length;
    expect(operatorShare).toBeGreaterThan(0.45);
    expect(operatorShare).toBeLessThan(0.55);
    const unbalanced = new ReplaySampler(replay, { sequenceLength: 4, seed: 1, balanced: false }).sample(2000);
    expect(unbalanced.filter((ref) => majority(replay, ref) === 'operator').length / unbalanced.length).toBeGreaterThan(0.75);
  });

  it('prefers surprising stretches when prioritised by surprise in nats', () => {
    const surprising = index([
      episode(
        's',
        range(0, 200),
        () => 'policy',
        (step) => (step >= 100 && step < 110 ? 5 : 0),
      ),
    ]);
    const refs = new ReplaySampler(surprising, { sequenceLength: 5, priority: 'surpriseNats', seed: 2 }).sample(1000);
    const overlapping = refs.filter((ref) => ref.startStep + 5 > 100 && ref.startStep < 110).length / refs.length;
    // 14 of 196 windows touch the surprising stretch; uniform sampling would give ~7%.
    expect(overlapping).toBeGreaterThan(0.8);
  });

  it('prefers stretches near an intervention when prioritised by interventions', () => {
    const withTakeover = index(
      [episode('i', range(0, 400), (step) => (step >= 200 && step < 230 ? 'operator' : 'policy'))],
      new Map([['i', [{ startStep: 200, endStep: 229 }]]]),
    );
    const refs = new ReplaySampler(withTakeover, { sequenceLength: 10, priority: 'intervention', balanced: false, seed: 4 }).sample(1000);
    const near = refs.filter((ref) => ref.startStep + 10 > 150 && ref.startStep < 280).length / refs.length;
    expect(near).toBeGreaterThan(0.8);
  });

  it('reads its index from the memory, leaving out undone interventions, and reads sequences back whole', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'reins-memory-'));
    const memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 } });
    try {
      const store = await memory.ticks({ encoderVersion: 'enc-1', embeddingSize: 2, distance: 'l2' });
      const row = (step: number, actedBy: ActedBy): TickRow => ({
        episodeId: 'ep-1',
        step,
        timeMs: step,
        embedding: Float32Array.from([step, -step]),
        latent: undefined,
        actionLinearMps: 0,
        actionAngularRadps: 0,
        actedBy,
        surpriseNats: step === 3 ? 2 : undefined,
        rewardEstimate: undefined,
        flags: 0,
        robotId: 'sim',
        encoderVersion: 'enc-1',
        worldModelVersion: undefined,
        policyVersion: 'p',
        mcapFile: undefined,
        mcapLogTimeNs: undefined,
      });
      // Written out of order, in two batches: the index sorts by step.
      await store.write(range(10, 20).map((step) => row(step, 'operator')));
      await store.write(range(0, 10).map((step) => row(step, step < 5 ? 'policy' : 'idle')));
      const base = { atMs: 1, episodeId: 'ep-1', answeredBy: 'operator' } as const;
      await memory.records.addCorrection({ ...base, correctionId: 'kept', kind: 'intervention', spanStartStep: 10, spanEndStep: 19 });
      await memory.records.addCorrection({ ...base, correctionId: 'mistake', kind: 'intervention', spanStartStep: 2, spanEndStep: 4 });
      await memory.records.addCorrection({ ...base, correctionId: 'undo', kind: 'undo', spanStartStep: 2, spanEndStep: 4, undoesCorrectionId: 'mistake' });

      const loaded = await loadReplayIndex(store, memory.records);
      expect(Array.from(loaded.episodes[0]!.steps)).toEqual(range(0, 20));
      expect(loaded.episodes[0]!.surpriseNats[3]).toBe(2);
      expect(loaded.interventions.get('ep-1')).toEqual([{ startStep: 10, endStep: 19 }]);

      const [ref] = new ReplaySampler(loaded, { sequenceLength: 6, seed: 9 }).sample(1);
      const sequence = await readSequence(store, ref!);
      expect(sequence.map((tick) => tick.step)).toEqual(range(ref!.startStep, ref!.startStep + 6));
      expect(Array.from(sequence[0]!.embedding)).toEqual([ref!.startStep, -ref!.startStep]);
      // One query for a batch: overlapping sequences each get their own rows, in the order asked.
      const batch = await readSequences(store, [
        { episodeId: 'ep-1', startStep: 8, length: 4 },
        { episodeId: 'ep-1', startStep: 2, length: 3 },
        { episodeId: 'ep-1', startStep: 9, length: 2 },
      ]);
      expect(batch.map((sequence) => sequence.map((tick) => tick.step))).toEqual([
        [8, 9, 10, 11],
        [2, 3, 4],
        [9, 10],
      ]);
      await expect(readSequences(store, [ref!, { episodeId: 'ep-2', startStep: 0, length: 2 }])).rejects.toThrow('episode ep-2 steps 0…1 hold 0 ticks, not 2');
      await expect(readSequence(store, { episodeId: 'ep-1', startStep: 17, length: 6 })).rejects.toThrow(
        'ticks-enc-1: episode ep-1 steps 17…22 hold 3 ticks, not 6',
      );
    } finally {
      await memory.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
