// `reins soak [--minutes N | --simulated-hours N] [--json FILE]`: prints the window table and each
// figure against its target; exit status 0 only when every target passes.
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { machineFacts, writeReport } from '../bench/report.ts';
import { createLogger } from '../../core/runtime/logger.ts';
import { UsageError } from '../usageError.ts';
import { DEFAULT_WORLD_MODEL_ARGS } from '../../session/worldModelOptions.ts';
import { runSimulatedSoak } from './simulatedSoak.ts';
import { formatHourTable, simulatedSoakRows, simulatedTargetChecks } from './simulatedSoakReport.ts';
import { formatChecks, formatWindowTable, soakRows, targetChecks, type TargetCheck } from './soakReport.ts';
import { FULL_SENSOR_RATES, runSoak } from './soakRun.ts';

export const SOAK_USAGE = `  reins soak [--minutes 60] [--json FILE] [--encoders PATH] [--keep]
                                       the whole core against the sim at full sensor rates in real time, the scripted
                                       operator intervening; RSS, tick latency, drops per minute and full accounting
  reins soak --simulated-hours 8 [--json FILE] [--encoders PATH] [--keep]
                                       the same core against the lockstep sim, every timer on the simulated clock, as fast
                                       as it goes; per simulated hour: upkeep time, RSS, tick p50/p99, memory rows, query
                                       time, recording bytes, learner steps; full accounting`;

const SOAK_RUN = { ...FULL_SENSOR_RATES, rateHz: 10, worldModel: DEFAULT_WORLD_MODEL_ARGS, seed: 1 } as const;

export async function runSoakCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      minutes: { type: 'string' },
      'simulated-hours': { type: 'string' },
      json: { type: 'string' },
      encoders: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const common = { ...SOAK_RUN, encoders: values.encoders, keep: values.keep ?? false, log: createLogger('reins-soak') };
  if (values['simulated-hours'] !== undefined) {
    if (values.minutes !== undefined) throw new UsageError('--minutes (real time) and --simulated-hours contradict each other: choose one');
    return simulatedSoak(positive('--simulated-hours', values['simulated-hours'], 24), common, values.json);
  }
  const minutes = positive('--minutes', values.minutes ?? '60', 24 * 60);
  const outcome = await runSoak({ ...common, durationSecs: minutes * 60, windowSecs: 60 });
  const checks = targetChecks(outcome);
  writeReport(
    { suite: 'soak', machine: machineFacts(), results: soakRows(outcome), windows: outcome.windows, checks, accounting: outcome.accounting },
    values.json,
    `${formatWindowTable(outcome)}\n\n${formatChecks(checks)}`,
  );
  return verdict(checks);
}

async function simulatedSoak(hours: number, common: typeof SOAK_RUN & { encoders: string | undefined; keep: boolean; log: Logger }, json: string | undefined) {
  const outcome = await runSimulatedSoak({ ...common, simulatedSecs: hours * 3600, windowSimSecs: 3600 });
  const checks = simulatedTargetChecks(outcome);
  const { windows, accounting, wallSecs, operator } = outcome;
  writeReport(
    { suite: 'soak-simulated', machine: machineFacts(), results: simulatedSoakRows(outcome), windows, checks, accounting, wallSecs, operator },
    json,
    `${formatHourTable(outcome)}\n\n${formatChecks(checks)}`,
  );
  return verdict(checks);
}

function positive(option: string, text: string, most: number): number {
  const value = Number(text);
  if (!(value > 0 && value <= most)) throw new UsageError(`${option} must be above 0 and at most ${most}, got "${text}"`);
  return value;
}

const verdict = (checks: readonly TargetCheck[]) => (checks.every((check) => check.pass) ? 0 : 1);
