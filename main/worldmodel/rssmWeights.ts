// The RSSM's weights, named and laid out as the reference PyTorch model's modules are, so that a
// parameter count or a layer can be compared one to one. Dense weights are stored [in, out] (x·W);
// the GRU's gates (PyTorch's reset, update, new) are held apart.
import * as tf from '@tensorflow/tfjs-core';
import { featureSize, stochasticSize, type WorldModelConfig } from './worldModelConfig.ts';

export interface Dense {
  weight: tf.Variable;
  bias: tf.Variable;
}

export interface LayerNorm {
  gain: tf.Variable;
  shift: tf.Variable;
}

/** Linear → LayerNorm → SiLU → Linear, as the reference's `mlp`. */
export interface Mlp {
  hidden: Dense;
  norm: LayerNorm;
  out: Dense;
}

/** One gate's share of PyTorch's GRUCell weights (weight_ih, weight_hh, bias_ih, bias_hh rows). */
export interface GruGate {
  inputWeight: tf.Variable;
  hiddenWeight: tf.Variable;
  inputBias: tf.Variable;
  hiddenBias: tf.Variable;
}

/** Kept per gate rather than as one 3·D block, so no step has to split its products apart. */
export interface GruWeights {
  reset: GruGate;
  update: GruGate;
  candidate: GruGate;
}

/**
 * Per-dimension statistics that standardise the embedding the model reads and predicts: fitted once
 * to the data (the learner's first replay), then kept with the weights. Not trained. Without them the
 * decoder's error on an embedding whose dimensions vary by a few hundredths is too small beside the KL
 * terms, and the model learns to ignore what it sees.
 */
export interface EmbeddingNorm {
  mean: tf.Variable;
  scale: tf.Variable;
}

export interface RssmWeights {
  /** Previous stochastic state and action into the GRU's input: Linear → LayerNorm → SiLU. */
  imageIn: { dense: Dense; norm: LayerNorm };
  gru: GruWeights;
  prior: Mlp;
  posterior: Mlp;
  decoder: Mlp;
  reward: Mlp;
  continuation: Mlp;
  /** Last, so the trained weights keep their order before it. */
  embeddingNorm: EmbeddingNorm;
}

/** Deterministic initial weights for a seed, drawn as PyTorch draws its defaults (uniform ±1/√fan-in). */
export function initialWeights(config: WorldModelConfig, seed: number): RssmWeights {
  let draws = 0;
  // Variables go unnamed: TF.js names must be unique per process, and two models may share a seed.
  const uniform = (shape: number[], bound: number) => tf.tidy(() => tf.variable(tf.randomUniform(shape, -bound, bound, 'float32', seed * 1000 + draws++)));
  const dense = (inputs: number, outputs: number): Dense => ({
    weight: uniform([inputs, outputs], 1 / Math.sqrt(inputs)),
    bias: uniform([outputs], 1 / Math.sqrt(inputs)),
  });
  const norm = (size: number): LayerNorm => ({
    gain: tf.variable(tf.ones([size])),
    shift: tf.variable(tf.zeros([size])),
  });
  const mlp = (inputs: number, outputs: number): Mlp => ({
    hidden: dense(inputs, config.hiddenSize),
    norm: norm(config.hiddenSize),
    out: dense(config.hiddenSize, outputs),
  });
  const deterministic = config.deterministicSize;
  const gruBound = 1 / Math.sqrt(deterministic);
  const features = featureSize(config);
  const gate = (): GruGate => ({
    inputWeight: uniform([config.hiddenSize, deterministic], gruBound),
    hiddenWeight: uniform([deterministic, deterministic], gruBound),
    inputBias: uniform([deterministic], gruBound),
    hiddenBias: uniform([deterministic], gruBound),
  });
  return {
    imageIn: { dense: dense(stochasticSize(config) + config.actionSize, config.hiddenSize), norm: norm(config.hiddenSize) },
    gru: { reset: gate(), update: gate(), candidate: gate() },
    prior: mlp(deterministic, stochasticSize(config)),
    posterior: mlp(deterministic + config.embeddingSize, stochasticSize(config)),
    decoder: mlp(features, config.embeddingSize),
    reward: mlp(features, 1),
    continuation: mlp(features, 1),
    embeddingNorm: { mean: tf.variable(tf.zeros([config.embeddingSize]), false), scale: tf.variable(tf.ones([config.embeddingSize]), false) },
  };
}

/** Every weight with a stable name (module path), in a fixed order: for checkpoints and handing over. */
export function namedWeights(weights: RssmWeights): [string, tf.Variable][] {
  const out: [string, tf.Variable][] = [];
  const walk = (prefix: string, node: object): void => {
    for (const [key, value] of Object.entries(node)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (value instanceof tf.Variable) out.push([path, value]);
      else walk(path, value as object);
    }
  };
  walk('', weights);
  return out;
}

/** The weights the optimiser trains (all but the embedding's statistics), in namedWeights order. */
export function trainableWeights(weights: RssmWeights): [string, tf.Variable][] {
  return namedWeights(weights).filter(([, variable]) => variable.trainable);
}

export function parameterCount(weights: RssmWeights): number {
  return trainableWeights(weights).reduce((sum, [, variable]) => sum + variable.size, 0);
}

/** Puts offered weights (namedWeights order, as the learner hands them over) into a model's; throws, changing nothing, on any mismatch. */
export function loadNamedWeights(weights: RssmWeights, offered: readonly { name: string; values: Float32Array }[]): void {
  const named = namedWeights(weights);
  if (offered.length !== named.length) throw new RangeError(`world model: ${offered.length} weights offered, the model has ${named.length}`);
  named.forEach(([name, variable], index) => {
    const weight = offered[index]!;
    if (weight.name !== name || weight.values.length !== variable.size)
      throw new RangeError(`world model: weight ${index} is ${weight.name} of ${weight.values.length} values, expected ${name} of ${variable.size}`);
  });
  tf.tidy(() => named.forEach(([, variable], index) => variable.assign(tf.tensor(offered[index]!.values, variable.shape))));
}

export function disposeWeights(weights: RssmWeights): void {
  for (const [, variable] of namedWeights(weights)) variable.dispose();
}
