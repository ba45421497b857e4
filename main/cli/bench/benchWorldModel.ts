// The learning bench's world model: trained in the stream's own thread on the ticks the stream holds,
// so that Reins' imagined rollouts (learning/imaginedCritic.ts) have a model to imagine in, as the
// live core's world-model learner gives one to the policy worker. Sequences are runs of one episode's
// ticks; the bench knows no reward (the reward ensemble scores imagined ticks), so the reward head
// is left untrained.
import type { TickBuffer } from '../../learning/tickBuffer.ts';
import { SeededRandom } from '../../core/util/seededRandom.ts';
import { actionFeatures, emptyBatch } from '../../worldmodel/replayBatch.ts';
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
      const run = buffer.runEndingAt(Math.min(buffer.size - 1, Math.floor(this.random.next() * buffer.size)), length);
      if (run !== undefined) runs.push(run);
    }
    return runs.length === batch ? runs : undefined;
  }

  private batchOf(buffer: TickBuffer, runs: readonly number[][]): TrainingBatch {
    const { length } = this.options;
    const config = this.rssm.config;
    const batch = emptyBatch(config, runs.length, length);
    batch.embeddings.set(buffer.gather(runs.flat()));
    runs.forEach((run, row) => {
      // As replay does: the first tick of a sequence has no previous action (zero).
      for (let t = 1; t < length; t++) actionFeatures(buffer.commandAt(run[t - 1]!), config, batch.previousActions, (row * length + t) * config.actionSize);
    });
    return batch;
  }
}
