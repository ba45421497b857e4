// The slow path's reading of a real LanceDB memory: the newest driven ticks of one encoder version,
// oldest first and bounded, and every correction no undo withdrew, as the learners read them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tickRow } from '../../test/support/tickRows.ts';
import type { CorrectionRow } from '../memory/corrections.ts';
import { Memory } from '../memory/memory.ts';
import type { ActedBy } from '../memory/tickSchema.ts';
import { readMemoryTeaching, signalsFromCorrections, teachResponses } from './memoryTeaching.ts';

const SPACE = { encoderVersion: 'enc-1', embeddingSize: 4, distance: 'l2' } as const;
const DRIVERS: ActedBy[] = ['operator', 'policy', 'idle', 'safety'];

describe('readMemoryTeaching', () => {
  let folder: string;
  let memory: Memory;
  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'reins-teaching-'));
    memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 }, reconnectEveryMs: 0 });
  });
  afterEach(async () => {
    await memory.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('reads the newest driven ticks oldest first, up to the bound, with their commands', async () => {
    const store = await memory.ticks(SPACE);
    // Two sessions, written newest first so that the table's order is not the time order.
    for (const [episodeId, startMs] of [
      ['ep-2', 10_000],
      ['ep-1', 0],
    ] as const) {
      await store.write(
        Array.from({ length: 40 }, (_, step) =>
          tickRow({
            episodeId,
            step,
            timeMs: startMs + step * 100,
            embedding: Float32Array.of(step, startMs, 0, 1),
            actedBy: DRIVERS[step % 4]!,
            actionLinearMps: step / 100,
            actionAngularRadps: -step / 100,
          }),
        ),
      );
    }
    const other = await memory.ticks({ ...SPACE, encoderVersion: 'enc-2' });
    await other.write([tickRow({ episodeId: 'ep-3', timeMs: 50_000, embedding: Float32Array.of(9, 9, 9, 9), actedBy: 'operator', encoderVersion: 'enc-2' })]);

    const all = await readMemoryTeaching(store, memory.records, 1000);
    expect(all.drivenTicksHeld).toBe(40);
    expect(all.ticks.count).toBe(40);
    expect(all.ticks.episodeIds.slice(0, 20).every((id) => id === 'ep-1')).toBe(true);
    expect(all.ticks.drivers.slice(0, 4)).toEqual(['operator', 'policy', 'operator', 'policy']);
    expect([...all.ticks.steps.slice(0, 4)]).toEqual([0, 1, 4, 5]);
    expect([...all.ticks.actions.slice(2, 4)].map((value) => Math.round(value * 100))).toEqual([1, -1]);
    expect([...all.ticks.embeddings.slice(4, 8)]).toEqual([1, 0, 0, 1]);

    const newest = await readMemoryTeaching(store, memory.records, 6);
    expect(newest.drivenTicksHeld).toBe(40);
    expect(newest.ticks.count).toBe(6);
    expect(newest.ticks.embeddings).toHaveLength(24);
    expect(newest.ticks.episodeIds).toEqual(Array(6).fill('ep-2'));
    // Driven steps of ep-2 are those ≡ 0 or 1 (mod 4); the 6 newest, oldest first.
    expect([...newest.ticks.steps]).toEqual([28, 29, 32, 33, 36, 37]);
  });

  it('reads nothing from an empty table, and refuses a bound that is not a whole number', async () => {
    const store = await memory.ticks(SPACE);
    const empty = await readMemoryTeaching(store, memory.records, 10);
    expect(empty.ticks.count).toBe(0);
    expect(empty.signals).toEqual({ interventions: [], preferences: [], ratings: [] });
    await expect(readMemoryTeaching(store, memory.records, 0)).rejects.toThrow(/maxTicks/);
  });

  it('reads every standing correction from the memory', async () => {
    const store = await memory.ticks(SPACE);
    const base = { answeredBy: 'operator', episodeId: 'ep-1' } as const;
    const rows: CorrectionRow[] = [
      {
        ...base,
        correctionId: 'i1',
        kind: 'intervention',
        atMs: 1,
        spanStartStep: 20,
        spanEndStep: 35,
        otherEpisodeId: 'ep-1',
        otherSpanStartStep: 0,
        otherSpanEndStep: 19,
      },
      { ...base, correctionId: 'r1', kind: 'rating', atMs: 2, spanStartStep: 5, spanEndStep: 5, rating: 1 },
    ];
    for (const row of rows) await memory.records.addCorrection(row);
    const taught = await readMemoryTeaching(store, memory.records, 10);
    expect(taught.signals.interventions.map((signal) => signal.id)).toEqual(['i1']);
    expect(taught.signals.ratings).toEqual([{ id: 'r1', episodeId: 'ep-1', step: 5, rating: 1 }]);
  });
});

