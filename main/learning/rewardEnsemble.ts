// The reward model (DESIGN §3): an ensemble of small networks, each reading one tick's features and
// giving its reward. Trained with the Bradley–Terry likelihood on segment pairs (the mean reward over
// each segment decides which one is better) and a logistic likelihood on single ticks labelled good
// or bad (ratings, the policy's ticks before a takeover, the operator's ticks after it). Each member
// sees its own bootstrap share of the feedback; their mean is the learned reward and their spread
// the uncertainty that picks questions.
import * as tf from '@tensorflow/tfjs-core';
import { applyMlp, ClippedAdamStep, initialMlpWeights, readWeights, type MlpShape } from './networks.ts';

export interface RewardEnsembleOptions {
  members: number;
  hidden: number;
  layers: number;
  learningRate: number;
  /** Chance that a member sees a given feedback item (its bootstrap share). */
  shareOfFeedback: number;
  seed: number;
}

export const DEFAULT_REWARD_ENSEMBLE_OPTIONS: Readonly<RewardEnsembleOptions> = Object.freeze({
  members: 5,
  hidden: 64,
  layers: 2,
  learningRate: 1e-3,
  shareOfFeedback: 0.8,
  seed: 11,
});

/** Two segments' ticks (rows of a feature matrix) and how much the first is preferred: 1, 0 or ½. */
export interface PairItem {
  id: string;
  first: readonly number[];
  second: readonly number[];
  firstPreferred: number;
  weight: number;
}

/** One tick labelled good (1) or bad (0). */
export interface LabelItem {
  id: string;
  row: number;
  good: number;
  weight: number;
}

export class RewardEnsemble {
  readonly options: RewardEnsembleOptions;
  private readonly members: tf.Variable[][];
  private readonly steps: ClippedAdamStep[];
  private trainedSteps = 0;

  constructor(
    readonly featureSize: number,
    options: Partial<RewardEnsembleOptions> = {},
  ) {
    this.options = { ...DEFAULT_REWARD_ENSEMBLE_OPTIONS, ...options };
    if (!(Number.isInteger(this.options.members) && this.options.members >= 2))
      throw new RangeError(`a reward ensemble needs at least 2 members, got ${this.options.members}`);
    const shape: MlpShape = { inputs: featureSize, hidden: this.options.hidden, layers: this.options.layers, outputs: 1 };
    this.members = Array.from({ length: this.options.members }, (_, member) => initialMlpWeights(shape, this.options.seed * 100 + member, 0.1));
    this.steps = this.members.map((weights) => new ClippedAdamStep(weights, this.options.learningRate, 10));
  }

  /** Whether it has learned anything yet (before that, its estimates mean nothing). */
  get trained(): boolean {
    return this.trainedSteps > 0;
  }

  /**
   * One gradient step per member on its bootstrap share of the items; `features` [rows, F] holds
   * every row the items point at. Returns the members' mean loss (NaN when nothing could be learned).
   */
  train(features: tf.Tensor2D, pairs: readonly PairItem[], labels: readonly LabelItem[]): number {
    if (pairs.length === 0 && labels.length === 0) return Number.NaN;
    let total = 0;
    let counted = 0;
    this.members.forEach((weights, member) => {
      const myPairs = pairs.filter((item) => this.sees(member, item.id));
      const myLabels = labels.filter((item) => this.sees(member, item.id));
      if (myPairs.length === 0 && myLabels.length === 0) return;
      const loss = this.steps[member]!.minimise(() => tf.tidy(() => memberLoss(weights, features, myPairs, myLabels)));
      if (Number.isFinite(loss)) {
        total += loss;
        counted++;
      }
    });
    if (counted > 0) this.trainedSteps++;
    return counted > 0 ? total / counted : Number.NaN;
  }

  /** Copies of every member's weights, for a frozen copy elsewhere (another thread). */
  memberWeights(): Float32Array[][] {
    return this.members.map((weights) => readWeights(weights));
  }

  /** Takes weights trained elsewhere (memberWeights() of an ensemble of the same shape); throws if they do not fit. */
  load(members: readonly (readonly Float32Array[])[]): void {
    if (members.length !== this.members.length) throw new RangeError(`reward ensemble: ${members.length} members offered, it has ${this.members.length}`);
    members.forEach((values, member) => {
      const weights = this.members[member]!;
      if (values.length !== weights.length) throw new RangeError(`reward ensemble: member ${member} has ${values.length} weights, expected ${weights.length}`);
      values.forEach((value, index) => {
        if (value.length !== weights[index]!.size || !value.every(Number.isFinite))
          throw new RangeError(`reward ensemble: member ${member} weight ${index} does not fit or is not finite`);
      });
    });
    tf.tidy(() =>
      members.forEach((values, member) =>
        values.forEach((value, index) => this.members[member]![index]!.assign(tf.tensor(value, this.members[member]![index]!.shape))),
      ),
    );
    this.trainedSteps = Math.max(this.trainedSteps, 1);
  }

  /** Every member's reward for every row: [members][rows]. */
  rewards(features: tf.Tensor2D): Float32Array[] {
    return this.members.map((weights) => tf.tidy(() => applyMlp(weights, features).dataSync() as Float32Array));
  }

