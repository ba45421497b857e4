// The world model's parts as a running core makes them, for the world-model session and the benches
// that measure them: the configuration (a preset, the encoders' embedding, actions scaled to the
// safety filter's speed limits), a model with its trainer, its checkpoint files, the surprise the
// cockpit shows, and the batch layout replay trains on.
import { livenessModality } from '../perception/liveness.ts';
import { MODALITIES, type EmbeddingSlot } from '../core/perception.ts';
import { readCheckpoint, writeCheckpoint } from '../worldmodel/checkpointFile.ts';
import { Rssm } from '../worldmodel/rssm.ts';
import { disposeWeights } from '../worldmodel/rssmWeights.ts';
import { SurpriseMeter } from '../worldmodel/surpriseMeter.ts';
import { SurpriseRatioScorer, type ScoredSlot } from '../worldmodel/surpriseScorer.ts';
import { restoreCheckpoint, snapshotCheckpoint, type CheckpointIdentity, type TrainedWorldModel } from '../worldmodel/worldModelCheckpoint.ts';
import { worldModelConfig, type PresetName, type WorldModelConfig } from '../worldmodel/worldModelConfig.ts';
import { WorldModelTrainer } from '../worldmodel/worldModelTrainer.ts';
import { SESSION_SPEED_LIMITS } from './safetyParts.ts';

export type { Rssm, RssmState, TrainingBatch } from '../worldmodel/rssm.ts';
export type { WorldModelTrainer };
export type { CheckpointIdentity, PresetName, TrainedWorldModel, WorldModelConfig };
export { worldModelConfig };
/** How replay lays out a training batch: the benches fill theirs from simulated episodes the same way. */
export { actionFeatures, emptyBatch } from '../worldmodel/replayBatch.ts';
/** The cockpit's predicted path, for the bench that measures it against the path driven. */
export { integratePath, PATH_HORIZON_STEPS, readoutTrusted, VelocityReadout } from '../worldmodel/pathPrediction.ts';
export { livenessModality };
export { SurpriseRatioScorer, surpriseStatus, type SurpriseStatus } from '../worldmodel/surpriseScorer.ts';

export interface WorldModelShape {
  /** The encoders' fused embedding; the preset's own (the reference script's) when left out. */
  embeddingSize?: number;
  /** What an action of magnitude 1 means: the safety filter's speed limits when left out. */
  actionLimits?: readonly number[];
}

/** A preset shaped as a running core shapes it: the encoders' embedding, actions over the safety filter's limits. */
export function sessionWorldModelConfig(preset: PresetName, shape: WorldModelShape = {}): WorldModelConfig {
  return worldModelConfig(preset, {
    ...(shape.embeddingSize === undefined ? {} : { embeddingSize: shape.embeddingSize }),
    actionLimits: [...(shape.actionLimits ?? SESSION_SPEED_LIMITS)],
  });
}

/** A fresh model and its optimiser, seeded, as the learner starts one when no checkpoint fits. */
export function createWorldModel(config: WorldModelConfig, seed: number): TrainedWorldModel {
  const rssm = new Rssm(config, seed);
  return { rssm, trainer: new WorldModelTrainer(rssm) };
}

/** Releases the optimiser's state and the weights' tensors. */
export function disposeWorldModel({ rssm, trainer }: TrainedWorldModel): void {
  trainer.dispose();
  disposeWeights(rssm.weights);
}

/** The model and Adam's moments to a checkpoint file (written atomically, checksummed). */
export async function saveWorldModel(path: string, model: TrainedWorldModel, identity: CheckpointIdentity): Promise<void> {
  await writeCheckpoint(path, await snapshotCheckpoint(model, identity));
}

/** A model from a checkpoint file; a CheckpointError when it was made for another configuration or other encoders. */
export async function readWorldModel(path: string, expected: { config: WorldModelConfig; encoderVersion: string }, seed: number): Promise<TrainedWorldModel> {
  return restoreCheckpoint(await readCheckpoint(path), expected, seed);
}

/**
 * The cockpit's surprise: each scored slot's prediction error over its own usual error, held at its
 * peak, named by its sensor modality. A modality's liveness (how much its stream changed, its age) is
 * scored on its own usual error and reported under the modality's name: a frozen camera is the camera's.
 */
export function createSurpriseScorer(slots: readonly EmbeddingSlot[]): SurpriseRatioScorer {
  return new SurpriseRatioScorer(scoredSurpriseSlots(slots));
}

/**
 * The slots the surprise is scored on, named by their modality. Left out, each because on its own it
 * separates none of the events an operator must see from normal driving, while its ordinary misses
 * outrank the slots that do (the maximum over slots pays for every slot's noise):
 * - the presence flags: a constant the model predicts almost exactly, so any wobble reads as hundreds
 *   of times usual (35 of 87 false alarms on held-out driving, 2026-11-27); a sensor that stops is the
 *   stream table's to report.
 * - the camera's features, where the camera has a liveness slot: a new view's misses are large and
 *   ordinary; alone they separate no event on training arenas (best AUROC 0.69, a dropped obstacle),
 *   where the camera's liveness separates a frozen camera (0.998) and an obstacle (0.79). Since the
 *   bench drops obstacles only in view they reach 0.96 on obstacles alone, but scored beside the others
 *   they raise the threshold more than they add (recall 28 of 46 held-out events against 31; docs/worldmodel.md).
 * - proprioception's liveness: the IMU and the wheels change every message at their rates, so it says
 *   nothing until a stream stops, which the stream table reports (best AUROC 0.75).
 * `reins bench worldmodel` scores each slot alone on events injected on training arenas (its
 * `surprise-slot-auroc-*` rows). Without these two, the held-out AUROCs of shove, obstacle, camera
 * freeze and LiDAR blackout rose from 0.85, 0.88, 0.91, 1.00 to 0.91, 0.91, 0.98, 1.00 on the same
 * model (docs/worldmodel.md, 2026-11-29).
 */
export function scoredSurpriseSlots(slots: readonly EmbeddingSlot[]): ScoredSlot[] {
  const names = new Set(slots.map((slot) => slot.name));
  return slots.flatMap((slot) => {
    if (slot.name === 'camera' && names.has('liveness-camera')) return [];
    if (slot.name === 'liveness-proprio') return [];
    // Proprioception's floats each keep their own usual error: a shove moves a few of them (the peaks).
    if (slot.name === 'proprio') return [{ ...slot, byDimension: true }];
    // The LiDAR's prediction misses by more than its last scan held would (its decoder's blur, the same
    // from tick to tick): it is scored on the change since the last tick, float by float, where a
    // dropped obstacle stands out.
    if (slot.name === 'lidar') return [{ ...slot, byDimension: true, change: true }];
    if ((MODALITIES as readonly string[]).includes(slot.name)) return [slot];
    const modality = livenessModality(slot.name);
    return modality ? [{ ...slot, name: modality }] : [];
  });
}

/** Any per-tick measure held at its peak for as long as the cockpit holds its surprise. */
export function createSurpriseMeter(): SurpriseMeter {
  return new SurpriseMeter();
}
