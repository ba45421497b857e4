// From what memory replays (runs of consecutive ticks) to what the world model trains on: the
// embedding seen at each tick, the action that led to it scaled by the action limits, and the reward
// signal where memory holds one — never a task reward.
import type { DriveCommand } from '../core/messages.ts';
import type { TickRow } from '../memory/tickSchema.ts';
import type { TrainingBatch } from './rssm.ts';
import type { WorldModelConfig } from './worldModelConfig.ts';

/** A drive command as the world model's action: each axis over its limit, clamped to [−1, 1]. */
export function actionFeatures(
  command: DriveCommand,
  config: WorldModelConfig,
  out: Float32Array<ArrayBufferLike> = new Float32Array(config.actionSize),
  offset = 0,
): Float32Array<ArrayBufferLike> {
  const [linearLimit = 1, angularLimit = 1] = config.actionLimits;
  out[offset] = Math.max(-1, Math.min(1, command.linearMps / linearLimit));
  out[offset + 1] = Math.max(-1, Math.min(1, command.angularRadps / angularLimit));
  return out;
}

/** A batch of zeros (no reward known, every tick continuing), for a sampler to fill in. */
export function emptyBatch(config: WorldModelConfig, batch: number, length: number): TrainingBatch {
  const rows = batch * length;
  return {
    batch,
    length,
    embeddings: new Float32Array(rows * config.embeddingSize),
    previousActions: new Float32Array(rows * config.actionSize),
    rewards: new Float32Array(rows),
    rewardKnown: new Float32Array(rows),
    // Memory does not yet mark an episode's last tick: every tick continues.
    continues: new Float32Array(rows).fill(1),
  };
}

/** Sequences of equal length into one batch; the first tick of each has no previous action (zero). */
export function batchFromSequences(sequences: readonly (readonly TickRow[])[], config: WorldModelConfig): TrainingBatch {
  const length = sequences[0]?.length ?? 0;
  if (sequences.length === 0 || length === 0) throw new RangeError('a training batch needs at least one non-empty sequence');
  const batch = emptyBatch(config, sequences.length, length);
  sequences.forEach((sequence, row) => {
    if (sequence.length !== length) throw new RangeError(`sequence ${row} has ${sequence.length} ticks; the batch's first has ${length}`);
    sequence.forEach((tick, step) => {
      const at = row * length + step;
      if (tick.embedding.length !== config.embeddingSize) {
        throw new RangeError(
          `tick ${tick.episodeId}#${tick.step}: embedding of ${tick.embedding.length} values, the world model reads ${config.embeddingSize}`,
        );
      }
      batch.embeddings.set(tick.embedding, at * config.embeddingSize);
      const previous = sequence[step - 1];
      if (previous !== undefined)
        actionFeatures(
          { linearMps: previous.actionLinearMps, angularRadps: previous.actionAngularRadps },
          config,
          batch.previousActions,
          at * config.actionSize,
        );
      if (tick.rewardEstimate !== undefined && Number.isFinite(tick.rewardEstimate)) {
        batch.rewards[at] = tick.rewardEstimate;
        batch.rewardKnown[at] = 1;
      }
    });
  });
  return batch;
}
