// Trains the actor and the reward model from the ticks and the operator's feedback (DESIGN §3):
//   (a) behaviour cloning on the operator's ticks, weighted up just after each takeover;
//   (b) reward-weighted imitation of the policy's own ticks: the reward ensemble scores them and the
//       actor is pulled toward what scored above the usual (advantage-weighted regression, with the
//       ensemble's spread counted against a tick, so unknown ground earns nothing); ticks just before
//       a takeover are never imitated. Off by default (`policyBatch` 0): in the learning bench it cost
//       8–10 points of success at 20 simulated minutes (seeds 1 and 2; docs/learning.md);
//   (b') an actor-critic on rollouts imagined in the world model and scored by the reward ensemble
//       (imaginedCritic.ts), once the policy worker holds the world model's weights. Off by default
//       (`imagination.rollouts` 0) until the learning bench shows it helps;
//   (c) a behaviour-cloning term toward the reference (the version that drives), so an update moves
//       the policy a step, never a leap.
// With `method: 'bc'` only (a) runs with uniform weights: the HG-DAgger baseline, same network and
// gradient budget. Every snapshot is a candidate version.
import * as tf from '@tensorflow/tfjs-core';
import { actorOutput, actorShape, behaviourCloningLoss, initialActorWeights } from './actor.ts';
import type { FeedbackSignals, Segment } from './feedbackTypes.ts';
import { fitFeatureNorm, standardise, type FeatureNorm } from './featureNorm.ts';
import { LearnedPolicy, type ActorSnapshot } from './learnedPolicy.ts';
import { ClippedAdamStep, readWeights, frozenWeights, type MlpShape } from './networks.ts';
import { ImaginedCritic, percentile, type ImaginationOptions, type RolloutStarts } from './imaginedCritic.ts';
import { actionFeatures } from '../worldmodel/replayBatch.ts';
import type { Rssm } from '../worldmodel/rssm.ts';
import { memberStatistics, RewardEnsemble, type LabelItem, type PairItem, type RewardEnsembleOptions } from './rewardEnsemble.ts';
import { SeededRandom } from '../memory/seededRandom.ts';
import type { TickBuffer } from './tickBuffer.ts';

export type LearningMethod = 'reins' | 'bc';

export interface PolicyLearnerOptions {
  method: LearningMethod;
  hidden: number;
  layers: number;
  learningRate: number;
  /** Operator ticks per actor step. */
  operatorBatch: number;
  /** The policy's own ticks per actor step, for reward-weighted imitation (reins only; 0: none). */
  policyBatch: number;
  /** Operator ticks this soon after a takeover weigh this much more (reins only). */
  nearTakeoverTicks: number;
  nearTakeoverWeight: number;
  /** Advantage-weighted regression's temperature and weight cap (reins only). */
  advantageTemperature: number;
  maxAdvantageWeight: number;
  /** How much one unit of the ensemble's spread counts against a tick's reward. */
  uncertaintyPenalty: number;
  /** Weight of the behaviour-cloning term toward the reference version (reins only). */
  referenceWeight: number;
  /** Policy ticks this close before a takeover count as bad and are never imitated. */
  beforeTakeoverTicks: number;
  /** Reward-weighted imitation reads at most this many of the newest policy ticks. */
  imitationWindowTicks: number;
  /** Reward-ensemble steps per actor step, and what each step samples. */
  rewardStepsPerActorStep: number;
  rewardPairsPerStep: number;
  rewardLabelsPerStep: number;
  /** Feature statistics are fitted once this many ticks are held. */
  minTicksToFit: number;
  limits: readonly [number, number];
  seed: number;
  reward: Partial<RewardEnsembleOptions>;
  imagination: Partial<ImaginationOptions>;
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
}

/** One round of training, stepped in slices so that a live loop is never held up for long. */
export interface TrainingRound {
  readonly report: TrainReport;
  steps(count: number): void;
}

function emptyReport(): TrainReport {
  return { actorSteps: 0, rewardSteps: 0, bcLoss: Number.NaN, rewardLoss: Number.NaN, operatorTicks: 0, policyTicksImitated: 0, imaginedSteps: 0, imaginedReward: Number.NaN };
}

export class PolicyLearner {
  readonly options: PolicyLearnerOptions;
  readonly shape: MlpShape;
  readonly reward: RewardEnsemble | undefined;
  private readonly actor: tf.Variable[];
  private readonly optimiser: ClippedAdamStep;
  private readonly random: SeededRandom;
  private norm: FeatureNorm | undefined;
  private reference: tf.Tensor[] | undefined;
  private rewardCredit = 0;
  private readonly imagined: ImaginedCritic | undefined;
  private worldModel: Rssm | undefined;

