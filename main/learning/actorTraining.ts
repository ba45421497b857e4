// The actor's updates from real ticks (DESIGN §3):
//   (a) behaviour cloning on the operator's ticks, weighted up just after each takeover;
//   (b) reward-weighted imitation of the policy's own ticks: the reward ensemble scores them and the
//       actor is pulled toward what scored above the usual (advantage-weighted regression, with the
//       ensemble's spread counted against a tick, so unknown ground earns nothing); ticks just before
//       a takeover are never imitated. Off by default (`policyBatch` 0): in the learning bench it cost
//       8–10 points of success at 20 simulated minutes (seeds 1 and 2; docs/learning.md);
//   (c) a behaviour-cloning term toward the reference (the version that drives), so an update moves
//       the policy a step, never a leap.
// With `method: 'bc'` only (a) runs, with uniform weights: the HG-DAgger baseline. The imagined
// updates (imaginedUpdates.ts) step the same weights through the same optimiser.
import * as tf from '@tensorflow/tfjs-core';
import type { SeededRandom } from '../core/util/seededRandom.ts';
import { actorOutput, actorShape, behaviourCloningLoss, initialActorWeights } from './actor.ts';
import type { TakeoverMarks } from './feedbackLabels.ts';
import { ClippedAdamStep, type MlpShape } from './networks.ts';
import { pickIndex } from './randomPick.ts';
import { memberStatistics } from './rewardEnsemble.ts';
import type { TickBuffer } from './tickBuffer.ts';

export type LearningMethod = 'reins' | 'bc';

export interface ActorTrainingOptions {
  /** 'reins': (a) weighted, (b) and (c); 'bc': (a) alone with uniform weights. */
  method: LearningMethod;
  hidden: number;
  layers: number;
  learningRate: number;
  /** Operator ticks per actor step. */
  operatorBatch: number;
  /** The policy's own ticks per actor step, for reward-weighted imitation (reins only; 0: none). */
  policyBatch: number;
  /** How much more an operator tick weighs within the learner's `nearTakeoverTicks` after a takeover (reins only). */
  nearTakeoverWeight: number;
  /** Advantage-weighted regression's temperature and weight cap (reins only). */
  advantageTemperature: number;
  maxAdvantageWeight: number;
  /** How much one unit of the ensemble's spread counts against a tick's reward. */
  uncertaintyPenalty: number;
  /** Weight of the behaviour-cloning term toward the reference version (reins only). */
  referenceWeight: number;
  /** Reward-weighted imitation reads at most this many of the newest policy ticks. */
  imitationWindowTicks: number;
  /** The robot's largest forward speed (m/s) and turn rate (rad/s): the actor's ±1. */
  limits: readonly [number, number];
}

/** The ticks one round imitates, as buffer slots. */
export interface ImitationPools {
  /** The operator's ticks and the weight of each. */
  operatorSlots: number[];
  operatorWeights: number[];
  /** The policy's ticks that were not just before a takeover, oldest first. */
  policySlots: number[];
}

export interface WeightedSlots {
  slots: number[];
  weights: number[];
}

export class ActorTrainer {
  readonly shape: MlpShape;
  readonly weights: tf.Variable[];
  private readonly optimiser: ClippedAdamStep;
  private reference: tf.Tensor[] | undefined;

  constructor(
    private readonly buffer: TickBuffer,
    private readonly options: ActorTrainingOptions,
    seed: number,
    private readonly random: SeededRandom,
  ) {
    this.shape = actorShape(buffer.embeddingSize, options.hidden, options.layers);
    this.weights = initialActorWeights(this.shape, seed);
    this.optimiser = new ClippedAdamStep(this.weights, options.learningRate, 100);
  }

  /** Frozen weights of this shape that the next updates stay near; the trainer owns them from now on. */
  holdReference(frozen: tf.Tensor[]): void {
    tf.dispose(this.reference ?? []);
    this.reference = frozen;
  }

  /** Carries on from frozen weights of this shape, which also become the reference. */
  load(frozen: tf.Tensor[]): void {
    tf.tidy(() => this.weights.forEach((variable, index) => variable.assign(frozen[index]!)));
    this.holdReference(frozen);
  }

  /** The held operator ticks (weighted up near a takeover, reins only) and the policy ticks fit to imitate. */
  pools(held: readonly number[], marks: TakeoverMarks): ImitationPools {
    const pools: ImitationPools = { operatorSlots: [], operatorWeights: [], policySlots: [] };
    for (const slot of held) {
      const driver = this.buffer.drivers[slot];
      if (driver === 'operator') {
        pools.operatorSlots.push(slot);
        const near = this.options.method === 'reins' && marks.nearTakeover.has(slot);
        pools.operatorWeights.push(near ? this.options.nearTakeoverWeight : 1);
      } else if (driver === 'policy' && !marks.beforeTakeover.has(slot)) {
        pools.policySlots.push(slot);
      }
    }
    return pools;
  }

