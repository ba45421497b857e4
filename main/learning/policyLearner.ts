// Trains the actor and the reward model from the ticks and the operator's feedback (DESIGN §3). This
// class composes the parts and holds their state between rounds:
//   feedbackLabels.ts — what the feedback says about the held ticks: takeover marks, and the reward
//                       ensemble's pairs and labels with their weights (the `labels` option);
//   rewardBatch.ts    — what one reward step samples of those items;
//   actorTraining.ts  — (a) behaviour cloning, (b) reward-weighted imitation and (c) the pull toward
//                       the driving version, on real ticks; with `method: 'bc'` (a) alone, uniformly
//                       weighted: the HG-DAgger baseline, same network and gradient budget;
//   offPolicyUpdates.ts — the soft actor-critic on real transitions with an ensemble of critics
//                       (criticEnsemble.ts, transitions.ts), RLPD's recipe sized for two cores, and
//                       behaviour cloning filtered by the critics. Off by default (`critic.critics` 0)
//                       until the learning bench shows it helps (docs/learning.md);
//   imaginedUpdates.ts — (b') the actor-critic on rollouts imagined in the world model
//                       (imaginedCritic.ts), once the policy worker holds its weights. Off by default
//                       (`imagination.rollouts` 0) until the learning bench shows it helps.
// One seeded generator draws every sample, in the same order for the same seed. Every snapshot is a
// candidate version.
import * as tf from '@tensorflow/tfjs-core';
import { ActorTrainer, type ActorTrainingOptions, type WeightedSlots } from './actorTraining.ts';
import {
  checkLabelWeights,
  DEFAULT_LABEL_WEIGHTS,
  rewardItems,
  takeoverMarks,
  type LabelWeights,
  type RewardItems,
  type TakeoverWindows,
} from './feedbackLabels.ts';
import type { FeedbackSignals, Segment } from './feedbackTypes.ts';
import { fitFeatureNorm, standardise, type FeatureNorm } from '../core/util/featureNorm.ts';
import { LearnedPolicy, type ActorSnapshot } from './learnedPolicy.ts';
import { readWeights, frozenWeights, type MlpShape } from './networks.ts';
import { ImaginedCritic, percentile, type ImaginationOptions } from './imaginedCritic.ts';
import { ImaginedUpdates } from './imaginedUpdates.ts';
import { checkCriticOptions, DEFAULT_CRITIC_OPTIONS, type CriticOptions } from './criticEnsemble.ts';
import { OffPolicyUpdates, type OffPolicyRound } from './offPolicyUpdates.ts';
import { evaluateCandidate, type CandidateEvaluation } from './promotionGate.ts';
import type { Rssm } from '../worldmodel/rssm.ts';
import { rewardBatch } from './rewardBatch.ts';
import { RewardEnsemble, type RewardEnsembleOptions } from './rewardEnsemble.ts';
import { SeededRandom } from '../core/util/seededRandom.ts';
import type { TickBuffer } from './tickBuffer.ts';

export type { LearningMethod } from './actorTraining.ts';

/** The actor's settings (actorTraining.ts) and the takeover windows (feedbackLabels.ts), and these. */
export interface PolicyLearnerOptions extends ActorTrainingOptions, TakeoverWindows {
  /** Reward-ensemble steps per actor step, and what each step samples. */
  rewardStepsPerActorStep: number;
  rewardPairsPerStep: number;
  rewardLabelsPerStep: number;
  /** Feature statistics are fitted once this many ticks are held. */
  minTicksToFit: number;
  seed: number;
  reward: Partial<RewardEnsembleOptions>;
  imagination: Partial<ImaginationOptions>;
  /** The off-policy critics and the actor's soft actor-critic term (reins only); `critics` 0: off. */
  critic: Partial<CriticOptions>;
  /** How much each kind of feedback weighs as the reward ensemble's labels; unset ones keep DEFAULT_LABEL_WEIGHTS. */
  labels: Partial<LabelWeights>;
}

