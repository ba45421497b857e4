import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CorrectionRow } from './corrections.ts';
import { Memory } from './memory.ts';
import { MemoryRowError } from './memoryErrors.ts';

describe('episodes, corrections and checkpoints', () => {
  let folder: string;
  let memory: Memory;
  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'reins-memory-'));
    memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 } });
  });
  afterEach(async () => {
    await memory.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('records an episode when it starts and completes the same row when it ends', async () => {
    const episode = { episodeId: 'ep-1', robotId: 'sim', task: 'reach', startMs: 1000, policyVersion: 'p-1', encoderVersion: 'enc-1' };
    await memory.records.putEpisode(episode);
    await memory.records.putEpisode({ ...episode, endMs: 4000, outcome: 'succeeded' });
    expect(await memory.records.listEpisodes()).toEqual([{ ...episode, endMs: 4000, outcome: 'succeeded' }]);
  });

  it('keeps every kind of correction, with who answered', async () => {
    const base = { atMs: 1, episodeId: 'ep-1', answeredBy: 'operator' } as const;
    const corrections: CorrectionRow[] = [
      { ...base, correctionId: 'c1', kind: 'intervention', spanStartStep: 10, spanEndStep: 40 },
      {
        ...base,
        correctionId: 'c2',
        kind: 'preference',
        atMs: 2,
        spanStartStep: 0,
        spanEndStep: 9,
        otherEpisodeId: 'ep-2',
        otherSpanStartStep: 5,
        otherSpanEndStep: 14,
        question: 'Which is safer?',
        answer: 'second',
      },
      { ...base, correctionId: 'c3', kind: 'rating', atMs: 3, spanStartStep: 50, spanEndStep: 50, rating: -1 },
      { ...base, correctionId: 'c4', kind: 'undo', atMs: 4, spanStartStep: 50, spanEndStep: 50, undoesCorrectionId: 'c3' },
    ];
    for (const correction of corrections) await memory.records.addCorrection(correction);
    expect(await memory.records.listCorrections()).toEqual(corrections);
    expect((await memory.records.listCorrections({ kind: 'rating' })).map((row) => row.correctionId)).toEqual(['c3']);
  });

  it('refuses an incomplete correction, naming what is missing', async () => {
    const preference = {
      correctionId: 'c1',
      kind: 'preference',
      atMs: 1,
      episodeId: 'ep-1',
      spanStartStep: 0,
      spanEndStep: 9,
      answeredBy: 'operator',
    } as const;
    await expect(memory.records.addCorrection(preference)).rejects.toThrow(new MemoryRowError('corrections', 'otherEpisodeId', 'is required for a preference'));
    await expect(memory.records.addCorrection({ ...preference, kind: 'intervention', spanEndStep: -1 })).rejects.toThrow(/spanEndStep/);
    expect(await memory.records.listCorrections()).toEqual([]);
  });

  it('keeps checkpoints with their scores', async () => {
    const checkpoint = {
      modelKind: 'policy',
      version: 'p-2',
      weightsUri: 'file:///weights/p-2',
      createdAtMs: 5,
      parentVersion: 'p-1',
      scores: { success: 0.8, interventionsPerMin: 0.5 },
    } as const;
    await memory.records.addCheckpoint(checkpoint);
    await memory.records.addCheckpoint({ ...checkpoint, modelKind: 'world-model', version: 'wm-1', parentVersion: undefined, scores: {} });
    expect(await memory.records.listCheckpoints('policy')).toEqual([{ ...checkpoint, encoderVersion: undefined }]);
    expect(await memory.records.listCheckpoints()).toHaveLength(2);
  });
});
