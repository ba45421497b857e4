// The core as `reins start` composes it (openCoreSession: encoders, loop, world model and its learner,
// memory, learning session, improver, slow path, cockpit), over the simulated robot in lockstep: one
// clock, simulated, that the loop, the cockpit and every learning schedule run on (issue 26). Time
// moves only in `step()`, and only after the work due by then is done — a learner round, a retrain
// from memory, the world-model learner's replay budget — so a slow learner makes the run slower, never
// the learning smaller. The learning bench and its tests drive it; the operator acts through `cockpit`.
import type { Logger } from 'pino';
import { LockstepSchedule } from '../core/runtime/schedule.ts';
import type { TickReport } from '../core/tickReport.ts';
import type { LockstepLink } from '../sim/lockstepLink.ts';
import { openCoreSession, type CoreSession } from './coreSession.ts';
import type { StartArgs } from './startArgs.ts';
import type { PolicyLearnerOptions } from '../learning/policyLearner.ts';

export interface LockstepCoreOptions {
  /** `reins start`'s arguments (the bench parses them with `reins start`'s own parser). */
  args: StartArgs;
  /** The simulated robot; the core closes it. */
  link: LockstepLink;
  /** Saved policy and world-model versions (a fresh folder: nothing is restored). */
  dataFolder: string;
  log: Logger;
  /** The policy learner's settings over `reins start`'s (the bench's `bc` streams change only the training signal). */
  learner?: Partial<PolicyLearnerOptions>;
  /**
   * Memory's writer is flushed, and the world-model learner caught up with what it holds, this often
   * (simulated ms): the writer's own flush interval in a live core.
   */
  syncEveryMs?: number;
}

export interface LockstepCore {
  core: CoreSession;
  link: LockstepLink;
  schedule: LockstepSchedule;
  /** Simulated time (the link's clock, epoch ms). */
  now(): number;
  /** One control period: the robot moves, the work due by then runs to its end, then the loop ticks. */
  step(): Promise<Readonly<TickReport>>;
  /** Shuts the core down as `reins start` does; resolves with the number of parts that failed to close. */
  close(): Promise<number>;
}

const DEFAULT_SYNC_EVERY_MS = 2000;

export async function openLockstepCore(options: LockstepCoreOptions): Promise<LockstepCore> {
  const { link, args, log } = options;
  const syncEveryMs = options.syncEveryMs ?? DEFAULT_SYNC_EVERY_MS;
  if (!(syncEveryMs > 0)) throw new RangeError(`syncEveryMs must be > 0, got ${syncEveryMs}`);
  const schedule = new LockstepSchedule(link.clockMs());
  const core = await openCoreSession(args, { kind: 'sim' }, log, {
    dataFolder: options.dataFolder,
    schedule,
    // A round trains while the loop ticks on, as it does live; its version drives from the next round's moment.
    candidates: 'at-next-round',
    ...(options.learner ? { learner: options.learner } : {}),
    openFirstRobot: async () => ({ link, close: () => link.close() }),
  });
  const periodSecs = 1 / core.loop.rateHz;
  let lastSyncMs = schedule.now();
  return {
    core,
    link,
    schedule,
    now: () => schedule.now(),
    async step() {
      link.advance(periodSecs);
      const nowMs = link.clockMs();
      await schedule.advanceTo(nowMs);
      core.loop.checkWatchdog(nowMs);
      const report = await core.loop.tick(nowMs);
      if (nowMs - lastSyncMs >= syncEveryMs) {
        lastSyncMs = nowMs;
        await core.stores.flushMemory();
        await core.worldModelLearning?.catchUp();
      }
      return report;
    },
    close: () => core.shutdown(),
  };
}