export const DEFAULT_POLICY_LEARNER_OPTIONS: Readonly<PolicyLearnerOptions> = Object.freeze({
  method: 'reins',
  hidden: 128,
  layers: 2,
  learningRate: 1e-3,
  operatorBatch: 128,
  policyBatch: 0,
  nearTakeoverTicks: 20,
  nearTakeoverWeight: 3,
  advantageTemperature: 0.5,
  maxAdvantageWeight: 3,
  uncertaintyPenalty: 1,
  referenceWeight: 0.1,
  beforeTakeoverTicks: 10,
  imitationWindowTicks: 3000,
  rewardStepsPerActorStep: 0.25,
  rewardPairsPerStep: 16,
  rewardLabelsPerStep: 64,
  minTicksToFit: 200,
  limits: [0.5, 1.5] as const,
  seed: 1,
  reward: {},
  imagination: {},
  critic: {},
  labels: DEFAULT_LABEL_WEIGHTS,
});

export interface TrainReport {
  actorSteps: number;
  rewardSteps: number;
  bcLoss: number;
  rewardLoss: number;
  operatorTicks: number;
  policyTicksImitated: number;
  /** Imagined updates of the actor (and critic), and the mean reward the last one's rollouts earned. */
  imaginedSteps: number;
  imaginedReward: number;
  /** Critic updates this round, the critics' last TD loss, and actor steps that followed the critics. */
  criticUpdates: number;
  criticLoss: number;
  actorCriticSteps: number;
}

/** One round of training, stepped in slices so that a live loop is never held up for long. */
export interface TrainingRound {
  readonly report: TrainReport;
  steps(count: number): void;
}

function emptyReport(): TrainReport {
  return {
    actorSteps: 0,
    rewardSteps: 0,
    bcLoss: Number.NaN,
    rewardLoss: Number.NaN,
    operatorTicks: 0,
    policyTicksImitated: 0,
    imaginedSteps: 0,
    imaginedReward: Number.NaN,
    criticUpdates: 0,
    criticLoss: Number.NaN,
    actorCriticSteps: 0,
  };
}

export class PolicyLearner {
  readonly options: PolicyLearnerOptions;
  readonly shape: MlpShape;
  readonly reward: RewardEnsemble | undefined;
  private readonly labelWeights: LabelWeights;
  private readonly random: SeededRandom;
  private readonly actor: ActorTrainer;
  private norm: FeatureNorm | undefined;
  private rewardCredit = 0;
  private readonly imagination: ImaginedUpdates | undefined;
  private worldModel: Rssm | undefined;
  readonly offPolicy: OffPolicyUpdates | undefined;

  constructor(
    readonly buffer: TickBuffer,
    options: Partial<PolicyLearnerOptions> = {},
  ) {
    this.options = { ...DEFAULT_POLICY_LEARNER_OPTIONS, ...options };
    this.labelWeights = { ...DEFAULT_LABEL_WEIGHTS, ...this.options.labels };
    checkLabelWeights(this.labelWeights);
    this.random = new SeededRandom(this.options.seed * 7 + 3);
    this.actor = new ActorTrainer(buffer, this.options, this.options.seed, this.random);
    this.shape = this.actor.shape;
    this.reward = this.options.method === 'reins' ? new RewardEnsemble(buffer.embeddingSize, { seed: this.options.seed, ...this.options.reward }) : undefined;
    const critic = this.options.method === 'reins' ? new ImaginedCritic(buffer.embeddingSize, this.options.imagination, this.options.seed) : undefined;
    if (critic?.enabled) this.imagination = new ImaginedUpdates(critic, buffer, this.random, this.options.limits);
    else critic?.dispose();
    const criticOptions = { ...DEFAULT_CRITIC_OPTIONS, ...this.options.critic };
    if (this.options.method === 'reins' && criticOptions.critics > 0) {
      this.offPolicy = OffPolicyUpdates.create(buffer, criticOptions, this.options.seed, this.random, this.options.limits);
    }
  }

