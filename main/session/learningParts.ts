// Learning from the operator's parts as a running core makes them, for the benches that measure them:
// the ticks a learner holds, the policy learner with its actor scaled to the safety filter's limits (as
// the live improver hands its worker), the slow path's fresh retrain, and the "reward unknown here" watch.
import type { FeedbackSignals } from '../learning/feedbackTypes.ts';
import { DEFAULT_IMAGINATION_OPTIONS, type ImaginationOptions } from '../learning/imaginedCritic.ts';
import { DEFAULT_POLICY_LEARNER_OPTIONS, learnerOverrides, PolicyLearner, type PolicyLearnerOptions } from '../learning/policyLearner.ts';
import { probeCritics, type CriticProbeFigures, type CriticProbeInput } from '../learning/criticProbe.ts';
import { retrainFresh, type RetrainResult } from '../learning/retrainFresh.ts';
import { RewardDriftWatch } from '../learning/rewardDrift.ts';
import { TickBuffer } from '../learning/tickBuffer.ts';
import type { Rssm } from '../worldmodel/rssm.ts';
import { SESSION_SPEED_LIMITS } from './safetyParts.ts';

export type { FeedbackSignals, InterventionSignal, PreferenceSignal, Segment } from '../learning/feedbackTypes.ts';
export type { LearnedPolicy } from '../learning/learnedPolicy.ts';
export type { ActorSnapshot } from '../learning/learnedPolicy.ts';
/** `--learner JSON` checked against the learner's settings; the critics measured on a recorded stream (`reins bench critic`). */
export { learnerOverrides, probeCritics, type CriticProbeFigures, type CriticProbeInput };
export type { LearningMethod } from '../learning/policyLearner.ts';
export type { ImaginationOptions, PolicyLearner, PolicyLearnerOptions, RetrainResult, RewardDriftWatch, TickBuffer };

/** The settings a session's policy learner is given: these, the actor's ±1 meaning the safety filter's limits, as the live improver sets them. */
function sessionLearnerOptions(options: Partial<PolicyLearnerOptions>): Partial<PolicyLearnerOptions> {
  return { limits: SESSION_SPEED_LIMITS, ...options };
}

/** Every setting the policy learner runs with, defaults filled in (what a bench reports beside its figures). */
export function policyLearnerSettings(options: Partial<PolicyLearnerOptions> = {}): PolicyLearnerOptions {
  return { ...DEFAULT_POLICY_LEARNER_OPTIONS, ...sessionLearnerOptions(options) };
}

/** Every setting of the imagined rollouts, defaults filled in. */
export function imaginationSettings(options: Partial<ImaginationOptions> = {}): ImaginationOptions {
  return { ...DEFAULT_IMAGINATION_OPTIONS, ...options };
}

/** The newest `capacityTicks` ticks a learner learns from. */
export function createTickBuffer(capacityTicks: number, embeddingSize: number): TickBuffer {
  return new TickBuffer(capacityTicks, embeddingSize);
}

/** The policy learner (reward ensemble, actor, critic) on a buffer of ticks. */
export function createPolicyLearner(ticks: TickBuffer, options: Partial<PolicyLearnerOptions> = {}): PolicyLearner {
  return new PolicyLearner(ticks, sessionLearnerOptions(options));
}

/** The slow path: a fresh learner trained on every tick given (`worldModel`: where imagined rollouts run, if on). */
export function retrainPolicy(
  ticks: TickBuffer,
  options: Partial<PolicyLearnerOptions>,
  signals: FeedbackSignals,
  steps: number,
  version: string,
  worldModel?: Rssm,
): RetrainResult {
  return retrainFresh(ticks, sessionLearnerOptions(options), signals, steps, version, worldModel);
}

/** The cockpit's "reward unknown here" warning at its default thresholds. */
export function createRewardDriftWatch(): RewardDriftWatch {
  return new RewardDriftWatch();
}
