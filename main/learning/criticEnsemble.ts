// The off-policy critics (issue 27, in the style of RLPD / HIL-SERL): an ensemble of Q networks over
// (features, action), Linear → LayerNorm → SiLU blocks as every learner's network, each with a slowly
// following target copy. The action is 2 of ~258 inputs: it is repeated `actionRepeat` times in the
// input so that the first layer gives it a share a network can learn from (measured in
// docs/learning.md: without it Q barely moved with the action). Targets take the minimum of a random
// pair of target critics (of both when there are two), the soft value of the next action the actor
// samples, with its entropy.
import * as tf from '@tensorflow/tfjs-core';
import { ACTION_SIZE, actorOutput } from './actor.ts';
import { applyMlp, applyMlpToRow, ClippedAdamStep, initialMlpWeights, readWeights, frozenWeights, type MlpShape } from './networks.ts';
import { pickIndex } from './randomPick.ts';
import type { SeededRandom } from '../core/util/seededRandom.ts';

export interface CriticOptions {
  /** Critics in the ensemble; 0 turns the off-policy actor-critic off. */
  critics: number;
  hidden: number;
  layers: number;
  learningRate: number;
  /** How many times the action is repeated in the critic's input. */
  actionRepeat: number;
  /** Per tick (10 Hz: a horizon of ~3 s at 0.97). */
  discount: number;
  /** Rewards summed before bootstrapping (3–5). */
  nStep: number;
  /** How fast the target critics follow (Polyak). */
  targetRate: number;
  /** Decoupled weight decay of the critics' weight matrices (AdamW's λ: each step shrinks them by learningRate × λ); 0: none. */
  weightDecay: number;
  /** Transitions per critic update: half the operator's, half the policy's. */
  batch: number;
  /** Critic updates per new transition held (RLPD: 20 with 10 critics; this machine: about 1 with 2). */
  updatesPerTransition: number;
  /** Critic updates before the actor follows the critics (the behaviour-cloning term alone before). */
  warmupUpdates: number;
  /** The reward: weight of the reward ensemble's mean, and how much one unit of its spread counts against it. */
  rewardWeight: number;
  uncertaintyPenalty: number;
  /** RLIF's intervention signal: the cost of each policy tick just before a takeover. */
  interventionCost: number;
  /**
   * Overridden-command pairs (transitions.ts): the operator's ticks after each takeover paired with the
   * command it overrode (0: none), and the share of each critic batch drawn from them.
   */
  overriddenPairTicks: number;
  overriddenPairShare: number;
  /** Reward of the tick where the operator says the goal was reached. */
  successReward: number;
  /** Weight of the soft actor-critic's term in the actor's loss, and of the critic-filtered behaviour cloning. */
  actorWeight: number;
  filteredCloningWeight: number;
  /** Whether behaviour cloning keeps only the operator's ticks where the critics prefer the operator's action. */
  filterCloning: boolean;
  /** Entropy: the temperature's start and the target the temperature is tuned toward (nats; −|A| by SAC's rule). */
  initialTemperature: number;
  targetEntropy: number;
}

export const DEFAULT_CRITIC_OPTIONS: Readonly<CriticOptions> = Object.freeze({
  critics: 0,
  hidden: 128,
  layers: 2,
  learningRate: 3e-4,
  actionRepeat: 16,
  discount: 0.97,
  nStep: 3,
  targetRate: 0.005,
  weightDecay: 0,
  batch: 256,
  updatesPerTransition: 1,
  warmupUpdates: 500,
  rewardWeight: 0.1,
  uncertaintyPenalty: 1,
  interventionCost: 1,
  overriddenPairTicks: 0,
  overriddenPairShare: 0,
  successReward: 1,
  actorWeight: 1,
  filteredCloningWeight: 1,
  filterCloning: true,
  initialTemperature: 0.01,
  targetEntropy: -ACTION_SIZE,
});

