// Between a live model and its checkpoint: snapshot the weights and Adam's moments, and restore
// them only into a model of the same configuration, for the same encoders — anything else is
// refused with the reason, so the learner can say so and start fresh.
import * as tf from '@tensorflow/tfjs-core';
import { CheckpointError, type NamedArray, type WorldModelCheckpoint } from './checkpointFile.ts';
import { Rssm } from './rssm.ts';
import { initialWeights, namedWeights, trainableWeights } from './rssmWeights.ts';
import type { WorldModelConfig } from './worldModelConfig.ts';
import { WorldModelTrainer } from './worldModelTrainer.ts';

export interface TrainedWorldModel {
  rssm: Rssm;
  trainer: WorldModelTrainer;
}

export interface CheckpointIdentity {
  version: string;
  encoderVersion: string;
  createdAtMs: number;
}

export async function snapshotCheckpoint({ rssm, trainer }: TrainedWorldModel, identity: CheckpointIdentity): Promise<WorldModelCheckpoint> {
  const named = namedWeights(rssm.weights);
  const trained = trainableWeights(rssm.weights);
  const weights = named.map(([name, variable]) => ({ name, shape: [...variable.shape], values: variable.dataSync() as Float32Array }));
  const [iterations, ...moments] = await trainer.optimizer.getWeights();
  // Adam makes its moments on its first step; before that there are none to keep.
  const optimizer: NamedArray[] = moments.map(({ tensor }, index) => ({
    name: `${trained[index % trained.length]![0]}/${index < trained.length ? 'm' : 'v'}`,
    shape: [...tensor.shape],
    values: tensor.dataSync() as Float32Array,
  }));
  return {
    ...identity,
    config: rssm.config,
    trainSteps: trainer.steps,
    weights,
    optimizer,
    optimizerIterations: iterations === undefined ? 0 : Number(iterations.tensor.dataSync()[0]),
  };
}

/** A model and optimiser from a checkpoint; a CheckpointError if it was made for another model. */
export async function restoreCheckpoint(
  checkpoint: WorldModelCheckpoint,
  expected: { config: WorldModelConfig; encoderVersion: string },
  seed: number,
): Promise<TrainedWorldModel> {
  if (checkpoint.encoderVersion !== expected.encoderVersion) {
    throw new CheckpointError(
      `checkpoint ${checkpoint.version} learned the embeddings of encoders ${checkpoint.encoderVersion}; the robot now uses ${expected.encoderVersion}`,
    );
  }
  const differing = (Object.keys(expected.config) as (keyof WorldModelConfig)[]).filter(
    (key) => JSON.stringify(checkpoint.config[key]) !== JSON.stringify(expected.config[key]),
  );
  if (differing.length > 0) {
    const detail = differing.map((key) => `${key} ${String(checkpoint.config[key])} ≠ ${String(expected.config[key])}`).join(', ');
    throw new CheckpointError(`checkpoint ${checkpoint.version} is for another world-model configuration (${detail})`);
  }
  const weights = initialWeights(expected.config, seed);
  const named = namedWeights(weights);
  const trained = trainableWeights(weights);
  const problem =
    mismatch(named, checkpoint.weights) ?? (checkpoint.optimizer.length === 0 ? undefined : mismatch([...trained, ...trained], checkpoint.optimizer, true));
  if (problem !== undefined) {
    tf.dispose(named.map(([, variable]) => variable));
    throw new CheckpointError(`checkpoint ${checkpoint.version} does not fit the model: ${problem}`);
  }
  named.forEach(([, variable], index) => variable.assign(tf.tensor(checkpoint.weights[index]!.values, variable.shape)));
  const rssm = new Rssm(expected.config, seed, weights);
  const trainer = new WorldModelTrainer(rssm);
  trainer.steps = checkpoint.trainSteps;
  if (checkpoint.optimizer.length > 0) {
    const state = [
      { name: 'iter', tensor: tf.scalar(checkpoint.optimizerIterations, 'int32') },
      ...checkpoint.optimizer.map(({ name, shape, values }) => ({ name, tensor: tf.tensor(values, shape) })),
    ];
    await trainer.optimizer.setWeights(state);
    // The optimiser made its own variables of them: these copies would hold the moments twice.
    tf.dispose(state.map(({ tensor }) => tensor));
  }
  return { rssm, trainer };
}

function mismatch(named: [string, tf.Variable][], arrays: readonly NamedArray[], moments = false): string | undefined {
  if (named.length !== arrays.length) return `${arrays.length} ${moments ? 'optimiser moments' : 'weights'}, the model has ${named.length}`;
  for (const [index, [name, variable]] of named.entries()) {
    const array = arrays[index]!;
    const expectedName = moments ? `${name}/${index < named.length / 2 ? 'm' : 'v'}` : name;
    if (array.name !== expectedName) return `expected ${expectedName} at position ${index}, found ${array.name}`;
    if (array.shape.join('×') !== variable.shape.join('×')) return `${name} has shape ${array.shape.join('×')}, the model's is ${variable.shape.join('×')}`;
    if (!array.values.every(Number.isFinite)) return `${array.name} holds values that are not finite`;
  }
  return undefined;
}
