// What the world model tells the control loop each tick, and the one method the loop needs of it.
import type { DriveCommand } from './messages.ts';

export interface Belief {
  /** [h, z]: the model's state after this tick, what the policy reads and memory keeps. */
  latent: Float32Array;
  /** KL(posterior ‖ prior) in nats: how much this tick told the model that it did not expect. */
  surpriseNats: number;
  /** Mean squared error of the embedding the model predicted for this tick, before seeing it (per dimension, each dimension in units of its usual spread). */
  predictionError: number;
  /** That error dimension by dimension, for a surprise that weighs each modality by its own usual level. */
  dimensionErrors: Float32Array;
  /**
   * Dimension by dimension, the error of the change since the previous tick: the change the model
   * foresaw from its reading of that tick against the change seen (NaN on a belief's first tick).
   */
  changeErrors: Float32Array;
  /** The weights that made it. */
  version: string;
}

/**
 * The shown surprise ratio (the most surprised modality's error over its usual error, held for a
 * second) at or above which the cockpit raises its alarm, naming the modality, and the review
 * timeline marks the moment. Fixed on training arenas: `reins bench worldmodel` finds the lowest ratio
 * whose alarms, counted once at their onset, come at most 0.25 times a minute in normal driving there
 * (its `surprise-threshold-calibrated` row: 15.00 on 2026-11-29, wm-xs after 1,928 steps on the
 * encoders reins-sim-encoders-3 with liveness, the usual level an arithmetic mean, the slots of
 * scoredSurpriseSlots with proprioception scored float by float; calibrated 15.00 again on the same model
 * with the LiDAR scored on the change; docs/worldmodel.md). It was 14.5
 * before proprioception was scored float by float (calibrated 14.47 and 14.52 on two models), 350
 * for the model before that (a geometric usual level, no liveness), and 3 before that, which
 * alarmed 11.5 times a minute. A model trained another way needs its own calibration.
 */
export const SURPRISE_ALARM_RATIO = 15;

/** The weights' version of a world model's own random weights, before a learner's first. */
export const UNTRAINED_VERSION = 'initial';

export interface BeliefFilter {
  /** Filters one tick: the command that went out since the last tick, then the embedding seen now. */
  step(previousCommand: DriveCommand, embedding: Float32Array): Belief;
}
