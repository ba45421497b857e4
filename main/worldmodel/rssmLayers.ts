// The RSSM's building blocks as TensorFlow.js functions of explicit weights: dense layers, layer
// norm, the reference's MLP, a PyTorch-ordered GRU cell, symlog, and the two gradient tricks
// DreamerV3 needs (stop-gradient, and straight-through sampling of a categorical).
import * as tf from '@tensorflow/tfjs-core';
import type { Dense, GruGate, GruWeights, LayerNorm, Mlp } from './rssmWeights.ts';

export function dense(layer: Dense, input: tf.Tensor2D): tf.Tensor2D {
  return tf.add(tf.matMul(input, layer.weight as tf.Tensor2D), layer.bias);
}

export function layerNorm(norm: LayerNorm, input: tf.Tensor2D, epsilon: number): tf.Tensor2D {
  const { mean, variance } = tf.moments(input, -1, true);
  const normalised = tf.mul(tf.sub(input, mean), tf.rsqrt(tf.add(variance, epsilon)));
  return tf.add(tf.mul(normalised, norm.gain), norm.shift);
}

/** SiLU (x·σ(x)), as the reference's nn.SiLU. */
export function silu(input: tf.Tensor2D): tf.Tensor2D {
  return tf.mul(input, tf.sigmoid(input));
}

/**
 * A backend may register a fused kernel for the whole MLP under this name (the 'native' backend
 * does: op by op, the heads' element-wise kernels and their taped gradients took a third of a
 * training step). Inputs are MLP_KERNEL_INPUTS, attr `epsilon`; it must agree with the ops below.
 */
export const MLP_KERNEL = 'ReinsMlp';
export const MLP_KERNEL_INPUTS = ['input', 'hiddenWeight', 'hiddenBias', 'gain', 'shift', 'outWeight', 'outBias'] as const;

export function mlp(layers: Mlp, input: tf.Tensor2D, epsilon: number): tf.Tensor2D {
  if (tf.getKernel(MLP_KERNEL, tf.getBackend()) !== undefined) {
    const inputs = {
      input,
      hiddenWeight: layers.hidden.weight,
      hiddenBias: layers.hidden.bias,
      gain: layers.norm.gain,
      shift: layers.norm.shift,
      outWeight: layers.out.weight,
      outBias: layers.out.bias,
    };
    return tf.engine().runKernel(MLP_KERNEL, inputs, { epsilon }) as tf.Tensor2D;
  }
  return dense(layers.out, silu(layerNorm(layers.norm, dense(layers.hidden, input), epsilon)));
}

/** PyTorch's GRUCell: reset r, update u, candidate n = tanh(Wx + b + r ⊙ (Uh + c)), h' = (1 − u) ⊙ n + u ⊙ h. */
export function gruCell(weights: GruWeights, input: tf.Tensor2D, hidden: tf.Tensor2D): tf.Tensor2D {
  const fromInput = (gate: GruGate) => tf.add(tf.matMul(input, gate.inputWeight as tf.Tensor2D), gate.inputBias);
  const fromHidden = (gate: GruGate) => tf.add(tf.matMul(hidden, gate.hiddenWeight as tf.Tensor2D), gate.hiddenBias);
  const reset = tf.sigmoid(tf.add(fromInput(weights.reset), fromHidden(weights.reset)));
  const update = tf.sigmoid(tf.add(fromInput(weights.update), fromHidden(weights.update)));
  const candidate = tf.tanh(tf.add(fromInput(weights.candidate), tf.mul(reset, fromHidden(weights.candidate))));
  return tf.add(candidate, tf.mul(update, tf.sub(hidden, candidate)));
}

/** sign(x)·ln(1 + |x|): squashes targets whose scale varies (DreamerV3). */
export function symlog<T extends tf.Tensor>(input: T): T {
  return tf.mul(tf.sign(input), tf.log1p(tf.abs(input)));
}

/** The inverse of symlog: sign(x)·(e^|x| − 1). */
export function symexp<T extends tf.Tensor>(input: T): T {
  return tf.mul(tf.sign(input), tf.expm1(tf.abs(input)));
}

/**
 * One-hot samples forward, the probabilities' gradient backward (straight-through estimator). The
 * draw is Gumbel-max on the given uniform noise, inside the custom gradient so the tape never sees
 * the (gradient-less) argmax.
 */
const straightThroughDraw = tf.customGrad((probs, noise, _save) => {
  const flat = probs as tf.Tensor2D;
  const gumbel = tf.neg(tf.log(tf.neg(tf.log(noise as tf.Tensor2D))));
  const drawn = tf.oneHot(tf.argMax(tf.add(tf.log(flat), gumbel), 1) as tf.Tensor1D, flat.shape[1]);
  return { value: tf.cast(drawn, 'float32'), gradFunc: (dy: tf.Tensor) => [dy, tf.zerosLike(dy)] };
}) as (probs: tf.Tensor2D, noise: tf.Tensor2D) => tf.Tensor2D;

