// `reins soak`: the whole core as `reins start` composes it (openCoreSession), against the simulated
// robot in its own process over rosbridge at full sensor rates, in real time, with the scripted
// operator at the cockpit — for as long as asked. Then the stop checks, a clean shutdown, and the
// accounting: every message the recorder was given read back from the MCAP files, every tick a row.
//
// The sim runs in its own process, as `reins start` runs it: rendering 640 × 480 at 30 Hz in the
// core's own event loop would charge the simulator's work to the core's tick latency and memory,
// and the rosbridge path is the load a real robot puts on the core (decoding, fan-out, recording).
import type { SentCommand } from '../../core/tickReport.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { DEFAULT_TOPIC_MAP } from '../../core/link.ts';
import { createArena } from '../../sim/arena.ts';
import { openCoreSession, type CoreSession } from '../../session/coreSession.ts';
import { openCockpitServer } from '../../session/serveCockpit.ts';
import { readBackMemoryTicks, readBackRecording } from '../../session/sessionReadBack.ts';
import type { StartArgs } from '../../session/startArgs.ts';
import { startSimProcess } from '../../session/simProcess.ts';
import type { WorldModelArgs } from '../../session/worldModelOptions.ts';
import { GroundTruthFeed } from './groundTruthFeed.ts';
import { OPERATOR_PERIOD_MS, SoakOperator, type OperatorCounts } from './soakOperator.ts';
import { SoakWindows, type WindowFigures } from './soakWindows.ts';

export interface SoakOptions {
  durationSecs: number;
  /** The figures' window: a minute for the soak, seconds for the short test. */
  windowSecs: number;
  camera: { widthPx: number; heightPx: number; rateHz: number };
  scan: { beams: number; rateHz: number };
  rateHz: number;
  /** The encoder manifest; undefined for the default models. */
  encoders: string | undefined;
  worldModel: WorldModelArgs;
  seed: number;
  /** Keep the session's folder (recordings, memory, saved versions) rather than delete it. */
  keep: boolean;
  log: Logger;
}

export interface StopCheck {
  /** From the moment the robot should stop to the zero command leaving the core (ms). */
  zeroAfterMs: number | undefined;
  /** Commands sent in the second after the zero (none expected: nothing is published while idle). */
  commandsAfterZero: number;
  /** The robot's true speed a second later (m/s). */
  speedAfterMps: number | undefined;
  driverAfter: string;
}

export interface SoakAccounting {
  recorderGiven: number;
  recorderWritten: number;
  recorderDropped: number;
  /** Messages in the session's files the recording quota deleted (the recorder's own count: they cannot be read back). */
  recorderDeleted: number;
  mcapReadBack: number;
  mcapFiles: number;
  mcapFilesDeleted: number;
  mcapUnfinishedFiles: number;
  commandsSent: number;
  commandsInMcap: number;
  ticks: number;
  ticksInMcap: number;
  memoryWritten: number;
  memoryDropped: number;
  memoryRows: number;
}

export interface SoakOutcome {
  options: Omit<SoakOptions, 'log'>;
  windows: WindowFigures[];
  ticks: number;
  ticksSkipped: number;
  ticksStartedLate: number;
  operator: OperatorCounts;
  handBackStop: StopCheck;
  heartbeatStop: StopCheck;
  accounting: SoakAccounting;
  /** Parts that failed to close (exit status of the shutdown: 0 when all closed). */
  shutdownStatus: number;
  folder: string;
}

export const FULL_SENSOR_RATES = { camera: { widthPx: 640, heightPx: 480, rateHz: 30 }, scan: { beams: 720, rateHz: 30 } } as const;
export const ARENA_SEED = 1;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSoak(options: SoakOptions): Promise<SoakOutcome> {
  const { log } = options;
  const folder = await mkdtemp(join(tmpdir(), 'reins-soak-'));
  try {
    return await soakIn(folder, options);
  } finally {
    if (!options.keep) await rm(folder, { recursive: true, force: true });
    else log.info({ folder }, 'the soak’s recordings and memory are kept');
  }
}

