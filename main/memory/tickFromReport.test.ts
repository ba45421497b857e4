import type { SentCommand } from '../core/tickReport.ts';
import { describe, expect, it } from 'vitest';
import { tickRowFromReport, type TickContext } from './tickFromReport.ts';
import { TICK_FLAGS } from './tickSchema.ts';

const context: TickContext = { episodeId: 'ep-7', step: 12, robotId: 'sim', encoderVersion: 'enc-1' };
const allPresent = { camera: true, lidar: true, proprio: true };
const sent = (overrides: Partial<SentCommand> = {}): SentCommand => ({
  command: { linearMps: 0.2, angularRadps: 0.1 },
  requested: { linearMps: 0.2, angularRadps: 0.1 },
  clipped: false,
  driver: 'policy',
  atMs: 1000,
  delivered: true,
  ...overrides,
});
const report = (overrides: Partial<Parameters<typeof tickRowFromReport>[0]> = {}) => ({
  frame: { timeMs: 1_700_000_000_100, missing: [] },
  embedding: { values: Float32Array.from([1, 2, 3]), mask: allPresent },
  driver: 'policy' as const,
  sent: sent(),
  policyVersion: 'policy-3',
  commandInEffect: undefined,
  worldModelVersion: undefined,
  ...overrides,
});

describe('a control tick as a memory row', () => {
  it('records what went out, who drove, when, and the versions behind it', () => {
    const row = tickRowFromReport(report({ worldModelVersion: 'wm-1' }), { ...context, surpriseNats: 0.7, mcapFile: 'run.mcap', mcapLogTimeNs: 5n });
    expect(row).toEqual({
      episodeId: 'ep-7',
      step: 12,
      timeMs: 1_700_000_000_100,
      embedding: Float32Array.from([1, 2, 3]),
      latent: undefined,
      actionLinearMps: 0.2,
      actionAngularRadps: 0.1,
      actedBy: 'policy',
      surpriseNats: 0.7,
      rewardEstimate: undefined,
      flags: 0,
      robotId: 'sim',
      encoderVersion: 'enc-1',
      worldModelVersion: 'wm-1',
      policyVersion: 'policy-3',
      mcapFile: 'run.mcap',
      mcapLogTimeNs: 5n,
    });
  });

  it('keeps its own copy of the embedding, since an encoder may reuse its buffer', () => {
    const values = Float32Array.from([1, 2, 3]);
    const row = tickRowFromReport(report({ embedding: { values, mask: allPresent } }), context);
    values[0] = 99;
    expect(row.embedding[0]).toBe(1);
  });

  it('takes the operator’s command in effect when the tick itself sent nothing', () => {
    const operatorCommand = sent({ driver: 'operator', command: { linearMps: 0.4, angularRadps: 0 } });
    const row = tickRowFromReport(report({ driver: 'operator', sent: undefined, commandInEffect: operatorCommand }), context);
    expect(row).toMatchObject({ actedBy: 'operator', actionLinearMps: 0.4, actionAngularRadps: 0 });
  });

  it('records an e-stop as safety acting, and idle as standing still', () => {
    expect(
      tickRowFromReport(report({ driver: 'estopped', sent: sent({ driver: 'estopped', command: { linearMps: 0, angularRadps: 0 } }) }), context).actedBy,
    ).toBe('safety');
    const idle = tickRowFromReport(report({ driver: 'idle', sent: undefined, commandInEffect: sent() }), context);
    expect(idle).toMatchObject({ actedBy: 'idle', actionLinearMps: 0, actionAngularRadps: 0 });
  });

  it('flags missing modalities, a clipped command and one the link dropped', () => {
    const row = tickRowFromReport(
      report({
        embedding: { values: new Float32Array(3), mask: { camera: false, lidar: true, proprio: false } },
        sent: sent({ clipped: true, delivered: false }),
      }),
      context,
    );
    expect(row.flags).toBe(TICK_FLAGS.cameraMissing | TICK_FLAGS.proprioMissing | TICK_FLAGS.commandClipped | TICK_FLAGS.commandUndelivered);
  });
});