/**
 * Categorical probabilities [batch, groups·classes] from logits, each group a softmax mixed with a
 * uniform share so that no class is ever impossible (and KL stays finite).
 */
export function categoricalProbs(logits: tf.Tensor2D, classes: number, uniformMix: number): tf.Tensor2D {
  const [batch, size] = logits.shape;
  const grouped = tf.softmax(tf.reshape(logits, [batch * (size / classes), classes]));
  return tf.reshape(tf.add(tf.mul(grouped, 1 - uniformMix), uniformMix / classes), [batch, size]);
}

/**
 * A one-hot draw from each group, straight-through. `noise` holds one uniform (0, 1) value per class
 * of each group ([batch·groups, classes]): drawn by the caller, so a step can be replayed exactly.
 */
export function sampleCategorical(probs: tf.Tensor2D, classes: number, noise: tf.Tensor2D): tf.Tensor2D {
  const [batch, size] = probs.shape;
  const flat = tf.reshape(probs, [batch * (size / classes), classes]) as tf.Tensor2D;
  return tf.reshape(straightThroughDraw(flat, noise), [batch, size]);
}

/** Uniform noise for `rows` draws of `classes`, in the open interval: log(0) and log(−log 1) are infinite. */
export function drawNoise(rows: number, classes: number, seed: number): tf.Tensor2D {
  return tf.randomUniform([rows, classes], 1e-7, 1 - 1e-7, 'float32', seed) as tf.Tensor2D;
}

/** Each group's most likely class as one-hot: the deterministic state to imagine from. */
export function modeCategorical(probs: tf.Tensor2D, classes: number): tf.Tensor2D {
  const [batch, size] = probs.shape;
  const flat = tf.reshape(probs, [batch * (size / classes), classes]);
  return tf.reshape(tf.cast(tf.oneHot(tf.argMax(flat, 1) as tf.Tensor1D, classes), 'float32'), [batch, size]);
}

/** KL(p ‖ q) of grouped categoricals, summed over the groups: [batch]. */
export function categoricalKl(p: tf.Tensor2D, q: tf.Tensor2D): tf.Tensor1D {
  return tf.sum(tf.mul(p, tf.sub(tf.log(p), tf.log(q))), 1);
}

export interface KlBalance {
  freeNats: number;
  /** Weight of the term that trains the prior towards the posterior: KL(sg(posterior) ‖ prior). */
  dynamicsScale: number;
  /** Weight of the term that trains the posterior towards the prior: KL(posterior ‖ sg(prior)). */
  representationScale: number;
}

/**
 * DreamerV3's balanced KL in one pass: [dynamicsScale·mean(max(KL(sg(p) ‖ q), free)) +
 * representationScale·mean(max(KL(p ‖ sg(q)), free)), mean KL (reported: no gradient)]. Both terms have
 * the same value and differ only in where their gradient goes (the prior, or the posterior), so the KL
 * is computed once and its gradient written out: ∂KL/∂p = log p − log q + 1, ∂KL/∂q = −p/q, each row's
 * only where its KL is at or above the free nats (as the clamp passes it).
 */
export function balancedKl(posterior: tf.Tensor2D, prior: tf.Tensor2D, balance: KlBalance): { loss: tf.Scalar; meanKl: tf.Scalar } {
  const { freeNats, dynamicsScale, representationScale } = balance;
  const pair = tf.customGrad((p, q, save) => {
    const logRatio = tf.sub(tf.log(p as tf.Tensor2D), tf.log(q as tf.Tensor2D));
    const kl = tf.sum(tf.mul(p as tf.Tensor2D, logRatio), 1);
    const passed = tf.cast(tf.greaterEqual(kl, freeNats), 'float32');
    (save as tf.GradSaveFunc)([p as tf.Tensor2D, q as tf.Tensor2D, logRatio, passed]);
    const loss = tf.mul(tf.mean(tf.maximum(kl, freeNats)), dynamicsScale + representationScale);
    return {
      value: tf.stack([loss, tf.mean(kl)]),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [savedP, savedQ, savedLogRatio, savedPassed] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D, tf.Tensor1D];
        // d(loss)/d(a row's KL) = passed / rows (times each term's scale); the reported mean carries no gradient.
        const rowGrad = tf.reshape(tf.mul(savedPassed, tf.div(tf.slice(dy, [0], [1]), savedPassed.shape[0])), [-1, 1]);
        return [tf.mul(tf.mul(rowGrad, representationScale), tf.add(savedLogRatio, 1)), tf.mul(tf.mul(rowGrad, -dynamicsScale), tf.div(savedP, savedQ))];
      },
    };
  }) as (p: tf.Tensor2D, q: tf.Tensor2D) => tf.Tensor1D;
  const both = pair(posterior, prior);
  return { loss: tf.reshape(tf.slice(both, [0], [1]), []), meanKl: tf.reshape(tf.slice(both, [1], [1]), []) };
}
