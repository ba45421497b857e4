// The slow path's training (DESIGN §3): a fresh learner — new networks, feature statistics fitted anew
// — trained on everything given, not a step on from the driving version. The policy worker runs it on
// what the memory holds; the learning benchmark on its whole stream.
import type { FeedbackSignals } from './feedbackTypes.ts';
import type { ActorSnapshot } from './learnedPolicy.ts';
import { PolicyLearner, type PolicyLearnerOptions, type TrainReport } from './policyLearner.ts';
import type { TickBuffer } from './tickBuffer.ts';
import type { Rssm } from '../worldmodel/rssm.ts';

export type RetrainResult = { ok: true; snapshot: ActorSnapshot; reward: Float32Array[][] | undefined; report: TrainReport } | { ok: false; reason: string };

/** `worldModel`: the one imagined rollouts run in, where the options turn them on. */
export function retrainFresh(
  ticks: TickBuffer,
  options: Partial<PolicyLearnerOptions>,
  signals: FeedbackSignals,
  steps: number,
  version: string,
  worldModel?: Rssm,
): RetrainResult {
  const fresh = new PolicyLearner(ticks, options);
  try {
    fresh.useWorldModel(worldModel);
    const report = fresh.train(steps, signals);
    if (report.actorSteps === 0) {
      const fitted = fresh.featureNorm !== undefined;
      return {
        ok: false,
        reason: fitted && report.operatorTicks === 0 ? 'there are no operator ticks or feedback to learn from' : 'there are too few driven ticks',
      };
    }
    return { ok: true, snapshot: fresh.publish(version), reward: fresh.rewardWeights(), report };
  } finally {
    fresh.dispose();
  }
}
