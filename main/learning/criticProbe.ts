// "Measure before building on it" (issue 27): the off-policy critics trained with the actor frozen on a
// recorded stream's ticks and feedback, and what they then say about episodes held out of their
// training: critic updates per second (OffPolicyUpdates.criticStep, the worker's own step), the TD
// error on held-out transitions beside the spread of their targets, how much Q changes with the action,
// and how often the critics' minimum ranks the operator's action above the frozen policy's own at the
// operator's first ticks after a takeover. The figures go in docs/learning.md.
import * as tf from '@tensorflow/tfjs-core';
import { performance } from 'node:perf_hooks';
import { standardise, type FeatureNorm } from '../core/util/featureNorm.ts';
import { SeededRandom } from '../core/util/seededRandom.ts';
import { ACTION_SIZE, actorOutput } from './actor.ts';
import { DEFAULT_CRITIC_OPTIONS, type CriticOptions } from './criticEnsemble.ts';
import { takeoverMarks } from './feedbackLabels.ts';
import type { FeedbackSignals } from './feedbackTypes.ts';
import type { ActorSnapshot } from './learnedPolicy.ts';
import { frozenWeights } from './networks.ts';
import { OffPolicyUpdates, type OffPolicyRound } from './offPolicyUpdates.ts';
import { RewardEnsemble } from './rewardEnsemble.ts';
import { TickBuffer, type BufferedTick } from './tickBuffer.ts';
import { drawTransitions, indexTransitions, takeoverPairs } from './transitions.ts';

export interface CriticProbeInput {
  ticks: readonly BufferedTick[];
  signals: FeedbackSignals;
  /** The frozen actor (its feature statistics standardise every tick). */
  actor: ActorSnapshot;
  /** The reward ensemble's members as the stream left them, frozen; undefined: no learned reward. */
  reward: readonly (readonly Float32Array[])[] | undefined;
  rewardMembers: number;
  rewardHidden: number;
}

export interface CriticProbeOptions {
  critic: Partial<CriticOptions>;
  /** Critic updates to train before measuring. */
  updates: number;
  /** Every this-many-th episode (by order of first tick) is held out of training. */
  holdOutEvery: number;
  /** Operator ticks after a takeover that the ranking reads. */
  afterTakeoverTicks: number;
  seed: number;
}

export interface CriticProbeFigures {
  trainTicks: number;
  heldOutTicks: number;
  updates: number;
  updatesPerSecond: number;
  /** RMS of Q(s,a) − target over held-out transitions (mean over critics), and the targets' standard deviation. */
  heldOutTdRms: number;
  heldOutTargetStd: number;
  trainTdRms: number;
  /** Mean over held-out states of the standard deviation of min Q(s,·) over 8 uniform actions, ÷ the std of min Q(s, a_data) over states. */
  actionSensitivity: number;
  /** Mean |min Q(s, a_data) − min Q(s, a_uniform)|. */
  actionGap: number;
  /**
   * Held-out takeovers' first operator ticks, and the share where min Q(s, a_operator) is above min Q of
   * the command the policy was giving when the operator took over (what the operator overrode).
   */
  takeoverTicks: number;
  operatorRankedAbove: number;
  /** The same at the training episodes' takeovers: what the critics fit, beside what they carry to episodes they never saw. */
  operatorRankedAboveInTraining: number;
  /** The same against the frozen actor's own action there (trained by cloning on those very ticks: a near tie is expected). */
  operatorRankedAboveFrozenActor: number;
  temperature: number;
  critic: CriticOptions;
}

export const DEFAULT_CRITIC_PROBE_OPTIONS: Readonly<CriticProbeOptions> = Object.freeze({
  critic: { critics: 2 },
  updates: 3000,
  holdOutEvery: 5,
  afterTakeoverTicks: 10,
  seed: 1,
});