  /**
   * The world model imagined rollouts run in (its weights are the world-model learner's latest, the
   * caller's to keep and dispose); undefined stops them. Its embedding size must be the buffer's.
   */
  useWorldModel(rssm: Rssm | undefined): void {
    if (rssm !== undefined && rssm.config.embeddingSize !== this.buffer.embeddingSize) {
      throw new RangeError(`policy learner: the world model reads ${rssm.config.embeddingSize}-float embeddings, the ticks hold ${this.buffer.embeddingSize}`);
    }
    this.worldModel = rssm;
  }

  get featureNorm(): FeatureNorm | undefined {
    return this.norm;
  }

  /** The untrained actor as version 1, with identity statistics until data has been seen. */
  snapshot(version: string): ActorSnapshot {
    const size = this.shape.inputs;
    const norm = this.norm ?? { mean: new Float32Array(size), scale: new Float32Array(size).fill(1) };
    return {
      version,
      shape: this.shape,
      weights: readWeights(this.actor.weights),
      norm: { mean: norm.mean.slice(), scale: norm.scale.slice() },
      limits: this.options.limits,
    };
  }

  /** A frozen policy of the current weights; it also becomes the reference the next updates stay near. */
  candidate(version: string): LearnedPolicy {
    return new LearnedPolicy(this.publish(version));
  }

  /** The current weights as a version's snapshot; they become the reference the next updates stay near. */
  publish(version: string): ActorSnapshot {
    const snapshot = this.snapshot(version);
    this.actor.holdReference(frozenWeights(this.shape, snapshot.weights));
    return snapshot;
  }

  /**
   * Carries on from a saved version: its actor weights and feature statistics (which must fit this
   * learner's network), the reward ensemble's weights when there are any, and the critics' when they
   * were saved and fit this learner's (critics of another size start afresh rather than fail the restore).
   */
  restore(snapshot: ActorSnapshot, reward: readonly (readonly Float32Array[])[] | undefined, critics?: readonly (readonly Float32Array[])[]): void {
    const fits = (['inputs', 'hidden', 'layers', 'outputs'] as const).every((key) => snapshot.shape[key] === this.shape[key]);
    if (!fits)
      throw new RangeError(`policy ${snapshot.version}: its network (${JSON.stringify(snapshot.shape)}) is not this learner's (${JSON.stringify(this.shape)})`);
    this.actor.load(frozenWeights(this.shape, snapshot.weights));
    this.norm = { mean: snapshot.norm.mean.slice(), scale: snapshot.norm.scale.slice() };
    if (reward !== undefined) this.reward?.load(reward);
    if (critics !== undefined && this.offPolicy !== undefined) {
      try {
        this.offPolicy.critics.load(critics);
      } catch {
        // Saved with other critic settings: these critics learn anew.
      }
    }
  }

  /** The off-policy critics' weights, critic by critic; undefined when they are off. */
  criticWeights(): Float32Array[][] | undefined {
    return this.offPolicy?.critics.weightsOf();
  }

  /** The reward ensemble's weights, member by member; undefined for `bc` or before it has learned. */
  rewardWeights(): Float32Array[][] | undefined {
    return this.reward?.trained ? this.reward.memberWeights() : undefined;
  }

  /** `steps` actor steps (and the reward model's share) from the buffer and the feedback. */
  train(steps: number, signals: FeedbackSignals): TrainReport {
    const round = this.begin(signals);
    if (round === undefined) return emptyReport();
    round.steps(steps);
    return round.report;
  }