export function checkCriticOptions(options: CriticOptions): void {
  const whole = (name: keyof CriticOptions, least: number) => {
    const value = options[name] as number;
    if (!(Number.isInteger(value) && value >= least)) throw new RangeError(`critics: ${name} must be a whole number ≥ ${least}, got ${value}`);
  };
  whole('critics', 0);
  if (options.critics === 1) throw new RangeError('critics: an ensemble needs 0 (off) or at least 2 critics, got 1');
  whole('hidden', 1);
  whole('layers', 1);
  whole('actionRepeat', 1);
  whole('nStep', 1);
  whole('batch', 2);
  whole('warmupUpdates', 0);
  whole('overriddenPairTicks', 0);
  if (!(options.overriddenPairShare >= 0 && options.overriddenPairShare < 1))
    throw new RangeError(`critics: overriddenPairShare must lie in [0, 1), got ${options.overriddenPairShare}`);
  for (const name of [
    'learningRate',
    'updatesPerTransition',
    'rewardWeight',
    'uncertaintyPenalty',
    'interventionCost',
    'weightDecay',
    'successReward',
    'actorWeight',
    'filteredCloningWeight',
    'initialTemperature',
  ] as const) {
    if (!(Number.isFinite(options[name]) && options[name] >= 0)) throw new RangeError(`critics: ${name} must be a finite number ≥ 0, got ${options[name]}`);
  }
  if (!(options.learningRate * options.weightDecay < 1))
    throw new RangeError(
      `critics: weightDecay × learningRate must stay below 1 (a step would zero the weights or flip them), got ${options.weightDecay} × ${options.learningRate}`,
    );
  if (!(options.discount > 0 && options.discount < 1)) throw new RangeError(`critics: discount must lie in (0, 1), got ${options.discount}`);
  if (!(options.targetRate > 0 && options.targetRate <= 1)) throw new RangeError(`critics: targetRate must lie in (0, 1], got ${options.targetRate}`);
  if (!(options.initialTemperature > 0)) throw new RangeError(`critics: initialTemperature must be > 0, got ${options.initialTemperature}`);
  if (!Number.isFinite(options.targetEntropy)) throw new RangeError(`critics: targetEntropy must be finite, got ${options.targetEntropy}`);
}

/** log π(a|s) of the tanh-squashed Gaussian for pre-tanh samples u = mean + std·ε. */
export function squashedLogProb(logStd: tf.Tensor2D, noise: tf.Tensor2D, unsquashed: tf.Tensor2D): tf.Tensor1D {
  const gaussian = tf.sub(tf.mul(-0.5, tf.square(noise)), tf.add(logStd, 0.5 * Math.log(2 * Math.PI)));
  // log(1 − tanh(u)²) = 2·(log 2 − u − softplus(−2u)), stable for large |u|.
  const jacobian = tf.mul(2, tf.sub(tf.sub(Math.log(2), unsquashed), tf.softplus(tf.mul(-2, unsquashed))));
  return tf.sum(tf.sub(gaussian, jacobian), 1) as tf.Tensor1D;
}

/** A reparameterised sample of the actor: the action in [−1, 1] and its log-probability. */
export function sampleWithLogProb(actor: readonly tf.Tensor[], features: tf.Tensor2D, noise: tf.Tensor2D): { action: tf.Tensor2D; logProb: tf.Tensor1D } {
  const { mean, logStd } = actorOutput(actor, features);
  const unsquashed = tf.add(mean, tf.mul(tf.exp(logStd), noise)) as tf.Tensor2D;
  return { action: tf.tanh(unsquashed) as tf.Tensor2D, logProb: squashedLogProb(logStd, noise, unsquashed) };
}

/**
 * The critics' mean and spread for one row of standardised features and an action in the actor's units,
 * on the weights' arrays (applyMlpToRow): what the cockpit shows each tick, without TF.js. `input` is
 * scratch space of the critics' input size.
 */
