// The policy learner's imagined updates of the actor (DESIGN §3 (b')): where rollouts start among the
// held ticks, and how the actor's features and actions meet the world model's. The rolling, the critic
// and the actor's loss are imaginedCritic.ts'. Off unless `imagination.rollouts` > 0; an update runs
// only once the policy worker holds the world model's weights and the reward ensemble has learned.
import * as tf from '@tensorflow/tfjs-core';
import type { FeatureNorm } from '../core/util/featureNorm.ts';
import type { SeededRandom } from '../core/util/seededRandom.ts';
import { actionFeatures } from '../worldmodel/replayBatch.ts';
import type { Rssm } from '../worldmodel/rssm.ts';
import type { ActorTrainer } from './actorTraining.ts';
import type { ImaginedCritic, RolloutStarts } from './imaginedCritic.ts';
import { pickIndex } from './randomPick.ts';
import type { RewardEnsemble } from './rewardEnsemble.ts';
import type { TickBuffer } from './tickBuffer.ts';

export class ImaginedUpdates {
  constructor(
    readonly critic: ImaginedCritic,
    private readonly buffer: TickBuffer,
    private readonly random: SeededRandom,
    /** The robot's largest forward speed (m/s) and turn rate (rad/s): the actor's ±1. */
    private readonly limits: readonly [number, number],
  ) {}

  /** One imagined update every this many actor steps. */
  get everyActorSteps(): number {
    return this.critic.options.everyActorSteps;
  }

  /**
   * One imagined update of the actor and critic from runs of held ticks; the mean reward its rollouts
   * earned, or undefined when no run of current ticks could start one.
   */
  step(
    rssm: Rssm,
    reward: RewardEnsemble,
    actor: ActorTrainer,
    held: readonly number[],
    norm: FeatureNorm,
    current: (slot: number) => boolean,
  ): number | undefined {
    const critic = this.critic;
    const starts = this.rolloutStarts(held, rssm, current);
    if (starts === undefined) return undefined;
    const meanTensor = tf.tensor1d(norm.mean);
    const scaleTensor = tf.tensor1d(norm.scale);
    const [maxForward, maxTurn] = this.limits;
    const [worldForward = 1, worldTurn = 1] = rssm.config.actionLimits;
    const toWorld = tf.tensor1d([maxForward / worldForward, maxTurn / worldTurn]);
    try {
      const batch = critic.rollout(rssm, starts, {
        actor: actor.weights,
        features: (embeddings) => tf.div(tf.sub(embeddings, meanTensor), scaleTensor) as tf.Tensor2D,
        memberRewards: (features) => reward.rewards(features),
        toWorldAction: (action) => tf.clipByValue(tf.mul(action, toWorld), -1, 1) as tf.Tensor2D,
        seed: Math.floor(this.random.next() * 2 ** 30),
      });
      try {
        actor.minimise(() => critic.actorLoss(actor.weights, batch));
        return batch.meanReward;
      } finally {
        critic.release(batch);
      }
    } finally {
      tf.dispose([meanTensor, scaleTensor, toWorld]);
    }
  }

  dispose(): void {
    this.critic.dispose();
  }

  /** Runs of `warmupTicks` held ticks of one episode, step after step, ending at a randomly drawn tick. */
  private rolloutStarts(held: readonly number[], rssm: Rssm, current: (slot: number) => boolean): RolloutStarts | undefined {
    const { rollouts, warmupTicks } = this.critic.options;
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
}
