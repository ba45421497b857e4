// Puts a control loop together from its default parts, for `reins start` and the benches.
import type { Policy } from '../core/policy.ts';
import { ReactiveBaselinePolicy } from '../learning/reactiveBaselinePolicy.ts';
import { DEFAULT_TOPIC_MAP, type Link } from '../core/link.ts';
import { ControlLoop, type ControlLoopOptions } from '../loop/controlLoop.ts';
import { Synchroniser } from '../loop/synchroniser.ts';

export type { ControlLoop };
import { openEncoders } from './encoders.ts';
import type { Perception } from '../core/perception.ts';
import { createSafetyFilter } from './safetyParts.ts';
import type { BeliefFilter } from '../core/belief.ts';

export interface LoopWiring extends Partial<ControlLoopOptions> {
  /** The encoders; by default those of models/manifest.json, loaded here. */
  perception?: Perception;
  /** The world model's filter; none by default. */
  worldModel?: BeliefFilter;
  /** The policy that drives first (v1); the reactive baseline by default. */
  policy?: Policy;
}

export async function createControlLoop(link: Link, options: LoopWiring = {}): Promise<ControlLoop> {
  const { perception, worldModel, policy, ...loopOptions } = options;
  return new ControlLoop(
    {
      link,
      topics: { ...DEFAULT_TOPIC_MAP },
      perception: perception ?? (await openEncoders()),
      policy: policy ?? new ReactiveBaselinePolicy(),
      safety: createSafetyFilter(),
      ...(worldModel ? { worldModel } : {}),
    },
    loopOptions,
  );
}

/** The loop's synchroniser on its own, for benches that build frames from a link without a loop around them. */
export function createSynchroniser(link: Link): Synchroniser {
  return new Synchroniser(link, { ...DEFAULT_TOPIC_MAP });
}
