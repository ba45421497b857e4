// Messages between the online improver (the core's thread) and the policy learner's worker thread.
// Ticks go over in batches; a round carries the feedback as it stands and comes back with a candidate
// (the actor's snapshot and the reward ensemble's weights) or the reason there is none. A retrain (the
// slow path) carries what the memory holds and is answered like a round.
import type { FeedbackSignals } from './feedbackTypes.ts';
import type { ActorSnapshot } from './learnedPolicy.ts';
import type { PackedTicks } from './memoryTeaching.ts';
import type { PolicyLearnerOptions } from './policyLearner.ts';
import type { CandidateEvaluation } from './promotionGate.ts';
import type { BufferedTick } from './tickBuffer.ts';
import type { NamedArray } from '../worldmodel/checkpointFile.ts';
import type { WorldModelConfig } from '../worldmodel/worldModelConfig.ts';

export type ToPolicyWorker =
  | { type: 'init'; embeddingSize: number; capacityTicks: number; learner: Partial<PolicyLearnerOptions> }
  | { type: 'ticks'; ticks: BufferedTick[] }
  | { type: 'round'; id: number; signals: FeedbackSignals; steps: number; version: string }
  | { type: 'restore'; snapshot: ActorSnapshot; reward: Float32Array[][] | undefined; critics: Float32Array[][] | undefined }
  | { type: 'retrain'; id: number; ticks: PackedTicks; signals: FeedbackSignals; steps: number; version: string }
  /** The version that drives now (its name): the promotion gate compares each candidate with it. */
  | { type: 'driving'; version: string }
  /** The world model's newest weights, for imagined rollouts (namedWeights order). */
  | { type: 'world-model'; config: WorldModelConfig; weights: NamedArray[]; version: string };

export interface RoundCandidate {
  snapshot: ActorSnapshot;
  /** The reward ensemble's weights member by member; undefined before it has learned anything. */
  reward: Float32Array[][] | undefined;
  /** The off-policy critics' weights critic by critic (checkpoints carry them); undefined when they are off. */
  critics?: Float32Array[][] | undefined;
  /** The promotion gate's verdict (with the critics on): whether it may drive, and why. */
  evaluation?: CandidateEvaluation | undefined;
  operatorTicks: number;
  /**
   * The reward ensemble's spread where its feedback taught it (PolicyLearner.taughtRewardSpread), for
   * telling when the policy drives where the reward is unknown; undefined when it cannot tell yet.
   */
  taughtRewardSpread: number | undefined;
}

export type FromPolicyWorker =
  | { type: 'ready'; backend: string }
  | { type: 'round-done'; id: number; candidate: RoundCandidate | undefined; reason: string | undefined }
  | { type: 'failed'; id: number | undefined; message: string };