  /**
   * The newest policy ticks worth imitating, each with exp(advantage / T) capped; `memberRewards`
   * scores slots with each reward member. Undefined when none scored above the median.
   */
  advantage(pools: ImitationPools, current: (slot: number) => boolean, memberRewards: (slots: readonly number[]) => Float32Array[]): WeightedSlots | undefined {
    // The newest policy ticks only: older ones were driven by versions long gone.
    const recentPolicySlots = pools.policySlots.slice(-this.options.imitationWindowTicks).filter(current);
    if (recentPolicySlots.length === 0) return undefined;
    const { mean, spread } = memberStatistics(memberRewards(recentPolicySlots));
    const scores = recentPolicySlots.map((_, i) => mean[i]! - this.options.uncertaintyPenalty * spread[i]!);
    const baseline = [...scores].sort((a, b) => a - b)[Math.floor(scores.length / 2)]!;
    const slots: number[] = [];
    const weights: number[] = [];
    scores.forEach((score, i) => {
      const advantage = score - baseline;
      if (advantage <= 0) return;
      slots.push(recentPolicySlots[i]!);
      weights.push(Math.min(this.options.maxAdvantageWeight, Math.exp(advantage / this.options.advantageTemperature) - 1));
    });
    return slots.length > 0 ? { slots, weights } : undefined;
  }

  /** A batch of slots to imitate with their weights; a tick replaced since the round began is left out. */
  batch(pools: ImitationPools, advantage: WeightedSlots | undefined, current: (slot: number) => boolean): WeightedSlots {
    const slots: number[] = [];
    const weights: number[] = [];
    const take = (slot: number, weight: number) => {
      if (!current(slot)) return;
      slots.push(slot);
      weights.push(weight);
    };
    if (pools.operatorSlots.length > 0) {
      for (let i = 0; i < this.options.operatorBatch; i++) {
        const pick = pickIndex(this.random, pools.operatorSlots.length);
        take(pools.operatorSlots[pick]!, pools.operatorWeights[pick]!);
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

  /** One step of (a)–(c) on a batch whose features `features` reads; the loss. */
  step(batch: WeightedSlots, features: (slots: readonly number[]) => tf.Tensor2D): number {
    return this.minimise(() => this.imitationLoss(batch, features(batch.slots)));
  }

  /**
   * (a) and (c) on a batch whose features are `x`: the weighted behaviour cloning, plus the pull toward
   * the reference (reins only). For use inside a step (its tensors are the step's to tidy).
   */
  imitationLoss(batch: WeightedSlots, x: tf.Tensor2D): tf.Scalar {
    // One forward pass serves both terms.
    const output = actorOutput(this.weights, x);
    const bc = behaviourCloningLoss(output, this.scaledActions(batch.slots), tf.tensor1d(batch.weights));
    if (this.options.method !== 'reins' || this.reference === undefined) return bc;
    const referenceMean = actorOutput(this.reference, x).mean;
    const toReference = tf.mean(tf.square(tf.sub(tf.tanh(output.mean), tf.tanh(referenceMean))));
    return tf.add(bc, tf.mul(this.options.referenceWeight, toReference)) as tf.Scalar;
  }

  /** One optimiser step on `loss` of the actor's weights (its tensors are tidied); the loss. */
  minimise(loss: () => tf.Scalar): number {
    return this.optimiser.minimise(() => tf.tidy(loss));
  }

  dispose(): void {
    this.optimiser.dispose();
    tf.dispose([...this.weights, ...(this.reference ?? [])]);
  }

  /** The demonstrated commands in the actor's units: each limit is ±1. */
  scaledActions(slots: readonly number[]): tf.Tensor2D {
    return tf.tensor2d(actorUnitCommands(this.buffer, slots, this.options.limits), [slots.length, 2]);
  }
}

/** The commands in effect after the ticks at `slots`, in the actor's units (each limit ±1), row after row. */
export function actorUnitCommands(buffer: TickBuffer, slots: readonly number[], limits: readonly [number, number]): Float32Array {
  const [maxForward, maxTurn] = limits;
  const values = new Float32Array(slots.length * 2);
  slots.forEach((slot, row) => {
    values[row * 2] = buffer.actions[slot * 2]! / maxForward;
    values[row * 2 + 1] = buffer.actions[slot * 2 + 1]! / maxTurn;
  });
  return values;
}
