// The policy learner's off-policy actor-critic on real transitions (issue 27, RLPD / HIL-SERL's recipe
// sized for two cores): critic updates on n-step transitions drawn half from the operator's ticks and
// half from the policy's, rewards relabelled at every draw —
//   the reward ensemble's mean (its spread counted against it) × `rewardWeight`,
//   − `interventionCost` on each policy tick just before a takeover (RLIF; the operator's ticks after
//     it cost nothing), and on each overridden-command pair (transitions.ts: the command the operator
//     overrode, on the operator's state just after, charged the takeover it brought),
//   + `successReward` on the tick where the operator says the goal was reached (terminal);
// and an actor step: the soft actor-critic's term on the same states, plus behaviour cloning of the
// operator kept only where the critics' minimum prefers the operator's action to the actor's own, so it
// fades as the critics earn trust, plus the pull toward the driving version. No term rewards speed or
// action size: a faster policy has to come from the discounted reward.
import * as tf from '@tensorflow/tfjs-core';
import type { SeededRandom } from '../core/util/seededRandom.ts';
import { ACTION_SIZE, actorOutput } from './actor.ts';
import { actorUnitCommands, type ActorTrainer, type WeightedSlots } from './actorTraining.ts';
import { CriticEnsemble, sampleWithLogProb, type CriticOptions } from './criticEnsemble.ts';
import type { FeedbackSignals } from './feedbackTypes.ts';
import { memberStatistics, type RewardEnsemble } from './rewardEnsemble.ts';
import type { TickBuffer } from './tickBuffer.ts';
import { drawTransitions, indexTransitions, type TransitionBatch, type TransitionIndex } from './transitions.ts';

type Features = (slots: readonly number[]) => tf.Tensor2D;

/** What one round of off-policy updates works from (the round's view of the buffer). */
export interface OffPolicyRound {
  index: TransitionIndex;
  beforeTakeover: ReadonlySet<number>;
  features: Features;
  current: (slot: number) => boolean;
  reward: RewardEnsemble | undefined;
  /**
   * The reward ensemble's term for each slot scored in this round, filled as batches are drawn:
   * relabelled each round (the ensemble has learned since the last one; within one it moves little).
   */
  learnedRewards: Map<number, number>;
}

export interface CriticFigures {
  updates: number;
  loss: number;
  /** The share of the last filtered-cloning batch the critics let through (operator preferred). */
  cloningKept: number;
  temperature: number;
}

export class OffPolicyUpdates {
  private lastLoss = Number.NaN;
  private cloningKept = Number.NaN;
  /** Ticks added to the buffer when the critics were last given their updates. */
  private countedUpTo = 0;
  private credit = 0;

  constructor(
    readonly critics: CriticEnsemble,
    /** The promotion gate's critic (promotionGate.ts): trained on the same transitions, never on the actor's loss. */
    readonly evaluator: CriticEnsemble,
    private readonly buffer: TickBuffer,
    private readonly random: SeededRandom,
    /** The robot's largest forward speed (m/s) and turn rate (rad/s): the actor's ±1. */
    private readonly limits: readonly [number, number],
  ) {}

  /** The critics and the evaluation critic for `options`, on `buffer`'s ticks: how the learner and the probe make them. */
  static create(buffer: TickBuffer, options: CriticOptions, seed: number, random: SeededRandom, limits: readonly [number, number]): OffPolicyUpdates {
    const critics = new CriticEnsemble(buffer.embeddingSize, options, seed);
    return new OffPolicyUpdates(critics, new CriticEnsemble(buffer.embeddingSize, options, seed, 'evaluation'), buffer, random, limits);
  }

  get options() {
    return this.critics.options;
  }

  /** Whether the actor follows the critics yet (after `warmupUpdates` critic updates). */
  get trusted(): boolean {
    return this.critics.updates >= this.options.warmupUpdates;
  }

  figures(): CriticFigures {
    return { updates: this.critics.updates, loss: this.lastLoss, cloningKept: this.cloningKept, temperature: this.critics.temperature };
  }

  begin(held: readonly number[], signals: FeedbackSignals): TransitionIndex {
    const index = indexTransitions(this.buffer, held, signals, this.options.overriddenPairTicks);
    // Every tick added since the last round is one new transition, the policy's own driving included.
    const added = this.buffer.total - this.countedUpTo;
    this.countedUpTo = this.buffer.total;
    this.credit += added * this.options.updatesPerTransition;
    return index;
  }