export function probeCritics(input: CriticProbeInput, options: Partial<CriticProbeOptions> = {}): CriticProbeFigures {
  const settings = { ...DEFAULT_CRITIC_PROBE_OPTIONS, ...options };
  const critic: CriticOptions = { ...DEFAULT_CRITIC_OPTIONS, critics: 2, ...settings.critic };
  const { actor: snapshot } = input;
  const embeddingSize = snapshot.shape.inputs;
  const episodes = [...new Set(input.ticks.map((tick) => tick.episodeId))];
  const heldOutEpisodes = new Set(episodes.filter((_, index) => index % settings.holdOutEvery === settings.holdOutEvery - 1));
  const train = bufferOf(
    input.ticks.filter((tick) => !heldOutEpisodes.has(tick.episodeId)),
    embeddingSize,
  );
  const heldOut = bufferOf(
    input.ticks.filter((tick) => heldOutEpisodes.has(tick.episodeId)),
    embeddingSize,
  );
  const actorWeights = frozenWeights(snapshot.shape, snapshot.weights);
  const reward = input.reward === undefined ? undefined : new RewardEnsemble(embeddingSize, { members: input.rewardMembers, hidden: input.rewardHidden });
  if (reward !== undefined) reward.load(input.reward!);
  const random = new SeededRandom(settings.seed * 13 + 5);
  const updates = OffPolicyUpdates.create(train, critic, settings.seed, random, snapshot.limits);
  try {
    const trainRound = roundOf(train, input.signals, snapshot.norm, reward, updates);
    const started = performance.now();
    let done = 0;
    for (let attempt = 0; done < settings.updates && attempt < settings.updates * 2; attempt++) if (updates.criticStep(trainRound, actorWeights)) done++;
    const seconds = (performance.now() - started) / 1000;
    const heldRound = roundOf(heldOut, input.signals, snapshot.norm, reward, undefined);
    const heldTd = tdError(updates, heldRound, actorWeights, random);
    const trainTd = tdError(updates, trainRound, actorWeights, random);
    const sensitivity = actionSensitivity(updates, heldOut, heldRound, random);
    const ranking = rankingAtTakeovers(updates, heldOut, input.signals, heldRound, actorWeights, settings.afterTakeoverTicks);
    const trainRanking = rankingAtTakeovers(updates, train, input.signals, trainRound, actorWeights, settings.afterTakeoverTicks);
    return {
      trainTicks: train.size,
      heldOutTicks: heldOut.size,
      updates: done,
      updatesPerSecond: done / seconds,
      heldOutTdRms: heldTd.rms,
      heldOutTargetStd: heldTd.targetStd,
      trainTdRms: trainTd.rms,
      actionSensitivity: sensitivity.ratio,
      actionGap: sensitivity.gap,
      takeoverTicks: ranking.ticks,
      operatorRankedAbove: ranking.overridden,
      operatorRankedAboveInTraining: trainRanking.overridden,
      operatorRankedAboveFrozenActor: ranking.frozen,
      temperature: updates.critics.temperature,
      critic,
    };
  } finally {
    updates.dispose();
    reward?.dispose();
    tf.dispose(actorWeights);
  }
}

function bufferOf(ticks: readonly BufferedTick[], embeddingSize: number): TickBuffer {
  const buffer = new TickBuffer(Math.max(1, ticks.length), embeddingSize);
  for (const tick of ticks) buffer.add(tick);
  return buffer;
}

function roundOf(
  buffer: TickBuffer,
  signals: FeedbackSignals,
  norm: FeatureNorm,
  reward: RewardEnsemble | undefined,
  updates: OffPolicyUpdates | undefined,
): OffPolicyRound {
  const held = buffer.slotsWhere(() => true);
  const marks = takeoverMarks(buffer, signals, { nearTakeoverTicks: 0, beforeTakeoverTicks: 10 });
  return {
    index: updates ? updates.begin(held, signals) : indexTransitions(buffer, held, signals),
    beforeTakeover: marks.beforeTakeover,
    features: (slots) => tf.tensor2d(standardise(norm, buffer.gather(slots)), [slots.length, buffer.embeddingSize]),
    current: () => true,
    reward,
    learnedRewards: new Map(),
  };
}

