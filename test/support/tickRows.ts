// A complete ticks row for memory tests: every column filled with a plain default, so a test names
// only what it is about.
import type { TickRow } from '../../main/memory/tickSchema.ts';

export function tickRow(fields: Partial<TickRow> & Pick<TickRow, 'embedding'>): TickRow {
  return {
    episodeId: 'ep-0',
    step: 0,
    timeMs: 1,
    latent: undefined,
    actionLinearMps: 0,
    actionAngularRadps: 0,
    actedBy: 'policy',
    surpriseNats: undefined,
    rewardEstimate: undefined,
    flags: 0,
    robotId: 'sim',
    encoderVersion: 'enc-1',
    worldModelVersion: undefined,
    policyVersion: 'p',
    mcapFile: undefined,
    mcapLogTimeNs: undefined,
    ...fields,
  };
}
