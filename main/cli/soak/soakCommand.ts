// `reins soak [--minutes N] [--json FILE]`: prints the window table and each figure against its
// target; exit status 0 only when every target passes.
import { parseArgs } from 'node:util';
import { machineFacts, writeReport } from '../bench/report.ts';
import { createLogger } from '../../core/runtime/logger.ts';
import { UsageError } from '../usageError.ts';
import { DEFAULT_WORLD_MODEL_ARGS } from '../../session/worldModelOptions.ts';
import { formatChecks, formatWindowTable, soakRows, targetChecks } from './soakReport.ts';
import { FULL_SENSOR_RATES, runSoak } from './soakRun.ts';

export const SOAK_USAGE = `  reins soak [--minutes 60] [--json FILE] [--encoders PATH] [--keep]
                                       the whole core against the sim at full sensor rates in real time, the scripted
                                       operator intervening; RSS, tick latency, drops per minute and full accounting`;

export async function runSoakCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: { minutes: { type: 'string', default: '60' }, json: { type: 'string' }, encoders: { type: 'string' }, keep: { type: 'boolean', default: false } },
  });
  const minutes = Number(values.minutes);
  if (!(minutes > 0 && minutes <= 24 * 60)) throw new UsageError(`--minutes must be above 0 and at most 1440, got "${values.minutes}"`);
  const outcome = await runSoak({
    durationSecs: minutes * 60,
    windowSecs: 60,
    ...FULL_SENSOR_RATES,
    rateHz: 10,
    encoders: values.encoders,
    worldModel: DEFAULT_WORLD_MODEL_ARGS,
    seed: 1,
    keep: values.keep ?? false,
    log: createLogger('reins-soak'),
  });
  const checks = targetChecks(outcome);
  writeReport(
    { suite: 'soak', machine: machineFacts(), results: soakRows(outcome), windows: outcome.windows, checks, accounting: outcome.accounting },
    values.json,
    `${formatWindowTable(outcome)}\n\n${formatChecks(checks)}`,
  );
  return checks.every((check) => check.pass) ? 0 : 1;
}