describe('teachResponses', () => {
  it('gives an operator’s tick the next tick’s action while the operator still drove its episode', () => {
    const packed = {
      count: 5,
      embeddingSize: 1,
      embeddings: new Float32Array(5),
      actions: Float32Array.from([0.1, 0, 0.2, 0.5, 0.3, 0, 0.4, 0, 0.9, 0]),
      drivers: ['operator', 'operator', 'operator', 'policy', 'operator'] as Array<'operator' | 'policy'>,
      episodeIds: ['a', 'a', 'a', 'a', 'b'],
      steps: Int32Array.from([0, 1, 2, 3, 0]),
    };
    teachResponses(packed);
    expect(Array.from(packed.actions)).toEqual([0.2, 0.5, 0.3, 0, 0.3, 0, 0.4, 0, 0.9, 0].map(Math.fround));
  });
});

describe('signalsFromCorrections', () => {
  const base = { answeredBy: 'operator', episodeId: 'ep-1' } as const;

  it('turns interventions, answers and ratings into signals, leaving out what was undone or skipped', () => {
    const rows: CorrectionRow[] = [
      {
        ...base,
        correctionId: 'i1',
        kind: 'intervention',
        atMs: 1,
        spanStartStep: 20,
        spanEndStep: 35,
        otherEpisodeId: 'ep-1',
        otherSpanStartStep: 0,
        otherSpanEndStep: 19,
      },
      { ...base, correctionId: 'i2', kind: 'intervention', atMs: 2, spanStartStep: 0, spanEndStep: 4 },
      {
        ...base,
        correctionId: 'p1',
        kind: 'preference',
        atMs: 3,
        spanStartStep: 40,
        spanEndStep: 59,
        otherEpisodeId: 'ep-2',
        otherSpanStartStep: 0,
        otherSpanEndStep: 19,
        question: 'q1',
        answer: 'second',
      },
      {
        ...base,
        correctionId: 'p2',
        kind: 'preference',
        atMs: 4,
        spanStartStep: 60,
        spanEndStep: 79,
        otherEpisodeId: 'ep-2',
        otherSpanStartStep: 20,
        otherSpanEndStep: 39,
        question: 'q2',
        answer: 'unsure',
      },
      {
        ...base,
        correctionId: 'p3',
        kind: 'preference',
        atMs: 5,
        spanStartStep: 80,
        spanEndStep: 99,
        otherEpisodeId: 'ep-2',
        otherSpanStartStep: 40,
        otherSpanEndStep: 59,
        question: 'q3',
        answer: 'first',
      },
      { ...base, correctionId: 'u1', kind: 'undo', atMs: 6, spanStartStep: 80, spanEndStep: 99, undoesCorrectionId: 'p3' },
      { ...base, correctionId: 'r1', kind: 'rating', atMs: 7, spanStartStep: 12, spanEndStep: 12, rating: -1 },
      { ...base, correctionId: 'r2', kind: 'rating', atMs: 8, spanStartStep: 13, spanEndStep: 13, rating: 1 },
      { ...base, correctionId: 'u2', kind: 'undo', atMs: 9, spanStartStep: 13, spanEndStep: 13, undoesCorrectionId: 'r2' },
    ];
    expect(signalsFromCorrections(rows)).toEqual({
      interventions: [
        {
          id: 'i1',
          atStep: 20,
          episodeId: 'ep-1',
          policySegment: { episodeId: 'ep-1', startStep: 0, endStep: 19 },
          operatorSegment: { episodeId: 'ep-1', startStep: 20, endStep: 35 },
        },
        { id: 'i2', atStep: 0, episodeId: 'ep-1', policySegment: undefined, operatorSegment: { episodeId: 'ep-1', startStep: 0, endStep: 4 } },
      ],
      preferences: [
        { id: 'p1', first: { episodeId: 'ep-1', startStep: 40, endStep: 59 }, second: { episodeId: 'ep-2', startStep: 0, endStep: 19 }, answer: 'second' },
      ],
      ratings: [{ id: 'r1', episodeId: 'ep-1', step: 12, rating: -1 }],
    });
  });
});
