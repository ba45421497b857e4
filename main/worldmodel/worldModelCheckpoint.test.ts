import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointError, readCheckpoint, writeCheckpoint } from './checkpointFile.ts';
import { Rssm, type TrainingBatch } from './rssm.ts';
import { namedWeights } from './rssmWeights.ts';
import { worldModelConfig } from './worldModelConfig.ts';
import { WorldModelTrainer } from './worldModelTrainer.ts';
import { restoreCheckpoint, snapshotCheckpoint } from './worldModelCheckpoint.ts';

const CONFIG = worldModelConfig('wm-xxs', { embeddingSize: 6, deterministicSize: 8, stochasticGroups: 2, classes: 4, hiddenSize: 8 });
const ENCODERS = 'encoders-a';
let dir: string;

beforeAll(async () => {
  await tf.setBackend('cpu');
  dir = await mkdtemp(join(tmpdir(), 'reins-wm-checkpoint-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function batchOf(length: number): TrainingBatch {
  const rows = 2 * length;
  return {
    batch: 2,
    length,
    embeddings: Float32Array.from({ length: rows * CONFIG.embeddingSize }, (_, i) => Math.sin(i)),
    previousActions: Float32Array.from({ length: rows * CONFIG.actionSize }, (_, i) => Math.cos(i)),
    rewards: new Float32Array(rows),
    rewardKnown: new Float32Array(rows),
    continues: new Float32Array(rows).fill(1),
  };
}

/** A model trained a few steps and saved; returns its path and its weights. */
async function savedModel(name: string) {
  const rssm = new Rssm(CONFIG, 2);
  const trainer = new WorldModelTrainer(rssm);
  for (let i = 0; i < 3; i++) trainer.step(batchOf(5));
  const path = join(dir, name);
  await writeCheckpoint(path, await snapshotCheckpoint({ rssm, trainer }, { version: 'wm-test-3', encoderVersion: ENCODERS, createdAtMs: 1 }));
  return { path, rssm, trainer };
}

describe('world-model checkpoints', () => {
  it('restore the weights and the optimiser, so training resumes where it stopped', async () => {
    const { path, rssm, trainer } = await savedModel('resume.ckpt');
    const restored = await restoreCheckpoint(await readCheckpoint(path), { config: CONFIG, encoderVersion: ENCODERS }, 9);
    expect(restored.trainer.steps).toBe(3);
    const original = namedWeights(rssm.weights).map(([, variable]) => [...variable.dataSync()]);
    expect(namedWeights(restored.rssm.weights).map(([, variable]) => [...variable.dataSync()])).toEqual(original);
    // Adam's moments and step count come back too, so the next step moves the weights as it would have.
    const moments = async (model: WorldModelTrainer) => (await model.optimizer.getWeights()).map(({ tensor }) => [...tensor.dataSync()]);
    expect(await moments(restored.trainer)).toEqual(await moments(trainer));
  });

  it('refuse a corrupt file with a clear message', async () => {
    const { path } = await savedModel('corrupt.ckpt');
    const bytes = await readFile(path);
    bytes[bytes.length - 10]! ^= 0xff;
    await writeFile(path, bytes);
    await expect(readCheckpoint(path)).rejects.toThrow(/do not match their checksum/);
    await writeFile(path, bytes.subarray(0, 40));
    await expect(readCheckpoint(path)).rejects.toThrow(CheckpointError);
    await writeFile(path, 'not a checkpoint');
    await expect(readCheckpoint(path)).rejects.toThrow(/is not a Reins world-model checkpoint/);
    await expect(readCheckpoint(join(dir, 'missing.ckpt'))).rejects.toThrow(/cannot read world-model checkpoint/);
  });

  it('refuse a checkpoint for other encoders or another configuration', async () => {
    const { path } = await savedModel('other.ckpt');
    const checkpoint = await readCheckpoint(path);
    await expect(restoreCheckpoint(checkpoint, { config: CONFIG, encoderVersion: 'encoders-b' }, 1)).rejects.toThrow(
      /learned the embeddings of encoders encoders-a; the robot now uses encoders-b/,
    );
    const wider = worldModelConfig('wm-xxs', { ...CONFIG, hiddenSize: 12 });
    await expect(restoreCheckpoint(checkpoint, { config: wider, encoderVersion: ENCODERS }, 1)).rejects.toThrow(
      /another world-model configuration \(hiddenSize 8 ≠ 12\)/,
    );
  });
});