/** RMS TD error of the online critics (mean over critics) on up to 2,048 drawn transitions, and the targets' std. */
function tdError(updates: OffPolicyUpdates, round: OffPolicyRound, actor: readonly tf.Tensor[], random: SeededRandom): { rms: number; targetStd: number } {
  const { nStep, discount } = updates.options;
  const batch = drawTransitions(round.index, 2048, nStep, discount, random, round.current);
  if (batch.starts.length === 0) return { rms: Number.NaN, targetStd: Number.NaN };
  return tf.tidy(() => {
    const targets = updates.targets(batch, round, actor);
    const x = round.features(batch.starts);
    const values = updates.critics.onlineValues(x, updates.actionsAt(batch.actionSlots));
    const squared = values.map((value) => tf.mean(tf.square(tf.sub(value, targets))).dataSync()[0]!);
    const rms = Math.sqrt(squared.reduce((a, b) => a + b, 0) / squared.length);
    const { variance } = tf.moments(targets);
    return { rms, targetStd: Math.sqrt(variance.dataSync()[0]!) };
  });
}

function actionSensitivity(updates: OffPolicyUpdates, buffer: TickBuffer, round: OffPolicyRound, random: SeededRandom): { ratio: number; gap: number } {
  const slots = buffer.slotsWhere((driver) => driver === 'operator' || driver === 'policy');
  const stride = Math.max(1, Math.floor(slots.length / 1000));
  const picked = slots.filter((_, index) => index % stride === 0);
  if (picked.length < 2) return { ratio: Number.NaN, gap: Number.NaN };
  return tf.tidy(() => {
    const x = round.features(picked);
    const critics = updates.critics;
    const data = critics.minimum(x, updates.actionsAt(picked));
    const dataStd = Math.sqrt(tf.moments(data).variance.dataSync()[0]!);
    const uniform: tf.Tensor1D[] = [];
    for (let k = 0; k < 8; k++) {
      const actions = tf.randomUniform([picked.length, ACTION_SIZE], -1, 1, 'float32', Math.floor(random.next() * 2 ** 30)) as tf.Tensor2D;
      uniform.push(critics.minimum(x, actions));
    }
    const stacked = tf.stack(uniform);
    const perState = tf.sqrt(tf.moments(stacked, 0).variance);
    const gap = tf.mean(tf.abs(tf.sub(stacked, data))).dataSync()[0]!;
    return { ratio: tf.mean(perState).dataSync()[0]! / Math.max(dataStd, 1e-9), gap };
  });
}

function rankingAtTakeovers(
  updates: OffPolicyUpdates,
  buffer: TickBuffer,
  signals: FeedbackSignals,
  round: OffPolicyRound,
  actor: readonly tf.Tensor[],
  afterTicks: number,
): { ticks: number; overridden: number; frozen: number } {
  // Each takeover's first operator ticks, with the command the policy gave at its last tick before it.
  const pairs = takeoverPairs(buffer, signals, afterTicks);
  const slots = pairs.map(({ state }) => state);
  const overriddenSlots = pairs.map(({ action }) => action);
  if (slots.length === 0) return { ticks: 0, overridden: Number.NaN, frozen: Number.NaN };
  return tf.tidy(() => {
    const x = round.features(slots);
    const operator = updates.critics.minimum(x, updates.actionsAt(slots));
    const overridden = updates.critics.minimum(x, updates.actionsAt(overriddenSlots));
    const own = updates.critics.minimum(x, tf.tanh(actorOutput(actor, x).mean) as tf.Tensor2D);
    const share = (other: tf.Tensor1D) => tf.sum(tf.cast(tf.greater(operator, other), 'float32')).dataSync()[0]! / slots.length;
    return { ticks: slots.length, overridden: share(overridden), frozen: share(own) };
  });
}
