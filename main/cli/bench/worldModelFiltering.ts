// Filtering recorded episodes through a world model, as the cockpit's filter does tick by tick, for
// the quality rows of `reins bench worldmodel` (open-loop error, surprise, the predicted path).
import * as tf from '@tensorflow/tfjs-core';
import { actionFeatures, type Rssm, type RssmState, type WorldModelConfig } from '../../session/worldModelParts.ts';
import type { SimEpisode } from './worldModelEpisodes.ts';

/** The action that led to tick `tick` (taken after tick − 1), as world-model features. */
export function previousAction(episode: SimEpisode, tick: number, config: WorldModelConfig, out: Float32Array, offset: number): void {
  if (tick === 0) return;
  actionFeatures({ linearMps: episode.actions[(tick - 1) * 2]!, angularRadps: episode.actions[(tick - 1) * 2 + 1]! }, config, out, offset);
}

/** Filters every episode (one batch row each) tick by tick, calling `visit` with the state after each tick. */
export function filterEpisodes(
  rssm: Rssm,
  episodes: readonly SimEpisode[],
  visit: (
    tick: number,
    state: RssmState,
    surpriseNats: Float32Array,
    predictionError: Float32Array,
    dimensionErrors: Float32Array,
    changeErrors: Float32Array,
  ) => void,
): void {
  const { config } = rssm;
  const ticks = Math.min(...episodes.map((episode) => episode.ticks));
  let state = rssm.initial(episodes.length);
  // The embeddings the state was filtered from, as the cockpit's filter keeps them for the change.
  let previous: tf.Tensor2D | undefined;
  for (let tick = 0; tick < ticks; tick++) {
    const actions = new Float32Array(episodes.length * config.actionSize);
    const embeddings = new Float32Array(episodes.length * config.embeddingSize);
    episodes.forEach((episode, row) => {
      previousAction(episode, tick, config, actions, row * config.actionSize);
      embeddings.set(episode.embeddings.subarray(tick * config.embeddingSize, (tick + 1) * config.embeddingSize), row * config.embeddingSize);
    });
    const [action, embedding] = [tf.tensor2d(actions, [episodes.length, config.actionSize]), tf.tensor2d(embeddings, [episodes.length, config.embeddingSize])];
    const step = rssm.observe(state, action, embedding, previous);
    tf.dispose([action, state.deterministic, state.stochastic, ...(previous ? [previous] : [])]);
    state = step.state;
    previous = embedding;
    visit(
      tick,
      state,
      step.surpriseNats.dataSync() as Float32Array,
      step.predictionError.dataSync() as Float32Array,
      step.dimensionErrors.dataSync() as Float32Array,
      step.changeErrors.dataSync() as Float32Array,
    );
    tf.dispose([step.surpriseNats, step.predictionError, step.dimensionErrors, step.changeErrors]);
  }
  tf.dispose([state.deterministic, state.stochastic, ...(previous ? [previous] : [])]);
}
