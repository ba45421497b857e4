// A control tick as a memory row (DESIGN §2 step 9): what the loop reported, plus what only its owner
// knows — the episode and step, the versions that produced it, and where the recorder put it.
import type { TickReport } from '../core/tickReport.ts';
import { TICK_FLAGS, type ActedBy, type TickRow } from './tickSchema.ts';

export interface TickContext {
  episodeId: string;
  step: number;
  robotId: string;
  encoderVersion: string;
  latent?: Float32Array;
  surpriseNats?: number;
  rewardEstimate?: number;
  mcapFile?: string;
  mcapLogTimeNs?: bigint;
}

const ACTED_BY_DRIVER: Readonly<Record<TickReport['driver'], ActedBy>> = Object.freeze({
  policy: 'policy',
  operator: 'operator',
  estopped: 'safety',
  idle: 'idle',
});

export function tickRowFromReport(
  report: Pick<TickReport, 'frame' | 'embedding' | 'driver' | 'sent' | 'policyVersion' | 'commandInEffect' | 'worldModelVersion'> &
    Partial<Pick<TickReport, 'belief'>>,
  context: TickContext,
): TickRow {
  // An operator's command goes out when it arrives, between ticks: a tick where the operator drives may send nothing itself.
  const command = report.sent ?? report.commandInEffect;
  // Idle means nobody drives: the robot was told to stop (or never told to move).
  const action = report.driver === 'idle' || command === undefined ? { linearMps: 0, angularRadps: 0 } : command.command;
  const { mask } = report.embedding;
  const flags =
    (mask.camera ? 0 : TICK_FLAGS.cameraMissing) |
    (mask.lidar ? 0 : TICK_FLAGS.lidarMissing) |
    (mask.proprio ? 0 : TICK_FLAGS.proprioMissing) |
    (report.sent?.clipped ? TICK_FLAGS.commandClipped : 0) |
    (report.sent !== undefined && !report.sent.delivered ? TICK_FLAGS.commandUndelivered : 0);
  return {
    episodeId: context.episodeId,
    step: context.step,
    timeMs: report.frame.timeMs,
    // Copies: the row waits in the writer's queue while an encoder may reuse its output buffer.
    embedding: report.embedding.values.slice(),
    latent: (context.latent ?? report.belief?.latent)?.slice(),
    actionLinearMps: action.linearMps,
    actionAngularRadps: action.angularRadps,
    actedBy: ACTED_BY_DRIVER[report.driver],
    surpriseNats: context.surpriseNats ?? report.belief?.surpriseNats,
    rewardEstimate: context.rewardEstimate,
    flags,
    robotId: context.robotId,
    encoderVersion: context.encoderVersion,
    worldModelVersion: report.worldModelVersion,
    policyVersion: report.policyVersion,
    mcapFile: context.mcapFile,
    mcapLogTimeNs: context.mcapLogTimeNs,
  };
}