  /** The round's due critic updates spread over `actorSteps` actor steps: how many to run before the next one. */
  dueNow(actorStepsLeft: number): number {
    if (actorStepsLeft <= 0) return 0;
    const now = Math.ceil(this.credit / actorStepsLeft);
    return Math.max(0, Math.min(now, Math.floor(this.credit)));
  }

  /** One critic update; false when no transition could be drawn. */
  criticStep(round: OffPolicyRound, actor: readonly tf.Tensor[]): boolean {
    const { batch: size, nStep, discount, overriddenPairShare } = this.options;
    const batch = drawTransitions(round.index, size, nStep, discount, this.random, round.current, overriddenPairShare);
    this.credit = Math.max(0, this.credit - 1);
    if (batch.starts.length === 0) return false;
    const returns = this.returns(batch, round);
    const targets = tf.tidy(() => this.targets(batch, round, actor, this.critics, returns));
    const evaluatorTargets = tf.tidy(() => this.targets(batch, round, actor, this.evaluator, returns));
    const x = round.features(batch.starts);
    const actions = this.actionsAt(batch.actionSlots);
    try {
      this.lastLoss = this.critics.update(x, actions, targets);
      this.evaluator.update(x, actions, evaluatorTargets);
    } finally {
      tf.dispose([x, actions, targets, evaluatorTargets]);
    }
    return true;
  }

  /** Each row's TD target: its relabelled n-step return plus the discounted soft value where it bootstraps. [batch] */
  targets(
    batch: TransitionBatch,
    round: OffPolicyRound,
    actor: readonly tf.Tensor[],
    critics: CriticEnsemble = this.critics,
    returns: Float32Array = this.returns(batch, round),
  ): tf.Tensor1D {
    const bootstrapSlots = batch.bootstrap.map((slot, row) => (slot >= 0 ? slot : batch.starts[row]!));
    const next = round.features(bootstrapSlots);
    const value = critics.targetValue(actor, next, this.random);
    return tf.add(tf.tensor1d(returns), tf.mul(tf.tensor1d(batch.bootstrapDiscount), value)) as tf.Tensor1D;
  }

  /**
   * One actor step: the soft actor-critic's term on drawn states (scaled by the critics' mean |Q|, as
   * TD3+BC does, so its weight does not depend on the reward's scale), the operator's batch cloned where
   * the critics prefer the operator's action, and the pull toward the reference. The loss.
   */
  actorStep(round: OffPolicyRound, actor: ActorTrainer, operatorBatch: WeightedSlots): number {
    const drawn = drawTransitions(round.index, this.options.batch, 1, this.options.discount, this.random, round.current);
    if (drawn.starts.length === 0 && operatorBatch.slots.length === 0) return Number.NaN;
    const states = drawn.starts.length > 0 ? round.features(drawn.starts) : undefined;
    const operatorX = operatorBatch.slots.length > 0 ? round.features(operatorBatch.slots) : undefined;
    const filtered = operatorX === undefined ? operatorBatch : this.filterCloning(operatorBatch, operatorX, actor);
    const seed = Math.floor(this.random.next() * 2 ** 30);
    try {
      let logProbSeen: tf.Tensor1D | undefined;
      const loss = actor.minimise(() => {
        const terms: tf.Scalar[] = [];
        if (states !== undefined && this.options.actorWeight > 0) {
          const noise = tf.randomNormal([states.shape[0], ACTION_SIZE], 0, 1, 'float32', seed) as tf.Tensor2D;
          const { action, logProb } = sampleWithLogProb(actor.weights, states, noise);
          const values = this.critics.onlineValues(states, action);
          const meanQ = tf.mean(tf.stack(values), 0);
          const scale = tf.tidy(() => tf.maximum(tf.mean(tf.abs(meanQ)), 1e-3).dataSync()[0]!);
          const soft = tf.mean(tf.sub(tf.mul(this.critics.temperature, logProb), meanQ));
          terms.push(tf.mul(this.options.actorWeight / scale, soft) as tf.Scalar);
          logProbSeen = tf.keep(tf.clone(logProb));
        }
        if (operatorX !== undefined && filtered.slots.length > 0 && this.options.filteredCloningWeight > 0) {
          const rows = filtered === operatorBatch ? operatorX : round.features(filtered.slots);
          terms.push(tf.mul(this.options.filteredCloningWeight, actor.imitationLoss(filtered, rows)) as tf.Scalar);
        }
        return terms.length === 0 ? tf.scalar(0) : (tf.addN(terms) as tf.Scalar);
      });
      if (logProbSeen !== undefined) {
        this.critics.tuneTemperature(logProbSeen);
        logProbSeen.dispose();
      }
      return loss;
    } finally {
      tf.dispose([states, operatorX].filter((tensor): tensor is tf.Tensor2D => tensor !== undefined));
    }
  }

