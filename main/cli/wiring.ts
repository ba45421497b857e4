// Puts a control loop together from its default parts, for `reins start` and the benches.
import { HandFeaturePerception } from '../perception/perception.ts';
import { ReactiveBaselinePolicy } from '../learning/policy.ts';
import { DEFAULT_TOPIC_MAP, type Link } from '../links/link.ts';
import { ControlLoop, type ControlLoopOptions } from '../loop/controlLoop.ts';
import { SafetyFilter } from '../safety/safetyFilter.ts';

export function createControlLoop(link: Link, options: Partial<ControlLoopOptions> = {}): ControlLoop {
  return new ControlLoop(
    {
      link,
      topics: { ...DEFAULT_TOPIC_MAP },
      perception: new HandFeaturePerception(),
      policy: new ReactiveBaselinePolicy(),
      safety: new SafetyFilter(),
    },
    options,
  );
}
