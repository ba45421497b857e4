// A core with no memory and no learner (issue 26): the control loop as `reins start` builds it (same
// encoders, synchroniser, arbiter, safety filter) and the cockpit's requests, over the simulated robot
// in lockstep. The learning bench evaluates a version of the policy on it — nothing it sees reaches
// the stream that taught the version — and the scripted operators drive the tasks alone on it.
import type { Logger } from 'pino';
import { CockpitService } from '../api/cockpitService.ts';
import type { Policy } from '../core/policy.ts';
import type { TickReport } from '../core/tickReport.ts';
import type { LockstepLink } from '../sim/lockstepLink.ts';
import { loadEncoders } from './encoders.ts';
import { createControlLoop, type ControlLoop } from './loopWiring.ts';
import type { StartArgs } from './startArgs.ts';

export interface EvaluationCore {
  loop: ControlLoop;
  /** What the operator's requests go through (no learning session: feedback is refused). */
  cockpit: CockpitService;
  link: LockstepLink;
  now(): number;
  /** One control period: the robot moves, then the loop ticks. */
  step(): Promise<Readonly<TickReport>>;
  /** Closes the loop (the robot's last zero, the encoders) and the link. */
  close(): Promise<void>;
}

/** `policy`: what drives when autonomy is on; without one, `reins start`'s first policy (the reactive baseline). */
export async function openEvaluationCore(args: StartArgs, link: LockstepLink, policy: Policy | undefined, log: Logger): Promise<EvaluationCore> {
  const perception = await loadEncoders(args, log);
  const clock = () => link.clockMs();
  const loop = await createControlLoop(link, { rateHz: args.rateHz, watchdogTimeoutMs: args.watchdogMs, clock, perception, ...(policy ? { policy } : {}) });
  const cockpit = new CockpitService(link, loop, clock);
  const periodSecs = 1 / loop.rateHz;
  return {
    loop,
    cockpit,
    link,
    now: clock,
    async step() {
      link.advance(periodSecs);
      const nowMs = clock();
      loop.checkWatchdog(nowMs);
      return loop.tick(nowMs);
    },
    async close() {
      try {
        await loop.close();
      } finally {
        await link.close();
      }
    },
  };
}
