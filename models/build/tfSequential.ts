// The same sequential networks as main/perception/sequentialOnnx.ts, as TensorFlow.js variables that
// can be trained. A patch convolution (stride = kernel) is a reshape into patches and one matrix
// multiply: exact, and it trains on the WebAssembly backend, which has no convolution gradients.
import * as tf from '@tensorflow/tfjs';
import type { LayerSpec, SequentialNet } from '../../main/perception/sequentialOnnx.ts';

interface TrainableLayer {
  spec: LayerSpec;
  weights?: tf.Variable;
  bias?: tf.Variable;
}

export class TfSequential {
  private readonly layers: TrainableLayer[];

  constructor(private readonly net: SequentialNet) {
    this.layers = net.layers.map((spec) => {
      if (spec.kind === 'patch-conv') {
        const [kernelH, kernelW] = spec.kernelPx;
        return {
          spec,
          weights: tf.variable(tf.tensor2d(spec.weights, [kernelH * kernelW * spec.inChannels, spec.outChannels])),
          bias: tf.variable(tf.tensor1d(spec.bias)),
        };
      }
      if (spec.kind === 'dense') {
        return { spec, weights: tf.variable(tf.tensor2d(spec.weights, [spec.inSize, spec.outSize])), bias: tf.variable(tf.tensor1d(spec.bias)) };
      }
      return { spec };
    });
  }

  variables(): tf.Variable[] {
    return this.layers.flatMap((layer) => (layer.weights && layer.bias ? [layer.weights, layer.bias] : []));
  }

  /** x: [batch, ...inputShape]. */
  apply(x: tf.Tensor): tf.Tensor2D {
    let h = x;
    for (const { spec, weights, bias } of this.layers) {
      switch (spec.kind) {
        case 'patch-conv': {
          const [batch, height, width, channels] = h.shape as [number, number, number, number];
          const [kernelH, kernelW] = spec.kernelPx;
          const rows = height / kernelH;
          const columns = width / kernelW;
          let patches = tf.reshape(h, [batch, rows, kernelH, columns, kernelW, channels]);
          patches = tf.transpose(patches, [0, 1, 3, 2, 4, 5]);
          const flat = tf.reshape(patches, [batch * rows * columns, kernelH * kernelW * channels]);
          h = tf.reshape(tf.add(tf.matMul(flat, weights!), bias!), [batch, rows, columns, spec.outChannels]);
          break;
        }
        case 'dense':
          h = tf.add(tf.matMul(h as tf.Tensor2D, weights!), bias!);
          break;
        case 'relu':
          h = tf.relu(h);
          break;
        case 'flatten':
          h = tf.reshape(h, [h.shape[0]!, -1]);
          break;
      }
    }
    return h as tf.Tensor2D;
  }

  /** The trained weights, in the layouts sequentialToOnnx expects. */
  toNet(): SequentialNet {
    const layers = this.layers.map(({ spec, weights, bias }): LayerSpec => {
      if (spec.kind === 'patch-conv' || spec.kind === 'dense') {
        return { ...spec, weights: weights!.dataSync() as Float32Array, bias: bias!.dataSync() as Float32Array };
      }
      return spec;
    });
    return { ...this.net, layers };
  }
}
