// `reins start`: the core and the UI. In an Electron window where Electron and a display exist,
// otherwise headless: the UI and API served on loopback, and the address printed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { newToken } from '../api/access.ts';
import type { CockpitService } from '../api/cockpitService.ts';
import { startApiServer, type ApiServer } from '../api/server.ts';
import { DEFAULT_MANIFEST_PATH, loadPerception } from '../perception/onnxPerception.ts';
import type { Perception } from '../perception/perception.ts';
import { openCoreSession } from './coreSession.ts';
import { findElectron, runElectron } from './electronLauncher.ts';
import { createLogger } from './logger.ts';
import type { StartArgs } from './main.ts';
import { parseRobotSpec, StartupError, UsageError, type RobotSpec } from './robotSpec.ts';
import { runReview } from './review.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export async function runStart(args: StartArgs): Promise<number> {
  const log = createLogger('reins');
  const robot = parseRobotSpec(args.robot);
  checkExposure(args, log);
  if (!args.headless) {
    const electron = findElectron(REPO_ROOT, log);
    if (electron.ok) return runElectron(electron, [...(args.robot ? ['--robot', args.robot] : []), ...(args.encoders ? ['--encoders', args.encoders] : []), ...(args.review ? ['--review', args.review] : [])]);
    log.info({ reason: electron.reason }, 'no desktop window: running headless');
  }
  return args.review ? runReview(args, args.review, log) : runHeadless(args, robot, log);
}

function checkExposure(args: StartArgs, log: Logger): void {
  if (LOOPBACK.has(args.host)) return;
  if (args.tlsCert === undefined && !args.insecure) {
    throw new UsageError(`--host ${args.host} exposes the cockpit beyond this machine: give --tls-cert and --tls-key, or --insecure`);
  }
  if (args.tlsCert === undefined) log.warn({ host: args.host }, 'serving the cockpit without TLS beyond loopback (--insecure): anyone on the network can read the token');
}

/** The encoders first: a bad manifest stops the start before a robot (or the sim's process) is opened. */
export async function loadEncoders(args: StartArgs, log: Logger): Promise<Perception> {
  let perception: Perception;
  try {
    perception = await loadPerception(args.encoders ?? DEFAULT_MANIFEST_PATH, args.encoderThreads === undefined ? {} : { intraOpThreads: args.encoderThreads });
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  const status = perception.status();
  log.info(
    {
      version: status.version,
      modalities: Object.fromEntries(status.modalities.map((m) => [m.modality, m.provider ? `${m.state} (${m.provider})` : m.state])),
      intraOpThreads: status.intraOpThreads,
      interOpThreads: status.interOpThreads,
      ...(status.providerNote ? { providerNote: status.providerNote } : {}),
    },
    'encoders loaded',
  );
  for (const alert of perception.alerts()) log.warn({ key: alert.key, hint: alert.hint }, alert.message);
  return perception;
}

async function runHeadless(args: StartArgs, robot: RobotSpec, log: Logger): Promise<number> {
  const core = await openCoreSession(args, robot, log);
  const { link, loop } = core;
  loop.start();
  const server = await serveCockpit(core.cockpit, args, log);
  log.info({ robot: link.robotName, port: server.port, rateHz: loop.rateHz }, 'core running');

  const signal = await untilStopSignal();
  log.info({ signal }, 'shutting down: stopping the robot');
  return core.shutdown([['the API server', () => server.close()]]);
}

export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

/** Closes each part in turn; one that fails is logged and the rest still close. Exit status 1 if any failed. */
export async function closeInOrder(parts: ReadonlyArray<readonly [string, () => Promise<unknown>]>, log: Logger): Promise<number> {
  let failures = 0;
  for (const [part, close] of parts) {
    try {
      await close();
    } catch (error) {
      failures++;
      log.error({ err: error }, `could not close ${part} cleanly`);
    }
  }
  return failures === 0 ? 0 : 1;
}

/** The API server on the options the operator gave: host, port, token, TLS; the UI's address printed. */
export async function serveCockpit(api: CockpitService, args: StartArgs, log: Logger): Promise<ApiServer> {
  const server = await startApiServer(api, {
    host: args.host,
    port: args.port,
    token: args.token ?? newToken(),
    staticDir: `${REPO_ROOT}renderer/dist`,
    tls: args.tlsCert && args.tlsKey ? { cert: readFileSync(args.tlsCert), key: readFileSync(args.tlsKey) } : undefined,
    log,
  });
  process.stdout.write(`Reins UI: ${server.uiUrl}\n`);
  return server;
}