export function criticValueOfRow(
  critics: readonly (readonly Float32Array[])[],
  shape: MlpShape,
  actionRepeat: number,
  features: Float32Array,
  action: readonly [number, number],
  input: Float32Array = new Float32Array(shape.inputs),
): { value: number; spread: number } {
  input.set(features);
  const [forward, turn] = action.map((value) => Math.max(-1, Math.min(1, value)));
  for (let copy = 0; copy < actionRepeat; copy++) {
    input[features.length + copy * 2] = forward!;
    input[features.length + copy * 2 + 1] = turn!;
  }
  const values = critics.map((weights) => applyMlpToRow(shape, weights, input)[0]!);
  const value = values.reduce((a, b) => a + b, 0) / values.length;
  return { value, spread: Math.sqrt(values.reduce((sum, v) => sum + (v - value) ** 2, 0) / values.length) };
}

export class CriticEnsemble {
  readonly options: CriticOptions;
  readonly shape: MlpShape;
  readonly online: tf.Variable[][];
  private readonly target: tf.Variable[][];
  private readonly optimisers: ClippedAdamStep[];
  /** log of the entropy temperature, tuned toward the target entropy. */
  readonly logTemperature: tf.Variable;
  private readonly temperatureOptimiser: tf.Optimizer;
  updates = 0;

  /**
   * `evaluation`: one critic that judges candidates and never trains the actor (the promotion gate's
   * fitted-Q evaluation); it learns from the same transitions with targets of its own.
   */
  constructor(featureSize: number, options: CriticOptions, seed: number, role: 'actor' | 'evaluation' = 'actor') {
    checkCriticOptions(options);
    if (role === 'evaluation') options = { ...options, critics: 1 };
    this.options = options;
    this.shape = { inputs: featureSize + ACTION_SIZE * options.actionRepeat, hidden: options.hidden, layers: options.layers, outputs: 1 };
    const firstSeed = seed * 1000 + (role === 'evaluation' ? 900 : 500);
    this.online = Array.from({ length: options.critics }, (_, critic) => initialMlpWeights(this.shape, firstSeed + critic));
    this.target = this.online.map((weights) => weights.map((weight) => tf.variable(weight.clone(), false)));
    this.optimisers = this.online.map((weights) => new ClippedAdamStep(weights, options.learningRate, 10));
    this.logTemperature = tf.variable(tf.scalar(Math.log(options.initialTemperature)));
    this.temperatureOptimiser = tf.train.adam(options.learningRate);
  }

  get temperature(): number {
    return Math.exp(this.logTemperature.dataSync()[0]!);
  }

  /** Each critic's Q for rows of features and actions in [−1, 1]: [critics] tensors of [batch]. */
  values(weights: readonly (readonly tf.Tensor[])[], features: tf.Tensor2D, actions: tf.Tensor2D): tf.Tensor1D[] {
    const input = this.input(features, actions);
    return weights.map((critic) => tf.squeeze(applyMlp(critic, input), [1]) as tf.Tensor1D);
  }

  /** The online critics' values (no gradient is asked of them here). */
  onlineValues(features: tf.Tensor2D, actions: tf.Tensor2D): tf.Tensor1D[] {
    return this.values(this.online, features, actions);
  }

  /** The critics' minimum over the whole ensemble, online weights. */
  minimum(features: tf.Tensor2D, actions: tf.Tensor2D): tf.Tensor1D {
    const all = this.onlineValues(features, actions);
    return all.reduce((a, b) => tf.minimum(a, b)) as tf.Tensor1D;
  }

  /**
   * The soft value of the next states as the target critics see it: min over a random pair of
   * Q(s', a') − α·log π(a'|s'), a' sampled by the actor. [batch].
   */
  targetValue(actor: readonly tf.Tensor[], nextFeatures: tf.Tensor2D, random: SeededRandom): tf.Tensor1D {
    const noise = tf.randomNormal([nextFeatures.shape[0], ACTION_SIZE], 0, 1, 'float32', Math.floor(random.next() * 2 ** 30)) as tf.Tensor2D;
    const { action, logProb } = sampleWithLogProb(actor, nextFeatures, noise);
    const pair = this.randomPair(random);
    const values = this.values(
      pair.map((index) => this.target[index]!),
      nextFeatures,
      action,
    );
    const least = values.reduce((a, b) => tf.minimum(a, b));
    return tf.sub(least, tf.mul(this.temperature, logProb)) as tf.Tensor1D;
  }