  /**
   * Prepares a round of training on the buffer and feedback as they stand now, to be stepped in
   * slices; undefined until enough ticks are held to fit the feature statistics. Each step reads the
   * few rows it samples from the buffer (a copy of every held tick would be up to 18,000 × 256
   * floats a round); a tick that a newer one has replaced since the round began is left out.
   */
  begin(signals: FeedbackSignals): TrainingRound | undefined {
    if (this.norm === undefined) {
      if (this.buffer.size < this.options.minTicksToFit) return undefined;
      const all = this.buffer.slotsWhere(() => true);
      this.norm = fitFeatureNorm(this.buffer.gather(all), all.length, this.buffer.embeddingSize);
    }
    const norm = this.norm;
    const asOf = this.buffer.total;
    const held = this.buffer.slotsWhere(() => true);
    const marks = takeoverMarks(this.buffer, signals, this.options);
    const pools = this.actor.pools(held, marks);
    const report = emptyReport();
    report.operatorTicks = pools.operatorSlots.length;
    // With the critics on, some answers are kept from the reward ensemble: the promotion gate checks it on them.
    const taught =
      this.offPolicy === undefined ? signals : { ...signals, preferences: signals.preferences.filter((preference) => !isHeldOutAnswer(preference.id)) };
    const items: RewardItems = this.reward === undefined ? { pairs: [], labels: [] } : rewardItems(this.buffer, taught, held, marks, this.labelWeights);
    const current = (slot: number) => this.buffer.unchangedSince(slot, asOf);
    const features = (slots: readonly number[]) => tf.tensor2d(standardise(norm, this.buffer.gather(slots)), [slots.length, this.buffer.embeddingSize]);
    let advantage: WeightedSlots | undefined;
    let advantageScored = false;
    const offPolicy = this.offPolicy;
    const offRound: OffPolicyRound | undefined =
      offPolicy === undefined
        ? undefined
        : { index: offPolicy.begin(held, signals), beforeTakeover: marks.beforeTakeover, features, current, reward: this.reward, learnedRewards: new Map() };
    const round: TrainingRound = {
      report,
      steps: (count: number) => {
        this.rewardSteps(count, items, current, features, report);
        const reward = this.reward;
        if (!advantageScored && reward?.trained && this.options.policyBatch > 0) {
          advantage = this.actor.advantage(pools, current, (slots) => {
            const rows = features(slots);
            try {
              return reward.rewards(rows);
            } finally {
              rows.dispose();
            }
          });
          advantageScored = true;
          report.policyTicksImitated = advantage?.slots.length ?? 0;
        }
        if (pools.operatorSlots.length === 0 && advantage === undefined) return;
        for (let step = 0; step < count; step++) {
          if (offPolicy !== undefined && offRound !== undefined) {
            for (let update = offPolicy.dueNow(count - step); update > 0; update--) {
              if (!offPolicy.criticStep(offRound, this.actor.weights)) break;
              report.criticUpdates++;
            }
            report.criticLoss = offPolicy.figures().loss;
          }
          const batch = this.actor.batch(pools, advantage, current);
          if (batch.slots.length === 0) continue;
          const followsCritics = offPolicy !== undefined && offRound !== undefined && offPolicy.trusted;
          const loss = followsCritics ? offPolicy.actorStep(offRound, this.actor, batch) : this.actor.step(batch, features);
          if (followsCritics) report.actorCriticSteps++;
          if (Number.isFinite(loss)) report.bcLoss = loss;
          report.actorSteps++;
          if (report.actorSteps % (this.imagination?.everyActorSteps ?? 1) === 0) this.imaginedStep(held, norm, current, report);
        }
      },
    };
    return round;
  }

  /**
   * The promotion gate's verdict on the current weights as a candidate (promotionGate.ts), against the
   * driving version's actor weights where it is a learned version of this shape; undefined without critics.
   */
  evaluateCandidate(driving: readonly tf.Tensor[] | undefined, signals: FeedbackSignals, recentTicks = 1000): CandidateEvaluation | undefined {
    const offPolicy = this.offPolicy;
    if (offPolicy === undefined || this.norm === undefined) return undefined;
    const slots = this.buffer.slotsWhere((driver) => driver === 'policy' || driver === 'operator').slice(-recentTicks);
    if (slots.length === 0) return undefined;
    const features = tf.tensor2d(standardise(this.norm, this.buffer.gather(slots)), [slots.length, this.buffer.embeddingSize]);
    try {
      return evaluateCandidate({
        evaluator: offPolicy.evaluator,
        critics: offPolicy.critics,
        features,
        candidate: this.actor.weights,
        driving,
        heldOutAnswers: this.heldOutAnswers(signals),
      });
    } finally {
      features.dispose();
    }
  }

