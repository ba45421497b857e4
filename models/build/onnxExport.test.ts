import { MODALITIES } from '../../main/core/perception.ts';
import * as tf from '@tensorflow/tfjs';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENCODER_SHAPES, randomlyInitialised, seededNormals } from '../../main/perception/defaultEncoders.ts';
import { sequentialToOnnx } from '../../main/perception/sequentialOnnx.ts';
import { TfSequential } from './tfSequential.ts';

const BATCH = 2;

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('ONNX export of the encoder networks', () => {
  for (const modality of MODALITIES) {
    it(`the ${modality} encoder's ONNX file computes what TensorFlow.js computes`, async () => {
      const shape = DEFAULT_ENCODER_SHAPES[modality];
      const net = randomlyInitialised(shape, 11);
      const size = shape.inputShape.reduce((a, b) => a * b, 1);
      const normal = seededNormals(5);
      const input = Float32Array.from({ length: BATCH * size }, () => normal());

      const expected = tf.tidy(() => new TfSequential(net).apply(tf.tensor(input, [BATCH, ...shape.inputShape])).dataSync() as Float32Array);
      const session = await ort.InferenceSession.create(sequentialToOnnx(net, 'test'));
      const result = await session.run({ [shape.inputName]: new ort.Tensor('float32', input, [BATCH, ...shape.inputShape]) });
      const actual = result[shape.outputName]!.data as Float32Array;

      expect(actual.length).toBe(expected.length);
      const scale = Math.max(...expected.map(Math.abs));
      const worst = Math.max(...actual.map((v, i) => Math.abs(v - expected[i]!)));
      expect(scale).toBeGreaterThan(0.1);
      expect(worst).toBeLessThan(1e-4 * scale);
      await session.release();
    });
  }

  it('refuses layers that do not fit together', () => {
    const net = randomlyInitialised(DEFAULT_ENCODER_SHAPES.lidar, 1);
    expect(() => sequentialToOnnx({ ...net, inputShape: [100] }, 'test')).toThrow(/dense of 540 inputs does not fit \[100\]/);
  });
});
