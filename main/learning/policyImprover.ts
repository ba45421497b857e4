// The learning side of the live loop, as the learning session sees it: something that reads the
// ticks, keeps a reward model and a policy learning from the operator's feedback, and hands over a
// new candidate policy when an update is ready. The session owns the feedback and the versions; the
// improver owns the networks and their training.
import type { Policy } from '../core/policy.ts';
import type { Driver } from '../core/tickReport.ts';
import type { DriveCommand } from '../core/messages.ts';
import type { FeedbackSignals, Segment } from './feedbackTypes.ts';
import type { MemoryTeaching } from './memoryTeaching.ts';

/** One control tick as the learners keep it. */
export interface LearningTick {
  episodeId: string;
  step: number;
  timeMs: number;
  embedding: Float32Array;
  /** The world model's [h, z] after this tick; undefined without a world model. */
  latent: Float32Array | undefined;
  /** The command in effect after the tick (what the robot was told to do next). */
  action: DriveCommand;
  driver: Driver;
}

export interface PolicyCandidate {
  policy: Policy;
  /** What the update learned from, for the versions table. */
  trainedOn: { interventions: number; preferences: number; ratings: number; operatorTicks: number; fromMemory?: boolean };
  /** The promotion gate's verdict (promotionGate.ts), where the learner has one: auto-promote follows it. */
  evaluation?: { verdict: 'promote' | 'refuse' | 'blocked'; reason: string };
}

/** What a retrain from memory did: the version it offered, or why there is none. */
export type RetrainOutcome =
  { ok: true; version: string; ticks: number; trainedOn: PolicyCandidate['trainedOn'] } | { ok: false; reason: string; ticks: number };

export interface PolicyImprover {
  /** Keeps a tick for learning. Never blocks the control loop. */
  observe(tick: LearningTick): void;
  /**
   * How much the reward ensemble disagrees about which of two segments is better (its members'
   * spread, ≥ 0); undefined when it cannot score them (ticks it no longer holds).
   */
  disagreement(a: Segment, b: Segment): number | undefined;
  /** The reward ensemble's mean estimate for a tick's embedding, undefined before it has learned anything. */
  rewardEstimate(embedding: Float32Array): number | undefined;
  /** Its mean and spread (members' standard deviation) for a tick's embedding; undefined before it has learned anything. */
  rewardUncertainty?(embedding: Float32Array): { mean: number; spread: number } | undefined;
  /**
   * The off-policy critics' value of a tick's embedding and the command in effect: their mean and spread
   * (standard deviation across critics); undefined while they are off or have not been offered yet.
   */
  criticEstimate?(embedding: Float32Array, action: DriveCommand): { value: number; spread: number } | undefined;
  /** Its spread where the operator's feedback taught it (its upper quartile); undefined until a round has measured it. */
  taughtRewardSpread?(): number | undefined;
  /** The feedback as it stands now (new, or with something undone): learn from it. */
  feedbackChanged(signals: FeedbackSignals): void;
  /** What stops it learning now, in words for the operator (a failed round, a dead thread); undefined when all is well. */
  problem?(): string | undefined;
  /** The version that drives now changed (its policy's version string): candidates are judged against it. */
  drivingChanged?(version: string): void;
  /** Called when the improver has a new candidate policy ready. Returns a function that stops the calls. */
  onCandidate(listener: (candidate: PolicyCandidate) => void): () => void;
  /** The slow path: a fresh policy trained on what `read` finds in the memory, offered as a candidate. */
  retrainFromMemory?(read: () => Promise<MemoryTeaching>, steps: number): Promise<RetrainOutcome>;
  close(): Promise<void>;
}
