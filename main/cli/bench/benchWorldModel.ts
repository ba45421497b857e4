// The learning bench's world model: trained in the stream's own thread on the ticks the stream holds,
// so that Reins' imagined rollouts (learning/imaginedCritic.ts) have a model to imagine in, as the
// live core's world-model learner gives one to the policy worker. Sequences are runs of one episode's
// ticks; the bench knows no reward (the reward ensemble scores imagined ticks), so the reward head
// is left untrained.
import { SeededRandom } from '../../core/util/seededRandom.ts';
import type { TickBuffer } from '../../session/learningParts.ts';
import {
  actionFeatures,
  createWorldModel,
  disposeWorldModel,
  emptyBatch,
  sessionWorldModelConfig,
  type PresetName,
  type Rssm,
  type TrainedWorldModel,
  type TrainingBatch,
} from '../../session/worldModelParts.ts';

export interface BenchWorldModelOptions {
  preset: PresetName;
  batch: number;
  length: number;
  seed: number;
}

export class BenchWorldModel {
  readonly rssm: Rssm;
  private readonly model: TrainedWorldModel;
  private readonly random: SeededRandom;

  constructor(
    embeddingSize: number,
    readonly options: BenchWorldModelOptions,
  ) {
    this.model = createWorldModel(sessionWorldModelConfig(options.preset, { embeddingSize }), options.seed);
    this.rssm = this.model.rssm;
    this.random = new SeededRandom(options.seed * 13 + 1);
  }

  get steps(): number {
    return this.model.trainer.steps;
  }

  /** Up to `count` training steps on runs drawn from the buffer; answers how many it took (0 while no run is long enough). */
  train(buffer: TickBuffer, count: number): number {
    let trained = 0;
    for (let step = 0; step < count; step++) {
      const runs = this.drawRuns(buffer);
      if (runs === undefined) break;
      const batch = this.batchOf(buffer, runs);
      if (!this.rssm.embeddingNormFitted()) this.rssm.fitEmbeddingNorm(batch.embeddings, batch.batch * batch.length);
      this.model.trainer.step(batch);
      trained++;
    }
    return trained;
  }

  dispose(): void {
    disposeWorldModel(this.model);
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