  /** How many of the answers kept from the reward ensemble (not "equal", both clips still held) it gets right. */
  heldOutAnswers(signals: FeedbackSignals): { right: number; judged: number } {
    const result = { right: 0, judged: 0 };
    if (this.reward === undefined || !this.reward.trained || this.norm === undefined) return result;
    for (const preference of signals.preferences) {
      if (!isHeldOutAnswer(preference.id) || preference.answer === 'equal') continue;
      const first = this.buffer.segmentSlots(preference.first);
      const second = this.buffer.segmentSlots(preference.second);
      if (first === undefined || second === undefined || first.length === 0 || second.length === 0) continue;
      const statistics = this.rewardStatistics(this.buffer.gather([...first, ...second]), first.length + second.length);
      if (statistics === undefined) continue;
      const average = (from: number, to: number) => statistics.mean.slice(from, to).reduce((a, b) => a + b, 0) / (to - from);
      const firstBetter = average(0, first.length) > average(first.length, first.length + second.length);
      result.judged++;
      if (firstBetter === (preference.answer === 'first')) result.right++;
    }
    return result;
  }

  /** The reward ensemble's mean and spread for each embedding (rows of `embeddings`); undefined before it has learned. */
  rewardStatistics(embeddings: Float32Array, count: number): { mean: Float32Array; spread: Float32Array } | undefined {
    if (this.reward === undefined || !this.reward.trained || this.norm === undefined) return undefined;
    const features = tf.tensor2d(standardise(this.norm, embeddings.slice(0, count * this.buffer.embeddingSize)), [count, this.buffer.embeddingSize]);
    try {
      return this.reward.meanAndSpread(features);
    } finally {
      features.dispose();
    }
  }

  /** The ensemble's disagreement about two held segments; undefined when either is gone or nothing is learned. */
  disagreement(a: Segment, b: Segment): number | undefined {
    if (this.reward === undefined || this.norm === undefined) return undefined;
    const first = this.buffer.segmentSlots(a);
    const second = this.buffer.segmentSlots(b);
    if (first === undefined || second === undefined) return undefined;
    const slots = [...first, ...second];
    const features = tf.tensor2d(standardise(this.norm, this.buffer.gather(slots)), [slots.length, this.buffer.embeddingSize]);
    try {
      const rows = slots.map((_, row) => row);
      return this.reward.pairDisagreement(features, rows.slice(0, first.length), rows.slice(first.length));
    } finally {
      features.dispose();
    }
  }

  /**
   * How much the reward ensemble disagrees where it was taught: a quantile (the upper quartile by
   * default) of the spread (members' standard deviation) over the held ticks the feedback covers (both
   * sides of every pair, every labelled tick), at most `maxTicks` of them evenly spaced. The yardstick
   * for "the policy drives where the reward is unknown"; undefined for `bc`, before the ensemble has
   * learned, or with fewer than `minTicks` taught ticks held.
   */
  taughtRewardSpread(
    signals: FeedbackSignals,
    { minTicks = 20, maxTicks = 512, quantile = 0.75 }: { minTicks?: number; maxTicks?: number; quantile?: number } = {},
  ): number | undefined {
    if (!(quantile >= 0 && quantile <= 1)) throw new RangeError(`a quantile lies in [0, 1], got ${quantile}`);
    if (!(Number.isInteger(minTicks) && minTicks >= 1 && Number.isInteger(maxTicks) && maxTicks >= 1))
      throw new RangeError(`taught ticks: minTicks and maxTicks are whole numbers ≥ 1, got ${minTicks} and ${maxTicks}`);
    if (this.reward === undefined || !this.reward.trained || this.norm === undefined) return undefined;
    const held = this.buffer.slotsWhere(() => true);
    const { pairs, labels } = rewardItems(this.buffer, signals, held, takeoverMarks(this.buffer, signals, this.options), this.labelWeights);
    const taught = [...new Set([...pairs.flatMap((pair) => [...pair.first, ...pair.second]), ...labels.map((label) => label.row)])].sort((a, b) => a - b);
    if (taught.length < minTicks) return undefined;
    const stride = Math.max(1, taught.length / maxTicks);
    const slots = Array.from({ length: Math.min(taught.length, maxTicks) }, (_, i) => taught[Math.floor(i * stride)]!);
    const features = tf.tensor2d(standardise(this.norm, this.buffer.gather(slots)), [slots.length, this.buffer.embeddingSize]);
    try {
      return percentile(this.reward.meanAndSpread(features).spread, quantile);
    } finally {
      features.dispose();
    }
  }

