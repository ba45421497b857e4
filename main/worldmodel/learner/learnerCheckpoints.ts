// Where the learner's training survives a restart: restore the newest usable checkpoint (each one
// refused is kept with its reason for the operator), and save — file first, atomically, then the
// memory's checkpoints row, then the oldest files beyond the few kept are deleted.
import type { RecordTables } from '../../memory/recordTables.ts';
import { CheckpointError, readCheckpoint, writeCheckpoint } from '../checkpointFile.ts';
import { restoreCheckpoint, snapshotCheckpoint, type TrainedWorldModel } from '../worldModelCheckpoint.ts';
import type { WorldModelConfig } from '../worldModelConfig.ts';
import { checkpointPath, ensureCheckpointDir, listCheckpoints, pruneCheckpoints, worldModelVersion } from './checkpointDirectory.ts';

export interface RestoredModel {
  model: TrainedWorldModel;
  from: { version: string; path: string; step: number };
}

export interface RestoreOutcome {
  restored: RestoredModel | undefined;
  /** One line per refused checkpoint: the CheckpointError's message. */
  refused: string[];
}

export async function restoreNewestCheckpoint(
  dir: string,
  expected: { config: WorldModelConfig; encoderVersion: string },
  seed: number,
): Promise<RestoreOutcome> {
  const refused: string[] = [];
  for (const file of await listCheckpoints(dir, expected.encoderVersion)) {
    try {
      const checkpoint = await readCheckpoint(file.path);
      const model = await restoreCheckpoint(checkpoint, expected, seed);
      return { restored: { model, from: { version: checkpoint.version, path: file.path, step: checkpoint.trainSteps } }, refused };
    } catch (error) {
      // Anything else (a bug, out of memory) is not the file's fault and goes up.
      if (!(error instanceof CheckpointError)) throw error;
      refused.push(error.message);
    }
  }
  return { restored: undefined, refused };
}

export interface SavePlan {
  dir: string;
  encoderVersion: string;
  keep: number;
  /** The version this one continues from, for the memory row's lineage. */
  parentVersion: string | undefined;
  /** Named figures for the memory row (mean losses since the last save, …). */
  scores: Record<string, number>;
}

export interface SavedCheckpoint {
  version: string;
  path: string;
  step: number;
}

export async function saveCheckpoint(model: TrainedWorldModel, records: RecordTables, plan: SavePlan): Promise<SavedCheckpoint> {
  const step = model.trainer.steps;
  const version = worldModelVersion(plan.encoderVersion, step);
  const path = checkpointPath(plan.dir, plan.encoderVersion, step);
  const createdAtMs = Date.now();
  await ensureCheckpointDir(plan.dir);
  await writeCheckpoint(path, await snapshotCheckpoint(model, { version, encoderVersion: plan.encoderVersion, createdAtMs }));
  await records.addCheckpoint({
    modelKind: 'world-model',
    version,
    weightsUri: path,
    createdAtMs,
    parentVersion: plan.parentVersion,
    encoderVersion: plan.encoderVersion,
    scores: plan.scores,
  });
  await pruneCheckpoints(plan.dir, plan.encoderVersion, plan.keep);
  return { version, path, step };
}