  /** One step of every critic toward `targets` [batch]; the mean squared error, or NaN where a step was skipped. */
  update(features: tf.Tensor2D, actions: tf.Tensor2D, targets: tf.Tensor1D): number {
    const input = this.input(features, actions);
    let total = 0;
    try {
      for (let critic = 0; critic < this.online.length; critic++) {
        const loss = this.optimisers[critic]!.minimise(() =>
          tf.tidy(() => tf.mean(tf.square(tf.sub(tf.squeeze(applyMlp(this.online[critic]!, input), [1]), targets))) as tf.Scalar),
        );
        total += loss;
        if (this.options.weightDecay > 0 && Number.isFinite(loss)) this.decay(this.online[critic]!);
      }
    } finally {
      input.dispose();
    }
    this.followTargets();
    this.updates++;
    return total / this.online.length;
  }

  /** AdamW's decoupled decay of a critic's weight matrices (not its biases, gains or shifts). */
  private decay(weights: readonly tf.Variable[]): void {
    const keep = 1 - this.options.learningRate * this.options.weightDecay;
    tf.tidy(() => {
      for (const weight of weights) if (weight.rank === 2) weight.assign(tf.mul(weight, keep));
    });
  }

  /** One step of the temperature toward the target entropy, from the log-probabilities of fresh samples. */
  tuneTemperature(logProb: tf.Tensor1D): void {
    const detached = tf.tidy(() => tf.add(logProb, this.options.targetEntropy));
    try {
      // A sample that is not finite says nothing about the entropy: the temperature is left as it is.
      if (!tf.tidy(() => tf.all(tf.isFinite(detached)).dataSync()[0] === 1)) return;
      this.temperatureOptimiser.minimize(() => tf.neg(tf.mul(this.logTemperature, tf.mean(detached))) as tf.Scalar, false, [this.logTemperature]);
      // A temperature that collapsed or exploded says nothing more: kept within [1e-4, 1].
      tf.tidy(() => this.logTemperature.assign(tf.clipByValue(this.logTemperature, Math.log(1e-4), 0)));
    } finally {
      detached.dispose();
    }
  }

  /** Copies of the online critics' weights (checkpoints carry them). */
  weightsOf(): Float32Array[][] {
    return this.online.map((weights) => readWeights(weights));
  }

  /** Takes saved critics of this shape (online and target alike); throws if they do not fit. */
  load(saved: readonly (readonly Float32Array[])[]): void {
    if (saved.length !== this.online.length) throw new RangeError(`critics: ${saved.length} saved, this ensemble has ${this.online.length}`);
    const frozen = saved.map((values) => frozenWeights(this.shape, values));
    try {
      tf.tidy(() =>
        frozen.forEach((weights, critic) =>
          weights.forEach((weight, index) => {
            this.online[critic]![index]!.assign(weight);
            this.target[critic]![index]!.assign(weight);
          }),
        ),
      );
    } finally {
      tf.dispose(frozen.flat());
    }
  }

  dispose(): void {
    for (const optimiser of this.optimisers) optimiser.dispose();
    this.temperatureOptimiser.dispose();
    tf.dispose([...this.online.flat(), ...this.target.flat(), this.logTemperature]);
  }

  private input(features: tf.Tensor2D, actions: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => tf.concat([features, tf.tile(actions, [1, this.options.actionRepeat])], 1) as tf.Tensor2D);
  }

  private randomPair(random: SeededRandom): number[] {
    const count = this.online.length;
    if (count <= 2) return [...Array(count).keys()];
    const first = pickIndex(random, count);
    const second = (first + 1 + pickIndex(random, count - 1)) % count;
    return [first, second];
  }

  private followTargets(): void {
    const rate = this.options.targetRate;
    tf.tidy(() =>
      this.online.forEach((weights, critic) =>
        weights.forEach((weight, index) => {
          const target = this.target[critic]![index]!;
          target.assign(tf.add(tf.mul(1 - rate, target), tf.mul(rate, weight)));
        }),
      ),
    );
  }
}
