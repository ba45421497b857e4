// Whether a candidate version may drive (issue 27): a pessimistic fitted-Q evaluation on recent ticks by
// the evaluation critic — one that learns from the same transitions but never trains the actor — of
// the candidate's action against the driving version's, state by state. The candidate is promoted only
// if the lower end of the paired difference (mean − 2 standard errors) is not below −1 % of the driving
// version's mean |value|. Blocked outright when any critic has diverged (a value not finite, or beyond
// 1e6), or when the reward ensemble gets fewer than 60 % of the operator's earlier held-out answers
// right. On a real robot promotion stays the operator's (auto-promote off); the verdict is shown either way.
import * as tf from '@tensorflow/tfjs-core';
import { actorOutput } from './actor.ts';
import type { CriticEnsemble } from './criticEnsemble.ts';

export type PromotionVerdict = 'promote' | 'refuse' | 'blocked';

export interface CandidateEvaluation {
  verdict: PromotionVerdict;
  /** In words, for the operator. */
  reason: string;
  /** Mean evaluated value of the candidate's and the driving version's action over the ticks. */
  candidateValue: number;
  drivingValue: number;
  /** Mean paired difference − 2 standard errors. */
  lowerBound: number;
  ticks: number;
}

/** A value this large (or not finite) means a critic has diverged. */
export const DIVERGED_VALUE = 1e6;
/** Below this share of held-out answers right, the reward cannot be trusted to promote anything. */
export const MIN_REWARD_ACCURACY = 0.6;
/** Held-out answers needed before their accuracy counts. */
export const MIN_HELD_OUT_ANSWERS = 5;

export interface GateInputs {
  evaluator: CriticEnsemble;
  /** The critics that train the actor: their values are checked for divergence too. */
  critics: CriticEnsemble;
  /** Standardised features of the recent ticks [n, F]. */
  features: tf.Tensor2D;
  candidate: readonly tf.Tensor[];
  /** The driving version's actor weights; undefined when what drives is not a learned version of this shape. */
  driving: readonly tf.Tensor[] | undefined;
  /** The reward ensemble on held-out answers: right / judged. */
  heldOutAnswers: { right: number; judged: number };
}

export function evaluateCandidate({ evaluator, critics, features, candidate, driving, heldOutAnswers }: GateInputs): CandidateEvaluation {
  const ticks = features.shape[0];
  const figures = tf.tidy(() => {
    const candidateAction = tf.tanh(actorOutput(candidate, features).mean) as tf.Tensor2D;
    const candidateValues = evaluator.onlineValues(features, candidateAction)[0]!.dataSync() as Float32Array;
    const drivingValues =
      driving === undefined
        ? undefined
        : (evaluator.onlineValues(features, tf.tanh(actorOutput(driving, features).mean) as tf.Tensor2D)[0]!.dataSync() as Float32Array);
    const criticValues = critics.onlineValues(features, candidateAction).map((values) => values.dataSync() as Float32Array);
    return { candidateValues, drivingValues, criticValues };
  });
  const diverged = [figures.candidateValues, ...(figures.drivingValues ? [figures.drivingValues] : []), ...figures.criticValues].some((values) =>
    values.some((value) => !Number.isFinite(value) || Math.abs(value) > DIVERGED_VALUE),
  );
  const candidateValue = mean(figures.candidateValues);
  const drivingValue = figures.drivingValues ? mean(figures.drivingValues) : Number.NaN;
  const base = { candidateValue, drivingValue, ticks };
  if (diverged)
    return { ...base, verdict: 'blocked', lowerBound: Number.NaN, reason: `the critics have diverged (a value not finite or beyond ${DIVERGED_VALUE})` };
  if (heldOutAnswers.judged >= MIN_HELD_OUT_ANSWERS && heldOutAnswers.right / heldOutAnswers.judged < MIN_REWARD_ACCURACY)
    return {
      ...base,
      verdict: 'blocked',
      lowerBound: Number.NaN,
      reason: `the reward model gets only ${heldOutAnswers.right} of ${heldOutAnswers.judged} of your earlier answers right that it did not learn from (below ${MIN_REWARD_ACCURACY * 100} %): check recent answers and ratings`,
    };
  if (figures.drivingValues === undefined || ticks < 2)
    return { ...base, verdict: 'promote', lowerBound: Number.NaN, reason: 'no learned version drives to compare with' };
  const differences = figures.candidateValues.map((value, i) => value - figures.drivingValues![i]!);
  const meanDifference = mean(differences);
  const deviation = Math.sqrt(differences.reduce((sum, d) => sum + (d - meanDifference) ** 2, 0) / (differences.length - 1));
  const lowerBound = meanDifference - (2 * deviation) / Math.sqrt(differences.length);
  const margin = 0.01 * mean(figures.drivingValues.map(Math.abs));
  return lowerBound >= -margin
    ? {
        ...base,
        verdict: 'promote',
        lowerBound,
        reason: `not worse than the driving version on ${ticks} recent ticks (evaluated ${candidateValue.toFixed(3)} vs ${drivingValue.toFixed(3)})`,
      }
    : {
        ...base,
        verdict: 'refuse',
        lowerBound,
        reason: `possibly worse than the driving version on ${ticks} recent ticks (evaluated ${candidateValue.toFixed(3)} vs ${drivingValue.toFixed(3)})`,
      };
}

function mean(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return values.length > 0 ? sum / values.length : Number.NaN;
}