  dispose(): void {
    this.critics.dispose();
    this.evaluator.dispose();
  }

  /**
   * The operator's ticks the critics do not rank below the actor's own action there: min Q(s, a_op) ≥
   * min Q(s, mode π(s)). Every tick when `filterCloning` is off.
   */
  private filterCloning(batch: WeightedSlots, x: tf.Tensor2D, actor: ActorTrainer): WeightedSlots {
    if (!this.options.filterCloning) return batch;
    const prefers = tf.tidy(() => {
      const operator = this.critics.minimum(x, this.actionsAt(batch.slots));
      const own = this.critics.minimum(x, tf.tanh(actorOutput(actor.weights, x).mean) as tf.Tensor2D);
      return tf.greaterEqual(operator, own).dataSync() as Uint8Array;
    });
    const kept: WeightedSlots = { slots: [], weights: [] };
    batch.slots.forEach((slot, row) => {
      if (prefers[row] === 1) {
        kept.slots.push(slot);
        kept.weights.push(batch.weights[row]!);
      }
    });
    this.cloningKept = batch.slots.length > 0 ? kept.slots.length / batch.slots.length : Number.NaN;
    return kept;
  }

  /** Each row's discounted sum of relabelled rewards, less the cost of the takeover a pair's overridden command brought. */
  private returns(batch: TransitionBatch, round: OffPolicyRound): Float32Array {
    const unique = [...new Set(batch.rewardSlots.flat())];
    const rewardOf = this.rewards(unique, round);
    const returns = new Float32Array(batch.starts.length);
    batch.rewardSlots.forEach((slots, row) => {
      let sum = 0;
      let factor = 1;
      for (const slot of slots) {
        sum += factor * rewardOf.get(slot)!;
        factor *= this.options.discount;
      }
      returns[row] = sum - batch.interventions[row]! * this.options.interventionCost;
    });
    return returns;
  }

  /** The reward of each slot as of this round (relabelled: the ensemble keeps learning). */
  rewards(slots: readonly number[], round: OffPolicyRound): Map<number, number> {
    const { rewardWeight, uncertaintyPenalty, interventionCost, successReward } = this.options;
    const reward = round.reward;
    const unscored = slots.filter((slot) => !round.learnedRewards.has(slot));
    if (unscored.length > 0) {
      const learned = new Float32Array(unscored.length);
      if (reward?.trained && rewardWeight > 0) {
        const x = round.features(unscored);
        try {
          const { mean, spread } = memberStatistics(reward.rewards(x));
          for (let i = 0; i < unscored.length; i++) learned[i] = rewardWeight * (mean[i]! - uncertaintyPenalty * spread[i]!);
        } finally {
          x.dispose();
        }
      }
      unscored.forEach((slot, i) => round.learnedRewards.set(slot, learned[i]!));
    }
    const out = new Map<number, number>();
    for (const slot of slots) {
      let value = round.learnedRewards.get(slot)!;
      if (round.beforeTakeover.has(slot) && this.buffer.drivers[slot] === 'policy') value -= interventionCost;
      if (round.index.terminal[slot] === 1) value += successReward;
      out.set(slot, value);
    }
    return out;
  }

  /** The commands in effect after the ticks, in the actor's units (each limit ±1, clipped). */
  actionsAt(slots: readonly number[]): tf.Tensor2D {
    return tf.tidy(() => tf.clipByValue(tf.tensor2d(actorUnitCommands(this.buffer, slots, this.limits), [slots.length, 2]), -1, 1) as tf.Tensor2D);
  }
}
