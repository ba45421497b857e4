// The policy network: a squashed Gaussian over the drive command (forward speed, turn rate), read
// from the learners' features: the standardised embedding. (DESIGN §3 puts it on the world model's
// latent state; it reads the embedding so that a policy does not change meaning each time the world
// model learning beside it moves its latent space — docs/learning.md.)
// Actions live in [−1, 1] per dimension, scaled to the robot's speed limits outside; a policy drives
// by the distribution's mode, tanh(mean).
import * as tf from '@tensorflow/tfjs-core';
import { applyMlp, initialMlpWeights, type MlpShape } from './networks.ts';

export const ACTION_SIZE = 2;
export const LOG_STD_MIN = -4;
export const LOG_STD_MAX = 0.5;
/** Demonstrated actions at a limit are pulled this far inside it: atanh(±1) is infinite. */
const ACTION_EDGE = 0.97;

export interface ActorOutput {
  /** [batch, A], before the tanh. */
  mean: tf.Tensor2D;
  /** [batch, A], squashed into [LOG_STD_MIN, LOG_STD_MAX]. */
  logStd: tf.Tensor2D;
}

export function actorShape(featureSize: number, hidden: number, layers: number): MlpShape {
  return { inputs: featureSize, hidden, layers, outputs: 2 * ACTION_SIZE };
}

export function initialActorWeights(shape: MlpShape, seed: number): tf.Variable[] {
  return initialMlpWeights(shape, seed, 0.1);
}

export function actorOutput(weights: readonly tf.Tensor[], features: tf.Tensor2D): ActorOutput {
  const out = applyMlp(weights, features);
  const mean = tf.slice(out, [0, 0], [-1, ACTION_SIZE]) as tf.Tensor2D;
  const raw = tf.slice(out, [0, ACTION_SIZE], [-1, ACTION_SIZE]);
  const logStd = tf.add(LOG_STD_MIN, tf.mul(LOG_STD_MAX - LOG_STD_MIN, tf.sigmoid(raw))) as tf.Tensor2D;
  return { mean, logStd };
}

/** The mode of the squashed distribution: tanh(mean), in [−1, 1]. */
export function actorMode(weights: readonly tf.Tensor[], features: tf.Tensor2D): tf.Tensor2D {
  return tf.tanh(actorOutput(weights, features).mean);
}

/**
 * Weighted negative log-likelihood of demonstrated actions (in [−1, 1]) under the actor, in the
 * pre-tanh space (the tanh's Jacobian does not depend on the weights), per action dimension.
 */
export function behaviourCloningLoss({ mean, logStd }: ActorOutput, actions: tf.Tensor2D, rowWeights: tf.Tensor1D): tf.Scalar {
  const edge = tf.clipByValue(actions, -ACTION_EDGE, ACTION_EDGE);
  const unsquashed = tf.atanh(edge);
  const z = tf.div(tf.sub(unsquashed, mean), tf.exp(logStd));
  const nll = tf.add(tf.mul(0.5, tf.square(z)), logStd);
  const perRow = tf.mean(nll, 1);
  return tf.div(tf.sum(tf.mul(perRow, rowWeights)), tf.maximum(tf.sum(rowWeights), 1e-6)) as tf.Scalar;
}

/** A reparameterised sample, tanh(mean + std·ε), for rollouts that backpropagate into the actor. */
export function sampleAction(weights: readonly tf.Tensor[], features: tf.Tensor2D, noise: tf.Tensor2D): { action: tf.Tensor2D; entropyProxy: tf.Tensor1D } {
  const { mean, logStd } = actorOutput(weights, features);
  const action = tf.tanh(tf.add(mean, tf.mul(tf.exp(logStd), noise))) as tf.Tensor2D;
  return { action, entropyProxy: tf.sum(logStd, 1) as tf.Tensor1D };
}