async function soakIn(folder: string, options: SoakOptions): Promise<SoakOutcome> {
  const { log, camera, scan } = options;
  const args = soakStartArgs(folder, options);
  let simUrl = '';
  const core = await openCoreSession(args, { kind: 'sim' }, log, {
    dataFolder: join(folder, 'data'),
    openFirstRobot: async () => {
      const sim = await startSimProcess(log, args.simArgs);
      simUrl = sim.url;
      return { link: sim.link, close: () => sim.close() };
    },
  });
  const { loop, link, stores } = core;
  // The API server as `reins start` serves it (no UI connects: the operator's requests go to the same service).
  const server = await openCockpitServer(core.cockpit, args, log);
  const truth = await GroundTruthFeed.open(simUrl, options.rateHz);
  const operator = new SoakOperator(core.cockpit, loop, truth, createArena(ARENA_SEED), options.seed);

  const sensorTopics = [DEFAULT_TOPIC_MAP.camera, DEFAULT_TOPIC_MAP.scan];
  const windows = new SoakWindows(
    {
      ticksSkipped: () => loop.ticksSkipped(),
      ticksStartedLate: () => loop.ticksStartedLate(),
      recordingDropped: () => stores.recording?.stats().dropped ?? 0,
      memoryDropped: () => stores.memory?.writerStatus().dropped ?? 0,
    },
    sensorTopics,
  );
  const stopSensors = sensorTopics.map((topic) => link.subscribe(topic, () => windows.sensorMessage(topic)));
  let ticks = 0;
  let commandsSent = 0;
  const sent: SentCommand[] = [];
  loop.onTick((report) => {
    ticks++;
    windows.tick(report.durationMs, report.startLatenessMs);
  });
  loop.onSent((command) => {
    commandsSent++;
    sent.push(command);
    if (sent.length > 100) sent.shift();
  });

  loop.start();
  operator.start();
  windows.begin();
  log.info({ minutes: options.durationSecs / 60, camera, scan, rateHz: options.rateHz }, 'soaking');
  const memoryTimer = setInterval(() => windows.sampleMemory(), 1000);
  const startedMs = performance.now();
  const windowCount = Math.ceil(options.durationSecs / options.windowSecs);
  for (let index = 1; index <= windowCount; index++) {
    const endMs = startedMs + Math.min(index * options.windowSecs, options.durationSecs) * 1000;
    await sleep(Math.max(0, endMs - performance.now()));
    const figures = windows.close();
    log.info(
      {
        window: figures.index,
        rssMiB: Math.round(figures.rssMiB),
        tickP99Ms: +figures.tickMs.p99.toFixed(2),
        ticks: figures.ticks,
        skipped: figures.skipped,
        late: figures.startedLate,
      },
      'soak window',
    );
  }
  clearInterval(memoryTimer);

  operator.stopSupervising();
  const handBackStop = await checkHandBackStop(operator, core, truth, sent);
  const heartbeatStop = await checkHeartbeatStop(operator, core, truth, sent);
  operator.stop();
  truth.close();
  for (const stop of stopSensors) stop();

  const ticksSkipped = loop.ticksSkipped();
  const ticksStartedLate = loop.ticksStartedLate();
  const shutdownStatus = await core.shutdown([['the API server', () => server.close()]]);
  const accounting = await account(core, ticks, commandsSent);
  const { log: _log, ...shown } = options;
  return {
    options: shown,
    windows: windows.windows,
    ticks,
    ticksSkipped,
    ticksStartedLate,
    operator: operator.counts,
    handBackStop,
    heartbeatStop,
    accounting,
    shutdownStatus,
    folder,
  };
}

/** `reins start`'s arguments for the soak's core: the sim at the soak's rates, recording and memory in `folder`. */
export function soakStartArgs(folder: string, options: Pick<SoakOptions, 'camera' | 'scan' | 'rateHz' | 'seed' | 'encoders' | 'worldModel'>): StartArgs {
  const { camera, scan } = options;
  return {
    robot: 'sim',
    headless: true,
    host: '127.0.0.1',
    port: 0,
    token: undefined,
    rateHz: options.rateHz,
    tlsCert: undefined,
    tlsKey: undefined,
    insecure: false,
    simArgs: [
      '--arena-seed',
      String(ARENA_SEED),
      '--seed',
      String(options.seed),
      '--camera',
      `${camera.widthPx}x${camera.heightPx}@${camera.rateHz}`,
      '--scan',
      `${scan.beams}@${scan.rateHz}`,
    ],
    encoders: options.encoders,
    encoderThreads: undefined,
    stores: { recordings: join(folder, 'recordings'), record: true, memory: join(folder, 'memory'), remember: true },
    worldModel: options.worldModel,
    review: undefined,
    rescore: false,
    pointsTopic: undefined,
    watchdogMs: 300,
  };
}

