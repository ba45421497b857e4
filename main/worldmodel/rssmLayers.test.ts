import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { balancedKl, categoricalKl, categoricalProbs } from './rssmLayers.ts';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** DreamerV3's two KL terms as the reference script writes them, each with its own stop-gradient. */
function twoTerms(posterior: tf.Tensor2D, prior: tf.Tensor2D, freeNats: number): tf.Scalar {
  const detached = tf.customGrad((input, _save) => ({ value: tf.clone(input as tf.Tensor), gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy) })) as <
    T extends tf.Tensor,
  >(
    input: T,
  ) => T;
  const dynamics = tf.mean(tf.maximum(categoricalKl(detached(posterior), prior), freeNats));
  const representation = tf.mean(tf.maximum(categoricalKl(posterior, detached(prior)), freeNats));
  return tf.add(tf.mul(dynamics, 0.5), tf.mul(representation, 0.1)) as tf.Scalar;
}

describe('balancedKl', () => {
  // Rows of 4 groups × 8 classes; the logits' spread puts some rows' KL under the free nats and some above.
  const posteriorLogits = tf.variable(tf.mul(tf.randomNormal([48, 32], 0, 1, 'float32', 1), tf.linspace(0.05, 3, 48).reshape([48, 1])) as tf.Tensor2D);
  const priorLogits = tf.variable(tf.randomNormal([48, 32], 0, 1, 'float32', 2) as tf.Tensor2D);

  function lossAndGrads(loss: (posterior: tf.Tensor2D, prior: tf.Tensor2D) => tf.Scalar) {
    const { value, grads } = tf.variableGrads(
      () => loss(categoricalProbs(posteriorLogits, 8, 0.01), categoricalProbs(priorLogits, 8, 0.01)),
      [posteriorLogits, priorLogits],
    );
    return {
      value: value.dataSync()[0]!,
      posterior: Array.from(grads[posteriorLogits.name]!.dataSync()),
      prior: Array.from(grads[priorLogits.name]!.dataSync()),
    };
  }

  it('has the reference’s value and gradients with the KL computed once, and reports the mean KL', () => {
    for (const freeNats of [0, 1, 3]) {
      const reference = lossAndGrads((posterior, prior) => twoTerms(posterior, prior, freeNats));
      const fused = lossAndGrads((posterior, prior) => balancedKl(posterior, prior, { freeNats, dynamicsScale: 0.5, representationScale: 0.1 }).loss);
      expect(fused.value).toBeCloseTo(reference.value, 5);
      fused.posterior.forEach((grad, i) => expect(grad).toBeCloseTo(reference.posterior[i]!, 6));
      fused.prior.forEach((grad, i) => expect(grad).toBeCloseTo(reference.prior[i]!, 6));
    }
    // At free nats 1 some rows are clamped and some are not, so the clamp's mask is exercised.
    const posterior = categoricalProbs(posteriorLogits, 8, 0.01);
    const prior = categoricalProbs(priorLogits, 8, 0.01);
    const kl = categoricalKl(posterior, prior).dataSync();
    expect(Math.min(...kl)).toBeLessThan(1);
    expect(Math.max(...kl)).toBeGreaterThan(1);
    const { meanKl } = balancedKl(posterior, prior, { freeNats: 1, dynamicsScale: 0.5, representationScale: 0.1 });
    expect(meanKl.dataSync()[0]).toBeCloseTo(tf.mean(categoricalKl(posterior, prior)).dataSync()[0]!, 6);
  });
});
