// `reins start`: the core and the UI. In an Electron window where Electron and a display exist,
// otherwise headless: the UI and API served on loopback, and the address printed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { newToken } from '../api/access.ts';
import { CockpitService } from '../api/cockpitService.ts';
import { RobotConnections } from '../api/robotConnections.ts';
import { startApiServer, type ApiServer } from '../api/server.ts';
import { OnlineImprover } from '../learning/onlineImprover.ts';
import { policyCheckpointFolder } from '../learning/policyCheckpoints.ts';
import { ReactiveBaselinePolicy } from '../learning/policy.ts';
import { DEFAULT_SAFETY_LIMITS } from '../safety/safetyFilter.ts';
import { selectWorldModelBackend } from '../worldmodel/backend/selectBackend.ts';
import { SwitchableLink } from '../links/switchableLink.ts';
import type { ControlLoop } from '../loop/controlLoop.ts';
import { DEFAULT_MANIFEST_PATH, loadPerception } from '../perception/onnxPerception.ts';
import type { Perception } from '../perception/perception.ts';
import { findElectron, runElectron } from './electronLauncher.ts';
import { startLearning } from './learningWiring.ts';
import { createLogger } from './logger.ts';
import type { StartArgs } from './main.ts';
import { openRobot } from './openRobot.ts';
import { parseRobotSpec, StartupError, UsageError, type RobotSpec } from './robotSpec.ts';
import { openSessionStores, reinsDataFolder } from './sessionStores.ts';
import { defaultCheckpointFolder, loadWorldModel, startWorldModelLearning } from './worldModelSession.ts';
import { createControlLoop } from './wiring.ts';
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
  const perception = await loadEncoders(args, log);
  const opened = await openRobot(robot, log, args.simArgs);
  // The loop holds one link for the session; the connection manager swaps robots behind it.
  const link = new SwitchableLink(opened.link);
  const worldModel = await loadWorldModel(args.worldModel, perception, log);
  const initialPolicy = new ReactiveBaselinePolicy();
  const loop = await createControlLoop(link, { rateHz: args.rateHz, perception, policy: initialPolicy, ...(worldModel ? { worldModel: worldModel.filter } : {}) });
  const connections = new RobotConnections(link, { robot: args.robot ?? 'sim', opened }, {
    openRobot: (spec, topics) => openRobot(spec, log, args.simArgs, topics),
    driver: () => loop.driver(),
    log,
  });
  logClipping(loop, log);
  const stores = await openSessionStores(link, loop, perception, args.stores, log);
  const learning = worldModel && stores.memory ? startWorldModelLearning(worldModel, loop, stores.memory, defaultCheckpointFolder(reinsDataFolder()), args.worldModel, log, stores.recording?.recordSurprise) : undefined;
  if (worldModel && !stores.memory) log.warn('the world model runs without learning: its learner replays memory, and --no-memory keeps none');
  if (learning) loop.addAlertSource(() => learning.alerts());
  // Learning from the operator: the online learner trains the reward ensemble and the policy; memory rows carry its reward estimate.
  // The learner's networks want the fastest TF.js backend too; the world model has chosen it when it runs.
  if (!worldModel) log.info({ backend: (await selectWorldModelBackend()).backend }, 'policy learner backend');
  const improver = new OnlineImprover({
    embeddingSize: perception.embeddingSize,
    limits: [DEFAULT_SAFETY_LIMITS.maxLinearMps, DEFAULT_SAFETY_LIMITS.maxAngularRadps],
    checkpoints: { folder: policyCheckpointFolder(reinsDataFolder(), perception.version), encoderVersion: perception.version },
  });
  stores.setRewardEstimator((embedding) => improver.rewardEstimate(embedding));
  const teaching = await startLearning({
    loop,
    link,
    initialPolicy,
    ...(stores.recording ? { recording: stores.recording } : {}),
    ...(stores.memory ? { memoryUri: stores.memory.uri } : {}),
    topics: () => connections.topics(),
    log,
    episodeId: stores.episodeId,
    improver,
  });
  // What earlier sessions taught carries on: the newest saved version is offered again.
  const restored = await improver.restore();
  if (restored.restored) log.info({ version: restored.restored }, 'policy restored from an earlier session');
  for (const reason of restored.refused) log.warn({ reason }, 'a saved policy was not used');
  loop.start();
  const server = await serveCockpit(new CockpitService(link, loop, Date.now, { connections, worldModelStatus: () => learning?.status(), learning: teaching.session, ...(stores.recording ? { recordInput: stores.recording.recordOperatorInput } : {}), ...(args.pointsTopic ? { pointCloudTopic: args.pointsTopic } : {}) }), args, log);
  log.info({ robot: link.robotName, port: server.port, rateHz: loop.rateHz }, 'core running');

  const signal = await untilStopSignal();
  log.info({ signal }, 'shutting down: stopping the robot');
  // The robot's stop comes first and must succeed (it is sent before close() first awaits); after it,
  // a part that fails to close is reported and the rest still close.
  const loopClosed = loop.close();
  return closeInOrder(
    [
      ['the encoders', () => loopClosed],
      ['the world model’s learner', async () => learning?.close()],
      ['the learning session', () => teaching.close()],
      ['the recording and the memory', () => stores.close()],
      ['the API server', () => server.close()],
      ['the robot link', () => link.close()],
      ['the robot', () => connections.close()],
    ],
    log,
  );
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

/** The safety filter's interventions, logged at most once a second so a clipping policy cannot flood the log. */
function logClipping(loop: ControlLoop, log: Logger): void {
  let lastLoggedMs = -Infinity;
  let since = 0;
  loop.onSent((sent) => {
    if (!sent.clipped) return;
    since++;
    if (sent.atMs - lastLoggedMs < 1000) return;
    log.info({ driver: sent.driver, requested: sent.requested, sent: sent.command, clippedSinceLastLog: since }, 'safety filter clipped a command');
    lastLoggedMs = sent.atMs;
    since = 0;
  });
}
