import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LockstepSchedule } from '../core/runtime/schedule.ts';
import { Memory } from './memory.ts';
import type { MaintenanceOptions } from './memoryMaintenance.ts';
import { nearestMoments } from './tickSearch.ts';
import type { TickRow, TickSpace } from './tickSchema.ts';
import { indexPlan } from './vectorIndex.ts';
import { tickRow } from '../../test/support/tickRows.ts';

const SPACE: TickSpace = { encoderVersion: 'enc-1', embeddingSize: 8, distance: 'l2' };

function ticks(from: number, count: number): TickRow[] {
  return Array.from({ length: count }, (_, i) => {
    const step = from + i;
    return tickRow({
      episodeId: `ep-${Math.floor(step / 100)}`,
      step,
      timeMs: step,
      embedding: Float32Array.from({ length: 8 }, (__, d) => Math.sin(step * 0.37 + d * 1.3) + (d === 0 ? step * 0.01 : 0)),
    });
  });
}

describe('memory maintenance', () => {
  let folder: string;
  let memory: Memory | undefined;
  const open = async (options: Partial<MaintenanceOptions>) => (memory = await Memory.open({ uri: folder, maintenance: options }));
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'reins-memory-'));
  });
  afterEach(async () => {
    await memory?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('compacts the writer’s small fragments and removes old versions', async () => {
    const store = await (await open({ periodMs: 0, keepVersionsMs: 0 })).ticks(SPACE);
    for (let batch = 0; batch < 5; batch++) await store.write(ticks(batch * 10, 10));
    const report = await memory!.maintenance.runOnce();
    expect(report.fragmentsCompacted).toBe(5);
    expect(report.versionsRemoved).toBeGreaterThanOrEqual(5);
    expect(report.segmentsOptimized).toEqual(['ticks-enc-1']);
    expect(report.vectorIndexes).toEqual({ 'ticks-enc-1': 'too-small' });
    expect(report.scalarIndexes).toEqual({ 'ticks-enc-1': [] });
    expect(await store.countRows()).toBe(50);
  });

  it('never runs twice at once: a second request joins the run in progress', async () => {
    await (await open({ periodMs: 0 })).ticks(SPACE);
    const first = memory!.maintenance.runOnce();
    expect(memory!.maintenance.runOnce()).toBe(first);
    expect(memory!.maintenance.status().running).toBe(true);
    await first;
    expect(memory!.maintenance.status()).toMatchObject({ running: false, lastError: undefined });
  });

  it('runs on the clock it is given: a simulated hour of upkeep and reconnects passes when that clock says so, each run counted', async () => {
    const schedule = new LockstepSchedule(0);
    memory = await Memory.open({ uri: folder, maintenance: { periodMs: 60_000 }, reconnectEveryMs: 5 * 60_000, schedule });
    const store = await memory.ticks(SPACE);
    for (let minute = 1; minute <= 60; minute++) {
      await store.write(ticks(minute * 10, 10));
      // The lockstep clock waits for each run it starts: by the time it has moved, the run is done and counted.
      await schedule.advanceTo(minute * 60_000);
      expect(memory.maintenance.status()).toMatchObject({ running: false, runs: minute, lastRunAtMs: minute * 60_000 });
    }
    expect(memory.maintenance.status().runsTotalMs).toBeGreaterThan(0);
    expect(memory.reconnectStatus().reconnects).toBe(12);
    expect(await store.countRows()).toBe(600);
  });

  it.each(['ivf-flat', 'ivf-pq'] as const)(
    'builds the %s index once the table is big enough, and retrains it when the table outgrows it',
    async (vectorIndex) => {
      const store = await (await open({ periodMs: 0, indexMinRows: 400, vectorIndex })).ticks(SPACE);
      await store.write(ticks(0, 399));
      expect((await memory!.maintenance.runOnce()).vectorIndexes['ticks-enc-1']).toBe('too-small');
      await store.write(ticks(399, 1));
      expect((await memory!.maintenance.runOnce()).vectorIndexes['ticks-enc-1']).toBe('built');
      expect((await store.openSegment.table.listIndices()).map((index) => index.columns)).toContainEqual(['embedding']);
      const query = ticks(123, 1)[0]!;
      expect((await nearestMoments(store, { embedding: query.embedding }, { k: 1 }))[0]).toMatchObject({ step: 123 });
      await store.write(ticks(400, 1000));
      expect((await memory!.maintenance.runOnce()).vectorIndexes['ticks-enc-1']).toBe('current');
      await store.write(ticks(1400, 200));
      expect((await memory!.maintenance.runOnce()).vectorIndexes['ticks-enc-1']).toBe('retrained');
    },
  );

  it('indexes the columns searches filter on, and filtered searches still find the right ticks', async () => {
    const store = await (await open({ periodMs: 0, scalarIndexMinRows: 300 })).ticks(SPACE);
    await store.write(ticks(0, 299));
    expect((await memory!.maintenance.runOnce()).scalarIndexes['ticks-enc-1']).toEqual([]);
    await store.write(ticks(299, 101).map((tick) => ({ ...tick, actedBy: 'operator', surpriseNats: 2 })));
    expect((await memory!.maintenance.runOnce()).scalarIndexes['ticks-enc-1']).toEqual(['episodeId', 'actedBy', 'timeMs', 'surpriseNats']);
    const query = ticks(123, 1)[0]!.embedding;
    const found = await nearestMoments(
      store,
      { embedding: query },
      { k: 3, filter: { actedBy: ['operator'], episodeIds: ['ep-3'], fromMs: 350, minSurpriseNats: 1 } },
    );
    expect(found.map((moment) => moment.step).every((step) => step >= 350 && step < 400)).toBe(true);
    expect(found).toHaveLength(3);
    expect((await memory!.maintenance.runOnce()).scalarIndexes['ticks-enc-1']).toEqual([]);
  });

  it('runs on its own timer in the background', async () => {
    await (await open({ periodMs: 10 })).ticks(SPACE);
    await vi.waitFor(() => expect(memory!.maintenance.status().lastReport).toBeDefined());
  });

  it('plans about √rows partitions and, for IVF-PQ, sub-vectors of about 4 floats', () => {
    expect(indexPlan('ivf-flat', 1_000_000, 256)).toMatchObject({ kind: 'ivf-flat', numPartitions: 1024 });
    expect(indexPlan('ivf-pq', 1_000_000, 256)).toEqual({ kind: 'ivf-pq', numPartitions: 1024, numSubVectors: 64 });
    expect(indexPlan('ivf-pq', 100_000, 256)).toMatchObject({ numPartitions: 256 });
    expect(indexPlan('ivf-pq', 1_000_000, 169)).toMatchObject({ numSubVectors: 13 });
    expect(indexPlan('ivf-pq', 500, 8)).toEqual({ kind: 'ivf-pq', numPartitions: 16, numSubVectors: 2 });
  });
});
