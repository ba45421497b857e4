// Ticks whose every field follows from one number, so a test can check a row read back after a crash
// without keeping what it wrote.
import type { TickRow, TickSpace } from '../../main/memory/tickSchema.ts';

export const CRASH_SPACE: TickSpace = { encoderVersion: 'crash-enc-1', embeddingSize: 16, distance: 'l2' };
export const CRASH_BATCH_ROWS = 200;

export function numberedTick(n: number): TickRow {
  return {
    episodeId: `ep-${Math.floor(n / 1000)}`,
    step: n % 1000,
    timeMs: 1_700_000_000_000 + n * 100,
    embedding: Float32Array.from({ length: CRASH_SPACE.embeddingSize }, (_, d) => Math.fround(Math.sin(n + d))),
    latent: undefined,
    actionLinearMps: Math.fround(n * 0.001),
    actionAngularRadps: 0,
    actedBy: n % 3 === 0 ? 'operator' : 'policy',
    surpriseNats: undefined,
    rewardEstimate: undefined,
    flags: 0,
    robotId: 'crash-robot',
    encoderVersion: CRASH_SPACE.encoderVersion,
    worldModelVersion: undefined,
    policyVersion: 'policy-1',
    mcapFile: undefined,
    mcapLogTimeNs: BigInt(n) * 1_000_000n,
  };
}
