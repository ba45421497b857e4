import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Memory } from './memory.ts';
import { MemoryRowError } from './memoryErrors.ts';
import { checkTickRow } from './tickRows.ts';
import { ticksFromArrow } from './tickRead.ts';
import type { TickRow, TickSpace } from './tickSchema.ts';
import { tickRow } from '../../test/support/tickRows.ts';

const SPACE: TickSpace = { encoderVersion: 'enc-1', embeddingSize: 4, distance: 'l2' };

function tick(step: number, overrides: Partial<TickRow> = {}): TickRow {
  return tickRow({
    episodeId: 'ep-1',
    step,
    timeMs: 1_700_000_000_000 + step * 100,
    embedding: Float32Array.from([step, 1, 2, 3]),
    actionLinearMps: 0.25,
    actionAngularRadps: -0.5,
    actedBy: 'operator',
    robotId: 'robot-1',
    policyVersion: 'policy-1',
    ...overrides,
  });
}

const refusal = (row: TickRow) => {
  try {
    checkTickRow(row, SPACE);
  } catch (error) {
    return error as MemoryRowError;
  }
  throw new Error('the row was accepted');
};

describe('tick rows at the edge', () => {
  it('refuses an embedding of the wrong size, naming the field and both sizes', () => {
    const error = refusal(tick(0, { embedding: new Float32Array(3) }));
    expect(error).toBeInstanceOf(MemoryRowError);
    expect(error.field).toBe('embedding');
    expect(error.message).toBe('ticks row refused: embedding has 3 values; encoder enc-1 gives 4');
  });

  it('refuses NaN or infinity in an embedding or a latent, saying where', () => {
    expect(refusal(tick(0, { embedding: Float32Array.from([0, NaN, 0, 0]) })).message).toBe('ticks row refused: embedding holds NaN at index 1');
    expect(refusal(tick(0, { latent: Float32Array.from([Infinity]) })).field).toBe('latent');
  });

  it('refuses other bad fields by name', () => {
    expect(refusal(tick(-1)).field).toBe('step');
    expect(refusal(tick(0, { actedBy: 'robot' as TickRow['actedBy'] })).field).toBe('actedBy');
    expect(refusal(tick(0, { encoderVersion: 'enc-2' })).message).toContain('this table holds enc-1 only');
    expect(refusal(tick(0, { surpriseNats: NaN })).field).toBe('surpriseNats');
    expect(refusal(tick(0, { episodeId: '' })).field).toBe('episodeId');
  });
});

describe('tick rows in LanceDB', () => {
  let folder: string | undefined;
  afterEach(() => folder && rmSync(folder, { recursive: true, force: true }));

  it('come back exactly as written, empty fields as undefined', async () => {
    folder = mkdtempSync(join(tmpdir(), 'reins-memory-'));
    const memory = await Memory.open({ uri: folder, maintenance: { periodMs: 0 } });
    const store = await memory.ticks(SPACE);
    const full = tick(1, {
      latent: Float32Array.from([0.5, -0.5]),
      actedBy: 'policy',
      surpriseNats: 1.5,
      rewardEstimate: -0.25,
      flags: 5,
      worldModelVersion: 'wm-3',
      mcapFile: 'run.mcap',
      mcapLogTimeNs: 1_700_000_000_123_456_789n,
    });
    await store.write([tick(0), full]);
    const rows = ticksFromArrow(await store.query()).sort((a, b) => a.step - b.step);
    expect(rows).toEqual([tick(0), full]);
    await memory.close();
  });
});