  /**
   * Each row's reward as the ensemble sees it: the members' mean, and their spread (standard
   * deviation), which is large where the feedback has not pinned the reward down.
   */
  meanAndSpread(features: tf.Tensor2D): { mean: Float32Array; spread: Float32Array } {
    return memberStatistics(this.rewards(features));
  }

  /**
   * The members' spread (standard deviation) of the Bradley–Terry logit "first is better", for two
   * segments given as row lists into `features`.
   */
  pairDisagreement(features: tf.Tensor2D, first: readonly number[], second: readonly number[]): number {
    const all = this.rewards(features);
    const logits = all.map((rewards) => segmentMean(rewards, first) - segmentMean(rewards, second));
    const mean = logits.reduce((a, b) => a + b, 0) / logits.length;
    return Math.sqrt(logits.reduce((sum, logit) => sum + (logit - mean) ** 2, 0) / logits.length);
  }

  dispose(): void {
    for (const step of this.steps) step.dispose();
    for (const weights of this.members) tf.dispose(weights);
  }

  private sees(member: number, id: string): boolean {
    return hashUnit(`${this.options.seed}:${member}:${id}`) < this.options.shareOfFeedback;
  }
}

/** Per row, the mean and standard deviation over members of `all` ([members][rows]). */
export function memberStatistics(all: readonly Float32Array[]): { mean: Float32Array; spread: Float32Array } {
  const rows = all[0]?.length ?? 0;
  const mean = new Float32Array(rows);
  const spread = new Float32Array(rows);
  for (const member of all) for (let row = 0; row < rows; row++) mean[row]! += member[row]! / all.length;
  for (const member of all) for (let row = 0; row < rows; row++) spread[row]! += (member[row]! - mean[row]!) ** 2 / all.length;
  for (let row = 0; row < rows; row++) spread[row] = Math.sqrt(spread[row]!);
  return { mean, spread };
}

function segmentMean(rewards: Float32Array, rows: readonly number[]): number {
  let sum = 0;
  for (const row of rows) sum += rewards[row]!;
  return rows.length > 0 ? sum / rows.length : 0;
}

function memberLoss(weights: readonly tf.Tensor[], features: tf.Tensor2D, pairs: readonly PairItem[], labels: readonly LabelItem[]): tf.Scalar {
  const rows: number[] = [];
  const segmentIds: number[] = [];
  const counts: number[] = [];
  pairs.forEach((pair, index) => {
    for (const [side, ticks] of [pair.first, pair.second].entries()) {
      rows.push(...ticks);
      for (let i = 0; i < ticks.length; i++) segmentIds.push(index * 2 + side);
      counts.push(Math.max(1, ticks.length));
    }
  });
  const labelStart = rows.length;
  rows.push(...labels.map((label) => label.row));
  const rewards = tf.reshape(applyMlp(weights, tf.gather(features, tf.tensor1d(rows, 'int32')) as tf.Tensor2D), [-1]);
  const terms: tf.Scalar[] = [];
  let weightSum = 0;
  if (pairs.length > 0) {
    const pairRewards = tf.slice(rewards, [0], [labelStart]) as tf.Tensor1D;
    const sums = tf.unsortedSegmentSum(pairRewards, tf.tensor1d(segmentIds, 'int32'), pairs.length * 2);
    const means = tf.reshape(tf.div(sums, tf.tensor1d(counts)), [pairs.length, 2]);
    const logits = tf.reshape(tf.sub(tf.slice(means, [0, 0], [-1, 1]), tf.slice(means, [0, 1], [-1, 1])), [-1]) as tf.Tensor1D;
    const targets = tf.tensor1d(pairs.map((pair) => pair.firstPreferred));
    const pairWeights = tf.tensor1d(pairs.map((pair) => pair.weight));
    terms.push(tf.sum(tf.mul(sigmoidCrossEntropy(logits, targets), pairWeights)) as tf.Scalar);
    weightSum += pairs.reduce((sum, pair) => sum + pair.weight, 0);
  }
  if (labels.length > 0) {
    const labelRewards = tf.slice(rewards, [labelStart], [labels.length]) as tf.Tensor1D;
    const targets = tf.tensor1d(labels.map((label) => label.good));
    const labelWeights = tf.tensor1d(labels.map((label) => label.weight));
    terms.push(tf.sum(tf.mul(sigmoidCrossEntropy(labelRewards, targets), labelWeights)) as tf.Scalar);
    weightSum += labels.reduce((sum, label) => sum + label.weight, 0);
  }
  // A little weight decay on the outputs keeps rewards on a scale where the logistic terms stay informative.
  const scale = tf.mul(1e-3, tf.mean(tf.square(rewards)));
  return tf.add(tf.div(tf.addN(terms), Math.max(weightSum, 1e-6)), scale) as tf.Scalar;
}

/** −[y·log σ(x) + (1 − y)·log(1 − σ(x))], stable for any x. */
function sigmoidCrossEntropy(logits: tf.Tensor1D, targets: tf.Tensor1D): tf.Tensor1D {
  return tf.add(tf.sub(tf.relu(logits), tf.mul(logits, targets)), tf.log1p(tf.exp(tf.neg(tf.abs(logits))))) as tf.Tensor1D;
}

/** A stable hash of a string to [0, 1). */
function hashUnit(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return (hash >>> 0) / 4294967296;
}