/**
 * The operator takes over, drives, turns autonomy off and hands back: the robot must get one zero at
 * once and then nothing (nobody drives), and come to rest.
 */
async function checkHandBackStop(operator: SoakOperator, core: CoreSession, truth: GroundTruthFeed, sent: SentCommand[]): Promise<StopCheck> {
  operator.takeOver();
  for (let i = 0; i < 10; i++) {
    operator.drive({ linearMps: 0.2, angularRadps: 0.3 });
    await sleep(OPERATOR_PERIOD_MS);
  }
  const fromMs = Date.now();
  sent.length = 0;
  operator.setAutonomy(false);
  operator.handBack();
  return watchStop(core, truth, sent, fromMs);
}

/**
 * Autonomy on and the policy driving, then the cockpit falls silent: the watchdog must stop the
 * robot within its timeout of the last heartbeat, and autonomy stays off.
 */
async function checkHeartbeatStop(operator: SoakOperator, core: CoreSession, truth: GroundTruthFeed, sent: SentCommand[]): Promise<StopCheck> {
  operator.setAutonomy(true);
  const untilMs = performance.now() + 3000;
  sent.length = 0;
  while (performance.now() < untilMs && !sent.some((command) => command.driver === 'policy')) await sleep(20);
  operator.stopHeartbeats();
  const fromMs = operator.lastHeartbeatAtMs;
  sent.length = 0;
  const check = await watchStop(core, truth, sent, fromMs);
  operator.resumeHeartbeats();
  return check;
}

async function watchStop(core: CoreSession, truth: GroundTruthFeed, sent: SentCommand[], fromMs: number): Promise<StopCheck> {
  await sleep(1000);
  const zeroAt = sent.findIndex((command) => command.command.linearMps === 0 && command.command.angularRadps === 0 && command.driver !== 'policy');
  // The truth feed is throttled to the control rate: wait a beat more so it reports the later speed.
  await sleep(200);
  const speed = truth.latest();
  return {
    zeroAfterMs: zeroAt < 0 ? undefined : sent[zeroAt]!.atMs - fromMs,
    commandsAfterZero: zeroAt < 0 ? sent.length : sent.length - zeroAt - 1,
    speedAfterMps: speed === undefined ? undefined : Math.abs(speed.linearMps),
    driverAfter: core.loop.driver(),
  };
}

/** After shutdown: what the recorder was given against what its files hold; ticks against memory rows. */
export async function account(core: CoreSession, ticks: number, commandsSent: number): Promise<SoakAccounting> {
  const recording = core.stores.recording!.stats();
  const deleted = new Set(recording.ownFilesDeleted);
  const kept = recording.files.filter((path) => !deleted.has(path));
  const readBack = await readBackRecording(kept);
  const memoryFacts = core.stores.memory!;
  const writer = memoryFacts.writerStatus();
  const memoryRows = await readBackMemoryTicks(memoryFacts);
  return {
    // Every record() call either queued the message (written by close) or counted a drop.
    recorderGiven: recording.messagesAdded + recording.dropped + recording.queued,
    recorderWritten: recording.messagesAdded,
    recorderDropped: recording.dropped,
    recorderDeleted: recording.messagesDeleted,
    mcapReadBack: readBack.total,
    mcapFiles: kept.length,
    mcapFilesDeleted: deleted.size,
    mcapUnfinishedFiles: readBack.unfinishedFiles.length,
    commandsSent,
    commandsInMcap: readBack.commandsSent,
    ticks,
    ticksInMcap: readBack.ticks,
    memoryWritten: writer.written,
    memoryDropped: writer.dropped,
    memoryRows,
  };
}
