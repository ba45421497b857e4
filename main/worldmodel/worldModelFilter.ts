// The world model as the control loop uses it, one tick at a time: it filters each embedding into
// the latent state the policy reads, and scores how surprising the tick was. It holds its own copy of
// the weights — the learner trains in another thread and hands new weights over between ticks.
import * as tf from '@tensorflow/tfjs-core';
import type { DriveCommand } from '../core/messages.ts';
import { UNTRAINED_VERSION, type Belief, type BeliefFilter } from '../core/belief.ts';
import type { NamedArray } from './checkpointFile.ts';
import { actionFeatures } from './replayBatch.ts';
import { Rssm, type RssmState } from './rssm.ts';
import { loadNamedWeights } from './rssmWeights.ts';
import type { WorldModelConfig } from './worldModelConfig.ts';

export class WorldModelFilter implements BeliefFilter {
  private readonly rssm: Rssm;
  private state: RssmState;
  /** The embedding the state was last filtered from (kept as the tensor it was): the start of the change the next tick measures. */
  private previousObservation: tf.Tensor2D | undefined;
  /** The weights' version (a learner checkpoint's, or UNTRAINED_VERSION). */
  version = UNTRAINED_VERSION;

  /** Whether the filter still runs its own random weights. */
  get untrained(): boolean {
    return this.version === UNTRAINED_VERSION;
  }

  constructor(
    readonly config: WorldModelConfig,
    seed = 1,
  ) {
    this.rssm = new Rssm(config, seed);
    this.state = this.rssm.initial(1);
  }

  /** Filters one tick: the command that went out since the last one, then the embedding seen now. */
  step(previousCommand: DriveCommand, embedding: Float32Array): Belief {
    if (embedding.length !== this.config.embeddingSize)
      throw new RangeError(`world model: embedding of ${embedding.length} values, expected ${this.config.embeddingSize}`);
    const action = tf.tensor2d(actionFeatures(previousCommand, this.config), [1, this.config.actionSize]);
    // A copy: TF.js keeps the array it is given, and the next tick compares against this one, so a
    // caller that refills its embedding in place must not move the start of the change.
    const observation = tf.tensor2d(Float32Array.from(embedding), [1, embedding.length]);
    const observed = this.rssm.observe(this.state, action, observation, this.previousObservation);
    const latent = tf.concat([observed.state.deterministic, observed.state.stochastic], 1);
    tf.dispose([action, this.state.deterministic, this.state.stochastic, ...(this.previousObservation ? [this.previousObservation] : [])]);
    this.state = observed.state;
    this.previousObservation = observation;
    const step: Belief = {
      latent: latent.dataSync() as Float32Array,
      surpriseNats: observed.surpriseNats.dataSync()[0]!,
      predictionError: observed.predictionError.dataSync()[0]!,
      dimensionErrors: observed.dimensionErrors.dataSync() as Float32Array,
      changeErrors: observed.changeErrors.dataSync() as Float32Array,
      version: this.version,
    };
    tf.dispose([latent, observed.surpriseNats, observed.predictionError, observed.dimensionErrors, observed.changeErrors]);
    return step;
  }

  /**
   * Predicted embeddings for the next ticks under the given commands, from the present belief:
   * [commands.length × embeddingSize], row by row.
   */
  imagine(commands: readonly DriveCommand[]): Float32Array {
    if (commands.length === 0) return new Float32Array(0);
    const actions = new Float32Array(commands.length * this.config.actionSize);
    commands.forEach((command, index) => actionFeatures(command, this.config, actions, index * this.config.actionSize));
    // The values are read outside tidy: tidy would walk a returned array element by element.
    const input = tf.tensor3d(actions, [1, commands.length, this.config.actionSize]);
    const imagined = this.rssm.imagine(this.state, input);
    const values = imagined.dataSync() as Float32Array;
    tf.dispose([input, imagined]);
    return values;
  }

  /** Forgets the belief: a new episode, or the robot was moved by hand. */
  reset(): void {
    tf.dispose([this.state.deterministic, this.state.stochastic]);
    this.state = this.rssm.initial(1);
    this.previousObservation?.dispose();
    this.previousObservation = undefined;
  }

  /** Takes the learner's newer weights, in namedWeights order; throws if they do not fit. */
  loadWeights(weights: readonly NamedArray[], version: string): void {
    loadNamedWeights(this.rssm.weights, weights);
    this.version = version;
  }
}
