// The committed default encoders: their files match the manifest's sha256, and onnxruntime reproduces
// the outputs TensorFlow.js gave when they were trained.
import { MODALITIES } from '../../main/core/perception.ts';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { parseEncoderManifest } from '../../main/perception/manifest.ts';

const modelsDir = resolve(import.meta.dirname, '..');
const manifest = parseEncoderManifest(readFileSync(join(modelsDir, 'manifest.json'), 'utf8'), 'models/manifest.json');
const reference = JSON.parse(readFileSync(join(modelsDir, 'reference-outputs.json'), 'utf8')) as {
  encoders: Record<string, { count: number; inputs: string; outputs: string }>;
};

const floats = (base64: string) => {
  const bytes = Buffer.from(base64, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};

describe('the default encoders', () => {
  for (const modality of MODALITIES) {
    it(`${modality}: the file matches its sha256 and reproduces the training framework's outputs`, async () => {
      const entry = manifest.encoders[modality]!;
      const bytes = readFileSync(join(modelsDir, entry.file));
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(entry.sha256);

      const { count, inputs, outputs } = reference.encoders[modality]!;
      const session = await ort.InferenceSession.create(bytes);
      const shape = [count, ...entry.input.shape.slice(1)];
      const result = await session.run({ [entry.input.name]: new ort.Tensor('float32', floats(inputs), shape) });
      const actual = result[entry.output.name]!.data as Float32Array;
      const expected = floats(outputs);
      expect(actual.length).toBe(count * entry.output.size);
      const scale = Math.max(...expected.map(Math.abs));
      const worst = Math.max(...actual.map((v, i) => Math.abs(v - expected[i]!)));
      expect(worst).toBeLessThan(1e-4 * Math.max(scale, 1));
      await session.release();
    });
  }
});