  constructor(
    readonly buffer: TickBuffer,
    options: Partial<PolicyLearnerOptions> = {},
  ) {
    this.options = { ...DEFAULT_POLICY_LEARNER_OPTIONS, ...options };
    this.shape = actorShape(buffer.embeddingSize, this.options.hidden, this.options.layers);
    this.actor = initialActorWeights(this.shape, this.options.seed);
    this.optimiser = new ClippedAdamStep(this.actor, this.options.learningRate, 100);
    this.random = new SeededRandom(this.options.seed * 7 + 3);
    this.reward = this.options.method === 'reins' ? new RewardEnsemble(buffer.embeddingSize, { seed: this.options.seed, ...this.options.reward }) : undefined;
    const imagined = this.options.method === 'reins' ? new ImaginedCritic(buffer.embeddingSize, this.options.imagination, this.options.seed) : undefined;
    if (imagined?.enabled) this.imagined = imagined;
    else imagined?.dispose();
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
    return { version, shape: this.shape, weights: readWeights(this.actor), norm: { mean: norm.mean.slice(), scale: norm.scale.slice() }, limits: this.options.limits };
  }

  /** A frozen policy of the current weights; it also becomes the reference the next updates stay near. */
  candidate(version: string): LearnedPolicy {
    return new LearnedPolicy(this.publish(version));
  }

  /** The current weights as a version's snapshot; they become the reference the next updates stay near. */
  publish(version: string): ActorSnapshot {
    const snapshot = this.snapshot(version);
    tf.dispose(this.reference ?? []);
    this.reference = frozenWeights(this.shape, snapshot.weights);
    return snapshot;
  }

