// `reins start`: the core and the UI. In an Electron window where Electron and a display exist,
// otherwise headless: the UI and API served on loopback, and the address printed.
import type { Logger } from 'pino';
import { readRobotModelFile, type RobotModelFile } from '../api/robotModelFile.ts';
import type { XacroInputs } from '../api/xacroExpansion.ts';
import { REPO_ROOT } from '../core/runtime/repoRoot.ts';
import { createLogger } from '../core/runtime/logger.ts';
import type { RobotSpec } from '../links/robotAddress.ts';
import { openCoreSession } from '../session/coreSession.ts';
import { serveCockpit } from '../session/serveCockpit.ts';
import type { StartArgs } from '../session/startArgs.ts';
import { parseRobotSpec } from './args.ts';
import { findElectron, runElectron } from './electronLauncher.ts';
import { runReview } from './review.ts';
import { untilStopSignal } from './stopSignal.ts';
import { UsageError } from './usageError.ts';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export async function runStart(args: StartArgs): Promise<number> {
  const log = createLogger('reins');
  const robot = parseRobotSpec(args.robot);
  checkExposure(args, log);
  // Read before anything starts, so a file that cannot be read is refused at once, named.
  const robotModelFile = await robotModelFileOf(args.urdf, args.xacro);
  if (!args.headless) {
    const electron = findElectron(REPO_ROOT, log);
    if (electron.ok)
      return runElectron(electron, [
        ...(args.robot ? ['--robot', args.robot] : []),
        ...(args.encoders ? ['--encoders', args.encoders] : []),
        ...(args.review ? ['--review', args.review] : []),
        ...(args.urdf ? ['--urdf', args.urdf] : []),
        ...(args.ca ? ['--ca', args.ca.path] : []),
        ...Object.entries(args.xacro?.args ?? {}).flatMap(([name, value]) => ['--xacro-arg', `${name}:=${value}`]),
        ...Object.entries(args.xacro?.packages ?? {}).flatMap(([name, folder]) => ['--ros-package', `${name}=${folder}`]),
      ]);
    log.info({ reason: electron.reason }, 'no desktop window: running headless');
  }
  return args.review ? runReview(args, args.review, log, robotModelFile) : runHeadless(args, robot, log, robotModelFile);
}

async function robotModelFileOf(path: string | undefined, xacro: XacroInputs | undefined): Promise<RobotModelFile | undefined> {
  if (path === undefined) return undefined;
  const read = await readRobotModelFile(path, xacro);
  if (!read.ok) throw new UsageError(`--urdf: ${read.problem}`);
  return read.file;
}

function checkExposure(args: StartArgs, log: Logger): void {
  if (LOOPBACK.has(args.host)) return;
  if (args.tlsCert === undefined && !args.insecure) {
    throw new UsageError(`--host ${args.host} exposes the cockpit beyond this machine: give --tls-cert and --tls-key, or --insecure`);
  }
  if (args.tlsCert === undefined)
    log.warn({ host: args.host }, 'serving the cockpit without TLS beyond loopback (--insecure): anyone on the network can read the token');
}

async function runHeadless(args: StartArgs, robot: RobotSpec, log: Logger, robotModelFile: RobotModelFile | undefined): Promise<number> {
  const core = await openCoreSession(args, robot, log, robotModelFile ? { robotModelFile } : {});
  const { link, loop } = core;
  loop.start();
  const server = await serveCockpit(core.cockpit, args, log);
  log.info({ robot: link.robotName, port: server.port, rateHz: loop.rateHz }, 'core running');

  const signal = await untilStopSignal();
  log.info({ signal }, 'shutting down: stopping the robot');
  return core.shutdown([['the API server', () => server.close()]]);
}
