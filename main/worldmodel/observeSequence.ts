// The recurrent half of training: filter a whole replayed batch, step by step, into deterministic
// states, straight-through stochastic samples and posterior probabilities. Everything that does not
// feed the next step (prior, heads, losses) is left to the caller, batched over all steps at once.
//
// Written here with TF.js ops and differentiated by the tape. A backend may register its own fused
// kernel under RSSM_OBSERVE_SEQUENCE (the 'native' backend does: the tape would otherwise keep one
// weight gradient per step and add them up, most of a step's time); the two must agree.
import * as tf from '@tensorflow/tfjs-core';
import { categoricalProbs, dense, gruCell, layerNorm, mlp, sampleCategorical, silu } from './rssmLayers.ts';
import type { RssmWeights } from './rssmWeights.ts';
import { stochasticSize, type WorldModelConfig } from './worldModelConfig.ts';

export const RSSM_OBSERVE_SEQUENCE = 'ReinsRssmObserveSequence';

/** Time-major inputs: row t·batch + b is sequence b at step t. */
export interface SequenceInputs {
  batch: number;
  length: number;
  /** [length·batch, E] */
  embeddings: tf.Tensor2D;
  /** [length·batch, A]: the action taken just before each embedding. */
  previousActions: tf.Tensor2D;
  /** [length·batch·groups, classes] uniform (0, 1): the samples' randomness, drawn up front. */
  noise: tf.Tensor2D;
}

/** Time-major outputs, each [length·batch, ·]. */
export interface SequenceOutputs {
  deterministic: tf.Tensor2D;
  stochastic: tf.Tensor2D;
  posterior: tf.Tensor2D;
}

export function observeSequence(weights: RssmWeights, config: WorldModelConfig, inputs: SequenceInputs): SequenceOutputs {
  if (tf.getKernel(RSSM_OBSERVE_SEQUENCE, tf.getBackend()) !== undefined) return fusedObserveSequence(weights, config, inputs);
  return tapedObserveSequence(weights, config, inputs);
}

/** The weights the recurrence reads, by name, in the order a fused kernel takes them. */
export function sequenceWeightInputs(weights: RssmWeights): Record<string, tf.Variable> {
  const { imageIn, gru, posterior } = weights;
  return {
    imageInWeight: imageIn.dense.weight,
    imageInBias: imageIn.dense.bias,
    imageInGain: imageIn.norm.gain,
    imageInShift: imageIn.norm.shift,
    ...Object.fromEntries(
      (['reset', 'update', 'candidate'] as const).flatMap((gate) => [
        [`${gate}InputWeight`, gru[gate].inputWeight],
        [`${gate}HiddenWeight`, gru[gate].hiddenWeight],
        [`${gate}InputBias`, gru[gate].inputBias],
        [`${gate}HiddenBias`, gru[gate].hiddenBias],
      ]),
    ),
    posteriorHiddenWeight: posterior.hidden.weight,
    posteriorHiddenBias: posterior.hidden.bias,
    posteriorGain: posterior.norm.gain,
    posteriorShift: posterior.norm.shift,
    posteriorOutWeight: posterior.out.weight,
    posteriorOutBias: posterior.out.bias,
  };
}

function fusedObserveSequence(weights: RssmWeights, config: WorldModelConfig, inputs: SequenceInputs): SequenceOutputs {
  const [deterministic, stochastic, posterior] = tf
    .engine()
    .runKernel(
      RSSM_OBSERVE_SEQUENCE,
      { embeddings: inputs.embeddings, previousActions: inputs.previousActions, noise: inputs.noise, ...sequenceWeightInputs(weights) },
      { batch: inputs.batch, length: inputs.length, classes: config.classes, uniformMix: config.uniformMix, layerNormEpsilon: config.layerNormEpsilon },
    ) as tf.Tensor2D[];
  return { deterministic: deterministic!, stochastic: stochastic!, posterior: posterior! };
}

function tapedObserveSequence(weights: RssmWeights, config: WorldModelConfig, inputs: SequenceInputs): SequenceOutputs {
  const { batch, length } = inputs;
  const groupsPerRow = config.stochasticGroups;
  const rowsOf = (tensor: tf.Tensor2D, step: number, rowsPerStep: number) => tf.slice(tensor, [step * rowsPerStep, 0], [rowsPerStep, -1]);
  let deterministic: tf.Tensor2D = tf.zeros([batch, config.deterministicSize]);
  let stochastic: tf.Tensor2D = tf.zeros([batch, stochasticSize(config)]);
  const deterministics: tf.Tensor2D[] = [];
  const stochastics: tf.Tensor2D[] = [];
  const posteriors: tf.Tensor2D[] = [];
  for (let step = 0; step < length; step++) {
    const imageInput = tf.concat([stochastic, rowsOf(inputs.previousActions, step, batch)], 1);
    const image = silu(layerNorm(weights.imageIn.norm, dense(weights.imageIn.dense, imageInput), config.layerNormEpsilon));
    deterministic = gruCell(weights.gru, image, deterministic);
    const logits = mlp(weights.posterior, tf.concat([deterministic, rowsOf(inputs.embeddings, step, batch)], 1), config.layerNormEpsilon);
    const posterior = categoricalProbs(logits, config.classes, config.uniformMix);
    stochastic = sampleCategorical(posterior, config.classes, rowsOf(inputs.noise, step, batch * groupsPerRow));
    deterministics.push(deterministic);
    stochastics.push(stochastic);
    posteriors.push(posterior);
  }
  return { deterministic: tf.concat(deterministics, 0), stochastic: tf.concat(stochastics, 0), posterior: tf.concat(posteriors, 0) };
}