  /**
   * Carries on from a saved version: its actor weights and feature statistics (which must fit this
   * learner's network), and the reward ensemble's weights when there are any.
   */
  restore(snapshot: ActorSnapshot, reward: readonly (readonly Float32Array[])[] | undefined): void {
    const fits = (['inputs', 'hidden', 'layers', 'outputs'] as const).every((key) => snapshot.shape[key] === this.shape[key]);
    if (!fits) throw new RangeError(`policy ${snapshot.version}: its network (${JSON.stringify(snapshot.shape)}) is not this learner's (${JSON.stringify(this.shape)})`);
    const frozen = frozenWeights(this.shape, snapshot.weights);
    tf.tidy(() => this.actor.forEach((variable, index) => variable.assign(frozen[index]!)));
    tf.dispose(this.reference ?? []);
    this.reference = frozen;
    this.norm = { mean: snapshot.norm.mean.slice(), scale: snapshot.norm.scale.slice() };
    if (reward !== undefined) this.reward?.load(reward);
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
    const marks = this.takeoverMarks(signals);
    const operatorSlots: number[] = [];
    const operatorWeights: number[] = [];
    const policySlots: number[] = [];
    for (const slot of held) {
      const driver = this.buffer.drivers[slot];
      if (driver === 'operator') {
        operatorSlots.push(slot);
        const near = this.options.method === 'reins' && marks.nearTakeover.has(slot);
        operatorWeights.push(near ? this.options.nearTakeoverWeight : 1);
      } else if (driver === 'policy' && !marks.beforeTakeover.has(slot)) {
        policySlots.push(slot);
      }
    }
    const report = emptyReport();
    report.operatorTicks = operatorSlots.length;
    const rewardItems = this.reward === undefined ? { pairs: [], labels: [] } : this.rewardItems(signals, held, marks);
    const current = (slot: number) => this.buffer.unchangedSince(slot, asOf);
    const features = (slots: readonly number[]) => tf.tensor2d(standardise(norm, this.buffer.gather(slots)), [slots.length, this.buffer.embeddingSize]);
    let advantage: { slots: number[]; weights: number[] } | undefined;
    let advantageScored = false;
    const round: TrainingRound = {
      report,
      steps: (count: number) => {
        if (this.reward !== undefined && (rewardItems.pairs.length > 0 || rewardItems.labels.length > 0)) {
          this.rewardCredit += count * this.options.rewardStepsPerActorStep;
          while (this.rewardCredit >= 1) {
            this.rewardCredit -= 1;
            const batch = compactItems(sampleItems(rewardItems.pairs, this.options.rewardPairsPerStep, this.random), sampleItems(rewardItems.labels, this.options.rewardLabelsPerStep, this.random), current);
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
        if (!advantageScored && this.reward?.trained && this.options.policyBatch > 0) {
          // The newest policy ticks only: older ones were driven by versions long gone.
          const recentPolicySlots = policySlots.slice(-this.options.imitationWindowTicks).filter(current);
          advantage = recentPolicySlots.length > 0 ? this.advantageWeights(features(recentPolicySlots), recentPolicySlots) : undefined;
          advantageScored = true;
          report.policyTicksImitated = advantage?.slots.length ?? 0;
        }
        if (operatorSlots.length === 0 && advantage === undefined) return;
        for (let step = 0; step < count; step++) {
          const batch = this.actorBatch(operatorSlots, operatorWeights, advantage, current);
          if (batch.slots.length === 0) continue;
          const loss = this.optimiser.minimise(() =>
            tf.tidy(() => {
              const x = features(batch.slots);
              const bc = behaviourCloningLoss(this.actor, x, this.scaledActions(batch.slots), tf.tensor1d(batch.weights));
              if (this.options.method !== 'reins' || this.reference === undefined) return bc;
              const mean = actorOutput(this.actor, x).mean;
              const referenceMean = actorOutput(this.reference, x).mean;
              const toReference = tf.mean(tf.square(tf.sub(tf.tanh(mean), tf.tanh(referenceMean))));
              return tf.add(bc, tf.mul(this.options.referenceWeight, toReference)) as tf.Scalar;
            }),
          );
          if (Number.isFinite(loss)) report.bcLoss = loss;
          report.actorSteps++;
          if (report.actorSteps % (this.imagined?.options.everyActorSteps ?? 1) === 0) this.imaginedStep(held, norm, current, report);
        }
      },
    };
    return round;
  }

  /** One imagined update of the actor and critic, when a world model and a trained reward model are at hand. */
  private imaginedStep(held: readonly number[], norm: FeatureNorm, current: (slot: number) => boolean, report: TrainReport): void {
    const imagined = this.imagined;
    const rssm = this.worldModel;
    const reward = this.reward;
    if (imagined === undefined || rssm === undefined || reward === undefined || !reward.trained) return;
    const starts = this.rolloutStarts(held, rssm, current);
    if (starts === undefined) return;
    const meanTensor = tf.tensor1d(norm.mean);
    const scaleTensor = tf.tensor1d(norm.scale);
    const [maxForward, maxTurn] = this.options.limits;
    const [worldForward = 1, worldTurn = 1] = rssm.config.actionLimits;
    const toWorld = tf.tensor1d([maxForward / worldForward, maxTurn / worldTurn]);
    try {
      const batch = imagined.rollout(rssm, starts, {
        actor: this.actor,
        features: (embeddings) => tf.div(tf.sub(embeddings, meanTensor), scaleTensor) as tf.Tensor2D,
        memberRewards: (features) => reward.rewards(features),
        toWorldAction: (action) => tf.clipByValue(tf.mul(action, toWorld), -1, 1) as tf.Tensor2D,
        seed: Math.floor(this.random.next() * 2 ** 30),
      });
      try {
        this.optimiser.minimise(() => tf.tidy(() => imagined.actorLoss(this.actor, batch)));
        report.imaginedSteps++;
        report.imaginedReward = batch.meanReward;
      } finally {
        imagined.release(batch);
      }
    } finally {
      tf.dispose([meanTensor, scaleTensor, toWorld]);
    }
  }

  /** Runs of `warmupTicks` held ticks of one episode, step after step, ending at a randomly drawn tick. */
  private rolloutStarts(held: readonly number[], rssm: Rssm, current: (slot: number) => boolean): RolloutStarts | undefined {
    const { rollouts, warmupTicks } = this.imagined!.options;
    const actionSize = rssm.config.actionSize;
    const runs: number[][] = [];
    for (let attempt = 0; attempt < rollouts * 4 && runs.length < rollouts; attempt++) {
      const run = this.buffer.runEndingAt(held[pickIndex(this.random, held.length)]!, warmupTicks);
      if (run !== undefined && run.every(current)) runs.push(run);
    }
    if (runs.length === 0) return undefined;
    const slots = runs.flat();
    // The action before each tick: the command in effect after the one before it, when that is held.
    const previousActions = new Float32Array(slots.length * actionSize);
    slots.forEach((slot, row) => {
      const previous = this.buffer.slotOf(this.buffer.episodeIds[slot]!, this.buffer.steps[slot]! - 1);
      if (previous !== undefined) actionFeatures(this.buffer.commandAt(previous), rssm.config, previousActions, row * actionSize);
    });
    return { count: runs.length, embeddings: this.buffer.gather(slots), previousActions };
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
  taughtRewardSpread(signals: FeedbackSignals, { minTicks = 20, maxTicks = 512, quantile = 0.75 }: { minTicks?: number; maxTicks?: number; quantile?: number } = {}): number | undefined {
    if (!(quantile >= 0 && quantile <= 1)) throw new RangeError(`a quantile lies in [0, 1], got ${quantile}`);
    if (!(Number.isInteger(minTicks) && minTicks >= 1 && Number.isInteger(maxTicks) && maxTicks >= 1)) throw new RangeError(`taught ticks: minTicks and maxTicks are whole numbers ≥ 1, got ${minTicks} and ${maxTicks}`);
    if (this.reward === undefined || !this.reward.trained || this.norm === undefined) return undefined;
    const held = this.buffer.slotsWhere(() => true);
    const { pairs, labels } = this.rewardItems(signals, held, this.takeoverMarks(signals));
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
    this.optimiser.dispose();
    tf.dispose([...this.actor, ...(this.reference ?? [])]);
    this.reward?.dispose();
    this.imagined?.dispose();
  }

  private scaledActions(slots: readonly number[]): tf.Tensor2D {
    const [maxForward, maxTurn] = this.options.limits;
    const values = new Float32Array(slots.length * 2);
    slots.forEach((slot, row) => {
      values[row * 2] = this.buffer.actions[slot * 2]! / maxForward;
      values[row * 2 + 1] = this.buffer.actions[slot * 2 + 1]! / maxTurn;
    });
    return tf.tensor2d(values, [slots.length, 2]);
  }

  /** Slots just after each takeover (operator) and just before it (policy). */
  private takeoverMarks(signals: FeedbackSignals): { nearTakeover: Set<number>; beforeTakeover: Set<number> } {
    const nearTakeover = new Set<number>();
    const beforeTakeover = new Set<number>();
    for (const intervention of signals.interventions) {
      const { operatorSegment: after, policySegment: before } = intervention;
      for (let step = after.startStep; step <= Math.min(after.endStep, after.startStep + this.options.nearTakeoverTicks - 1); step++) {
        const slot = this.buffer.slotOf(after.episodeId, step);
        if (slot !== undefined) nearTakeover.add(slot);
      }
      if (before !== undefined) {
        for (let step = Math.max(before.startStep, before.endStep - this.options.beforeTakeoverTicks + 1); step <= before.endStep; step++) {
          const slot = this.buffer.slotOf(before.episodeId, step);
          if (slot !== undefined) beforeTakeover.add(slot);
        }
      }
    }
    return { nearTakeover, beforeTakeover };
  }

  /**
   * The reward model's items over slots of the buffer. An item's id names its ticks by their place
   * among the ticks held now, as the ensemble's bootstrap split reads it.
   */
  private rewardItems(signals: FeedbackSignals, held: readonly number[], marks: { beforeTakeover: Set<number> }): { pairs: PairItem[]; labels: LabelItem[] } {
    const placeOf = new Map(held.map((slot, place) => [slot, place]));
    const slots = (segment: Segment | undefined): number[] | undefined => (segment === undefined ? undefined : this.buffer.segmentSlots(segment));
    const pairs: PairItem[] = [];
    const labels: LabelItem[] = [];
    for (const intervention of signals.interventions) {
      const before = slots(intervention.policySegment);
      const after = slots(intervention.operatorSegment);
      if (before !== undefined && after !== undefined && before.length > 0 && after.length > 0) {
        pairs.push({ id: `${intervention.id}:pair`, first: after, second: before, firstPreferred: 1, weight: 1 });
      }
      for (const slot of after ?? []) labels.push({ id: `${intervention.id}:${placeOf.get(slot)}`, row: slot, good: 1, weight: 0.25 });
    }
    for (const slot of marks.beforeTakeover) {
      if (placeOf.has(slot)) labels.push({ id: `before:${slot}`, row: slot, good: 0, weight: 1 });
    }
    for (const preference of signals.preferences) {
      const first = slots(preference.first);
      const second = slots(preference.second);
      if (first === undefined || second === undefined) continue;
      pairs.push({ id: preference.id, first, second, firstPreferred: preference.answer === 'first' ? 1 : preference.answer === 'second' ? 0 : 0.5, weight: 1 });
    }
    for (const rating of signals.ratings) {
      // A rating speaks for the moment and the second around it.
      for (let step = rating.step - 5; step <= rating.step + 5; step++) {
        const slot = this.buffer.slotOf(rating.episodeId, step);
        if (slot !== undefined) labels.push({ id: `${rating.id}:${step}`, row: slot, good: rating.rating > 0 ? 1 : 0, weight: step === rating.step ? 1 : 0.5 });
      }
    }
    return { pairs, labels: dedupeLabels(labels) };
  }

  /** The policy's own ticks worth imitating, each with exp(advantage / T) capped; `features` are theirs, row for slot (it is disposed). */
  private advantageWeights(features: tf.Tensor2D, policySlots: readonly number[]): { slots: number[]; weights: number[] } | undefined {
    const reward = this.reward!;
    let all: Float32Array[];
    try {
      all = reward.rewards(features);
    } finally {
      features.dispose();
    }
    const { mean, spread } = memberStatistics(all);
    const scores = policySlots.map((_, i) => mean[i]! - this.options.uncertaintyPenalty * spread[i]!);
    const baseline = [...scores].sort((a, b) => a - b)[Math.floor(scores.length / 2)]!;
    const slots: number[] = [];
    const weights: number[] = [];
    scores.forEach((score, i) => {
      const advantage = score - baseline;
      if (advantage <= 0) return;
      slots.push(policySlots[i]!);
      weights.push(Math.min(this.options.maxAdvantageWeight, Math.exp(advantage / this.options.advantageTemperature) - 1));
    });
    return slots.length > 0 ? { slots, weights } : undefined;
  }

  /** A batch of slots to imitate with their weights; a tick replaced since the round began is left out. */
  private actorBatch(operatorSlots: readonly number[], operatorWeights: readonly number[], advantage: { slots: number[]; weights: number[] } | undefined, current: (slot: number) => boolean): { slots: number[]; weights: number[] } {
    const slots: number[] = [];
    const weights: number[] = [];
    const take = (slot: number, weight: number) => {
      if (!current(slot)) return;
      slots.push(slot);
      weights.push(weight);
    };
    if (operatorSlots.length > 0) {
      for (let i = 0; i < this.options.operatorBatch; i++) {
        const pick = pickIndex(this.random, operatorSlots.length);
        take(operatorSlots[pick]!, operatorWeights[pick]!);
      }
    }
    if (advantage !== undefined && this.options.method === 'reins') {
      for (let i = 0; i < this.options.policyBatch; i++) {
        const pick = pickIndex(this.random, advantage.slots.length);
        take(advantage.slots[pick]!, advantage.weights[pick]!);
      }
    }
    return { slots, weights };
  }
}

/**
 * The sampled items over the few slots they read, renumbered as rows of those slots' features; an
 * item with a tick replaced since the round began is left out.
 */
function compactItems(pairs: readonly PairItem[], labels: readonly LabelItem[], current: (slot: number) => boolean): { slots: number[]; pairs: PairItem[]; labels: LabelItem[] } {
  const slots: number[] = [];
  const rowOf = new Map<number, number>();
  const row = (slot: number) => {
    let at = rowOf.get(slot);
    if (at === undefined) {
      at = slots.push(slot) - 1;
      rowOf.set(slot, at);
    }
    return at;
  };
  const keptPairs = pairs.filter((pair) => pair.first.every(current) && pair.second.every(current)).map((pair) => ({ ...pair, first: pair.first.map(row), second: pair.second.map(row) }));
  const keptLabels = labels.filter((label) => current(label.row)).map((label) => ({ ...label, row: row(label.row) }));
  return { slots, pairs: keptPairs, labels: keptLabels };
}

function sampleItems<T>(items: readonly T[], count: number, random: SeededRandom): T[] {
  if (items.length <= count) return [...items];
  return Array.from({ length: count }, () => items[pickIndex(random, items.length)]!);
}

function dedupeLabels(labels: LabelItem[]): LabelItem[] {
  const seen = new Map<string, LabelItem>();
  for (const label of labels) seen.set(label.id, label);
  return [...seen.values()];
}

function pickIndex(random: SeededRandom, count: number): number {
  return Math.min(count - 1, Math.floor(random.next() * count));
}
