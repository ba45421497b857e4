// The learning bench's world model: trained in the stream's own thread on the ticks the stream holds,
// so that Reins' imagined rollouts (learning/imaginedCritic.ts) have a model to imagine in, as the
// live core's world-model learner gives one to the policy worker. Sequences are runs of one episode's
// ticks; the bench knows no reward (the reward ensemble scores imagined ticks), so the reward head
// is left untrained.
import type { TickBuffer } from '../../learning/tickBuffer.ts';
import { SeededRandom } from '../../memory/seededRandom.ts';
import { Rssm, type TrainingBatch } from '../../worldmodel/rssm.ts';
import { disposeWeights } from '../../worldmodel/rssmWeights.ts';
import { worldModelConfig, type PresetName } from '../../worldmodel/worldModelConfig.ts';
import { WorldModelTrainer } from '../../worldmodel/worldModelTrainer.ts';

export interface BenchWorldModelOptions {
  preset: PresetName;
  batch: number;
  length: number;
  seed: number;
}

export class BenchWorldModel {
  readonly rssm: Rssm;
  private readonly trainer: WorldModelTrainer;
  private readonly random: SeededRandom;

  constructor(
    embeddingSize: number,
    readonly options: BenchWorldModelOptions,
  ) {
    this.rssm = new Rssm(worldModelConfig(options.preset, { embeddingSize }), options.seed);
    this.trainer = new WorldModelTrainer(this.rssm);
    this.random = new SeededRandom(options.seed * 13 + 1);
  }

  get steps(): number {
    return this.trainer.steps;
  }

  /** Up to `count` training steps on runs drawn from the buffer; answers how many it took (0 while no run is long enough). */
  train(buffer: TickBuffer, count: number): number {
    let trained = 0;
    for (let step = 0; step < count; step++) {
      const runs = this.drawRuns(buffer);
      if (runs === undefined) break;
      const batch = this.batchOf(buffer, runs);
      if (!this.rssm.embeddingNormFitted()) this.rssm.fitEmbeddingNorm(batch.embeddings, batch.batch * batch.length);
      this.trainer.step(batch);
      trained++;
    }
    return trained;
  }

  dispose(): void {
    this.trainer.dispose();
    disposeWeights(this.rssm.weights);
  }

  private drawRuns(buffer: TickBuffer): number[][] | undefined {
    const { batch, length } = this.options;
    if (buffer.size < length) return undefined;
    const runs: number[][] = [];
    for (let attempt = 0; attempt < batch * 8 && runs.length < batch; attempt++) {
      const last = Math.min(buffer.size - 1, Math.floor(this.random.next() * buffer.size));
      const episodeId = buffer.episodeIds[last]!;
      const lastStep = buffer.steps[last]!;
      const run: number[] = [];
      for (let step = lastStep - length + 1; step <= lastStep; step++) {
        const slot = buffer.slotOf(episodeId, step);
        if (slot === undefined) break;
        run.push(slot);
      }
      if (run.length === length) runs.push(run);
    }
    return runs.length === batch ? runs : undefined;
  }

  private batchOf(buffer: TickBuffer, runs: readonly number[][]): TrainingBatch {
    const { length } = this.options;
    const { embeddingSize, actionSize, actionLimits } = this.rssm.config;
    const rows = runs.length * length;
    const previousActions = new Float32Array(rows * actionSize);
    const continues = new Float32Array(rows).fill(1);
    runs.forEach((run, row) => {
      // As replay does: the first tick of a sequence has no previous action (zero).
      for (let t = 1; t < length; t++) {
        const previous = run[t - 1]!;
        for (let axis = 0; axis < actionSize; axis++) {
          const value = buffer.actions[previous * 2 + axis]! / (actionLimits[axis] ?? 1);
          previousActions[(row * length + t) * actionSize + axis] = Math.max(-1, Math.min(1, value));
        }
      }
    });
    const embeddings = buffer.gather(runs.flat());
    if (embeddings.length !== rows * embeddingSize) throw new RangeError(`bench world model: ${embeddings.length} embedding values for ${rows} ticks of ${embeddingSize}`);
    return { batch: runs.length, length, embeddings, previousActions, rewards: new Float32Array(rows), rewardKnown: new Float32Array(rows), continues };
  }
}
