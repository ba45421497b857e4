// Real ONNX files, written to a temporary folder: a good encoder loads and runs; every bad one is
// refused with an error that names the file and the problem.
import type { Modality } from '../core/perception.ts';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENCODER_SHAPES, randomlyInitialised } from './defaultEncoders.ts';
import { DEFAULT_PREPROCESSING, writeEncoderSet, writeRandomEncoderSet } from './encoderSet.ts';
import { EncoderSession } from './encoderSession.ts';
import { DEFAULT_THREADS } from './executionProvider.ts';
import { parseEncoderManifest, type EncoderEntry } from './manifest.ts';
import { rangesInputSize } from './preprocess.ts';

const root = mkdtempSync(join(tmpdir(), 'reins-encoder-session-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;

/** A fresh folder with the default-shaped random encoders; returns its manifest's entries, as JSON to tweak. */
function randomSet(): { folder: string; entries: Record<Modality, EncoderEntry> } {
  const folder = join(root, `set-${folders++}`);
  const manifestPath = writeRandomEncoderSet(folder, 3);
  const manifest = parseEncoderManifest(readFileSync(manifestPath, 'utf8'), manifestPath);
  return { folder, entries: manifest.encoders as Record<Modality, EncoderEntry> };
}

function load(folder: string, modality: Modality, entry: EncoderEntry, provider: 'auto' | 'cpu' = 'cpu') {
  return EncoderSession.load({ modality, entry, path: join(folder, entry.file), provider, threads: DEFAULT_THREADS });
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('EncoderSession', () => {
  it('loads an encoder and runs it on its reused input buffer', async () => {
    const { folder, entries } = randomSet();
    const session = await load(folder, 'lidar', entries.lidar);
    try {
      expect(session.provider).toBe('cpu');
      const input = session.input;
      input.fill(0.5);
      const first = Float32Array.from(await session.run());
      input.fill(1);
      const second = await session.run();
      expect(session.input).toBe(input);
      expect(second).toBe(session.output);
      expect(second).toHaveLength(64);
      expect(second).not.toEqual(first);
      expect(second.every(Number.isFinite)).toBe(true);
    } finally {
      await session.close();
    }
  });

  it('says why it runs on the CPU when CUDA is wanted but not installed', async () => {
    const { folder, entries } = randomSet();
    const session = await load(folder, 'proprio', entries.proprio, 'auto');
    try {
      if (session.provider === 'cpu') expect(session.providerNote).toMatch(/CUDA execution provider/);
    } finally {
      await session.close();
    }
  });

  it("refuses a file whose sha256 is not the manifest's, before loading it", async () => {
    const { folder, entries } = randomSet();
    const actual = sha256(readFileSync(join(folder, 'camera.onnx')));
    const wrong = 'ab'.repeat(32);
    await expect(load(folder, 'camera', { ...entries.camera, sha256: wrong })).rejects.toThrow(
      `encoder file ${join(folder, 'camera.onnx')} fails its sha256 check: the manifest expects ${wrong}, the file has ${actual}`,
    );
  });

  it('refuses a missing file', async () => {
    const { folder, entries } = randomSet();
    unlinkSync(join(folder, 'lidar.onnx'));
    await expect(load(folder, 'lidar', entries.lidar)).rejects.toThrow(`encoder file ${join(folder, 'lidar.onnx')} is missing`);
  });

  it('refuses a truncated file (its sha256 matching) as one onnxruntime cannot load', async () => {
    const { folder, entries } = randomSet();
    const path = join(folder, 'camera.onnx');
    const truncated = readFileSync(path).subarray(0, 5000);
    writeFileSync(path, truncated);
    await expect(load(folder, 'camera', { ...entries.camera, sha256: sha256(truncated) })).rejects.toThrow(
      new RegExp(`encoder file ${path} could not be loaded by onnxruntime \\(truncated, or not an ONNX model\\?\\)`),
    );
  });

  it("refuses a model whose input shape is not the manifest's", async () => {
    // The model takes NHWC images; the manifest (consistent in itself) says NCHW, as for a PyTorch export.
    const { folder, entries } = randomSet();
    const nchw: EncoderEntry = {
      ...entries.camera,
      input: { ...entries.camera.input, shape: [1, 3, 48, 64] },
      preprocessing: { ...(entries.camera.preprocessing as Extract<EncoderEntry['preprocessing'], { kind: 'image' }>), layout: 'nchw' },
    };
    await expect(load(folder, 'camera', nchw)).rejects.toThrow(
      `encoder file ${join(folder, 'camera.onnx')} takes input "image" of shape [batch, 48, 64, 3], but the manifest gives it [1, 3, 48, 64]`,
    );
  });

  it('refuses a manifest entry whose input shape does not fit its own preprocessing', async () => {
    const { folder, entries } = randomSet();
    const lidar: EncoderEntry = { ...entries.lidar, input: { ...entries.lidar.input, shape: [1, 180] } };
    const writes = rangesInputSize(DEFAULT_PREPROCESSING.lidar);
    await expect(load(folder, 'lidar', lidar)).rejects.toThrow(
      new RegExp(`entry for lidar .*lidar\\.onnx\\): input shape \\[1, 180\\] does not fit its preprocessing, which writes \\[1, ${writes}\\]`),
    );
  });

  it("refuses wrong input and output names, and an output size that is not the manifest's", async () => {
    const { folder, entries } = randomSet();
    await expect(load(folder, 'proprio', { ...entries.proprio, input: { ...entries.proprio.input, name: 'state' } })).rejects.toThrow(
      /proprio\.onnx has no input named "state" \(its inputs: proprio\)/,
    );
    await expect(load(folder, 'proprio', { ...entries.proprio, output: { name: 'features', size: 29 } })).rejects.toThrow(
      /proprio\.onnx has no output named "features" \(its outputs: embedding\)/,
    );
    await expect(load(folder, 'proprio', { ...entries.proprio, output: { name: 'embedding', size: 32 } })).rejects.toThrow(
      /proprio\.onnx gives output "embedding" of shape \[batch, 23\] \(23 floats\), but the manifest says size 32/,
    );
  });

  it('refuses a model that gives NaN (a weight is NaN)', async () => {
    const folder = join(root, `nan-${folders++}`);
    const net = randomlyInitialised(DEFAULT_ENCODER_SHAPES.proprio, 4);
    const first = net.layers[0]!;
    if (first.kind === 'dense') first.weights[3] = Number.NaN;
    const manifestPath = writeEncoderSet(folder, { version: 'nan', nets: { proprio: net } });
    const entry = parseEncoderManifest(readFileSync(manifestPath, 'utf8'), manifestPath).encoders.proprio!;
    await expect(load(folder, 'proprio', entry)).rejects.toThrow(`encoder file ${join(folder, 'proprio.onnx')} produced NaN in its output on a trial run`);
  });
});