  dispose(): void {
    this.actor.dispose();
    this.reward?.dispose();
    this.imagination?.dispose();
    this.offPolicy?.dispose();
  }

  /** The reward ensemble's share of `count` actor steps, on batches sampled from the round's items. */
  private rewardSteps(
    count: number,
    items: RewardItems,
    current: (slot: number) => boolean,
    features: (slots: readonly number[]) => tf.Tensor2D,
    report: TrainReport,
  ): void {
    if (this.reward === undefined || (items.pairs.length === 0 && items.labels.length === 0)) return;
    this.rewardCredit += count * this.options.rewardStepsPerActorStep;
    while (this.rewardCredit >= 1) {
      this.rewardCredit -= 1;
      const batch = rewardBatch(items, this.options.rewardPairsPerStep, this.options.rewardLabelsPerStep, this.random, current);
      if (batch.slots.length === 0) continue;
      const rows = features(batch.slots);
      try {
        report.rewardLoss = this.reward.train(rows, batch.pairs, batch.labels);
      } finally {
        rows.dispose();
      }
      report.rewardSteps++;
    }
  }

  /** One imagined update of the actor and critic, when a world model and a trained reward model are at hand. */
  private imaginedStep(held: readonly number[], norm: FeatureNorm, current: (slot: number) => boolean, report: TrainReport): void {
    const rssm = this.worldModel;
    const reward = this.reward;
    if (this.imagination === undefined || rssm === undefined || reward === undefined || !reward.trained) return;
    const meanReward = this.imagination.step(rssm, reward, this.actor, held, norm, current);
    if (meanReward === undefined) return;
    report.imaginedSteps++;
    report.imaginedReward = meanReward;
  }
}

/**
 * Settings given from outside (the bench's `--learner JSON`) as the learner's options: every key must be
 * one of its options, and each value of the default's kind; the critics' settings are checked whole.
 */
export function learnerOverrides(given: Record<string, unknown>): Partial<PolicyLearnerOptions> {
  const defaults = DEFAULT_POLICY_LEARNER_OPTIONS as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(given)) {
    if (!(key in defaults)) throw new RangeError(`learner: unknown setting "${key}"; settings: ${Object.keys(defaults).join(', ')}`);
    const expected = Array.isArray(defaults[key]) ? 'array' : typeof defaults[key];
    const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    if (actual !== expected)
      throw new RangeError(`learner: ${key} must be a${expected === 'object' || expected === 'array' ? 'n' : ''} ${expected}, got ${JSON.stringify(value)}`);
  }
  const critic = (given.critic ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(critic)) {
    if (!(key in DEFAULT_CRITIC_OPTIONS))
      throw new RangeError(`learner: unknown critic setting "${key}"; settings: ${Object.keys(DEFAULT_CRITIC_OPTIONS).join(', ')}`);
    if (typeof value !== 'number' && typeof value !== 'boolean')
      throw new RangeError(`learner: critic.${key} must be a number or true/false, got ${JSON.stringify(value)}`);
  }
  checkCriticOptions({ ...DEFAULT_CRITIC_OPTIONS, ...(critic as Partial<CriticOptions>) });
  return given as Partial<PolicyLearnerOptions>;
}

/** One answer in five (by its id) is kept from the reward ensemble when the critics are on: the promotion gate checks the ensemble on them. */
export function isHeldOutAnswer(id: string): boolean {
  let hash = 2166136261;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 16777619);
  return (hash >>> 0) % 5 === 0;
}
