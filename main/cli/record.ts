// `reins record ROBOT -o FILE.mcap [--seconds N]`: records a robot's sensor streams to an MCAP log
// without the UI. Nothing drives, so no command is sent (or recorded). Without --seconds it records
// until Ctrl-C.
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { LinkUnreachable, waitUntilPresent } from '../links/waitUntilPresent.ts';
import { startSessionRecording } from '../recording/sessionRecording.ts';
import { openRobot } from '../session/openRobot.ts';
import { StartupError } from '../session/startupError.ts';
import { caOption, checkCaApplies, parseRobotSpec } from './args.ts';
import { UsageError } from './usageError.ts';

export interface RecordArgs {
  robot: string;
  outPath: string;
  /** Undefined: until SIGINT or SIGTERM. */
  seconds: number | undefined;
  /** `--ca FILE`: the PEM certificate authorities for a wss:// robot. */
  ca?: { path: string; pem: string };
}

const CONNECT_TIMEOUT_MS = 10_000;

export function parseRecordArgs(args: string[]): RecordArgs {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { out: { type: 'string', short: 'o' }, seconds: { type: 'string' }, ca: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('reins record takes exactly one ROBOT');
  if (values.out === undefined || !values.out.endsWith('.mcap')) throw new UsageError('reins record needs -o FILE.mcap');
  const seconds = values.seconds === undefined ? undefined : Number(values.seconds);
  if (seconds !== undefined && !(seconds > 0 && seconds <= 86_400))
    throw new UsageError(`--seconds must be above 0 and at most 86400, got "${values.seconds}"`);
  const ca = caOption(values.ca);
  checkCaApplies(parseRobotSpec(positionals[0]), ca);
  return { robot: positionals[0]!, outPath: resolve(values.out), seconds, ...(ca === undefined ? {} : { ca }) };
}

export async function runRecord(args: RecordArgs, log: Logger): Promise<number> {
  const spec = parseRobotSpec(args.robot);
  const opened = await openRobot(spec, log, [], undefined, undefined, args.ca?.pem);
  try {
    try {
      await waitUntilPresent(opened.link, CONNECT_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof LinkUnreachable) throw new StartupError(error.message);
      throw error;
    }
    const session = await startSessionRecording({ link: opened.link, folder: dirname(args.outPath), fileName: basename(args.outPath) }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') throw new StartupError(`${args.outPath} already exists; record to a new file`);
        throw error;
      },
    );
    session.onAlerts((alerts) => log.warn({ alerts }, 'recording'));
    await recordingTime(args.seconds);
    await session.close();
    const stats = session.stats();
    process.stdout.write(
      `recorded ${stats.messagesAdded} messages in ${stats.chunksWritten} chunks to ${stats.files.join(', ')}${stats.dropped > 0 ? ` (${stats.dropped} dropped)` : ''}\n`,
    );
    return 0;
  } finally {
    await opened.close();
  }
}

function recordingTime(seconds: number | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    const timer = seconds === undefined ? undefined : setTimeout(done, seconds * 1000);
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
