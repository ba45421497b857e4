// `reins soak --simulated-hours N`: the soak's core (loop, memory writer and upkeep, recorder with
// rotation and quota, world-model learner, policy learner) as `reins start` composes it, in lockstep
// on the simulated robot (session/lockstepCore.ts) and as fast as it goes. Every timer the core runs
// is on the simulated clock — the operator's heartbeat and supervision, memory upkeep and reconnects,
// the writer's flushes, the learners' rounds and replay budget — so a shift's upkeep, growth and
// learning pass in a fraction of a shift, and the learners take the steps per simulated minute they
// take in real time. Then the same shutdown and accounting as the real-time soak.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLockstepCore } from '../../session/lockstepCore.ts';
import { createSimLink } from '../../sim/lockstepLink.ts';
import { SimulatedHours, type HourFigures } from './simulatedHours.ts';
import { OPERATOR_PERIOD_MS, SoakOperator, type OperatorCounts } from './soakOperator.ts';
import { account, ARENA_SEED, soakStartArgs, type SoakAccounting, type SoakOptions } from './soakRun.ts';

/** The real-time soak's options, with simulated time for its duration and windows. */
export interface SimulatedSoakOptions extends Omit<SoakOptions, 'durationSecs' | 'windowSecs'> {
  simulatedSecs: number;
  /** The figures' window in simulated seconds: an hour for the soak, seconds for the short test. */
  windowSimSecs: number;
}

export interface SimulatedSoakOutcome {
  options: Omit<SimulatedSoakOptions, 'log'>;
  windows: HourFigures[];
  ticks: number;
  wallSecs: number;
  operator: OperatorCounts;
  accounting: SoakAccounting;
  /** Parts that failed to close (0 when all closed). */
  shutdownStatus: number;
  folder: string;
}

/** A progress line this often (simulated), so a long run can be followed and its wall time estimated early. */
const PROGRESS_EVERY_SIM_SECS = 60;
/**
 * The camera publishes a ring of frames drawn at start (as `reins sim --prerendered-camera` does):
 * the real-time soak draws them in the sim's own process, and drawing 640 × 480 at 30 Hz here took
 * about half of this process's time — the simulator's cost, not the core's. The core still encodes,
 * records and remembers every frame at full size and rate.
 */
const PRERENDERED_CAMERA_FRAMES = 8;

export async function runSimulatedSoak(options: SimulatedSoakOptions): Promise<SimulatedSoakOutcome> {
  const folder = await mkdtemp(join(tmpdir(), 'reins-simulated-soak-'));
  try {
    return await soakIn(folder, options);
  } finally {
    if (!options.keep) await rm(folder, { recursive: true, force: true });
    else options.log.info({ folder }, 'the soak’s recordings and memory are kept');
  }
}

async function soakIn(folder: string, options: SimulatedSoakOptions): Promise<SimulatedSoakOutcome> {
  const { log, camera, scan, rateHz } = options;
  if (OPERATOR_PERIOD_MS * rateHz > 1000) throw new RangeError(`the operator acts every ${OPERATOR_PERIOD_MS} ms: the control rate may be at most 10 Hz here`);
  const link = createSimLink({ arenaSeed: ARENA_SEED, episodeSeed: options.seed, camera, scan, prerenderedCameraFrames: PRERENDERED_CAMERA_FRAMES });
  const lockstep = await openLockstepCore({ args: soakStartArgs(folder, options), link, dataFolder: join(folder, 'data'), log });
  const { core, schedule } = lockstep;
  const operator = new SoakOperator(core.cockpit, core.loop, { latest: () => link.robot.groundTruth() }, link.robot.arena, options.seed, schedule);
  const ticksPerWindow = Math.round(options.windowSimSecs * rateHz);
  const totalTicks = Math.round(options.simulatedSecs * rateHz);
  const hours = new SimulatedHours(core, schedule, ticksPerWindow);
  let ticks = 0;
  let commandsSent = 0;
  core.loop.onTick((report) => {
    ticks++;
    hours.tick(report.durationMs, report.embedding.values);
  });
  core.loop.onSent(() => void commandsSent++);

  operator.start();
  log.info({ simulatedHours: options.simulatedSecs / 3600, camera, scan, rateHz }, 'soaking on the simulated clock');
  const startedMs = performance.now();
  const progressEveryTicks = Math.round(PROGRESS_EVERY_SIM_SECS * rateHz);
  while (ticks < totalTicks) {
    await lockstep.step();
    if (ticks % progressEveryTicks === 0) {
      const wallSecs = (performance.now() - startedMs) / 1000;
      log.info({ simMinutes: ticks / rateHz / 60, wallSecs: Math.round(wallSecs), ticksPerWallSec: +(ticks / wallSecs).toFixed(1) }, 'simulated soak progress');
    }
    if (ticks % ticksPerWindow !== 0 && ticks < totalTicks) continue;
    const figures = await hours.close(ticks / rateHz);
    log.info(
      {
        window: figures.index,
        wallSecs: Math.round(figures.wallSecs),
        maintenanceMs: Math.round(figures.maintenanceMs),
        rssLevelMiB: Math.round(figures.rssLevelMiB),
        tickP99Ms: +figures.tickMs.p99.toFixed(2),
        memoryRows: figures.memoryRows,
      },
      'simulated soak window',
    );
  }
  const wallSecs = (performance.now() - startedMs) / 1000;
  hours.stop();
  operator.stop();
  const shutdownStatus = await lockstep.close();
  const accounting = await account(core, ticks, commandsSent);
  const { log: _log, ...shown } = options;
  return { options: shown, windows: hours.windows, ticks, wallSecs, operator: operator.counts, accounting, shutdownStatus, folder };
}
