// `reins bench worldmodel`, path rows (issue 30): the path the cockpit draws against the path the
// robot then drove. The cockpit's path is the world model imagining the next 2 s under the command in
// effect, read as velocities by a readout fitted on (embedding, odometry) ticks and integrated
// (main/worldmodel/pathPrediction.ts, as the running core does it). Here the readout is fitted on the
// training episodes' ticks, and the path is drawn at every held-out tick whose command is then held
// for the whole horizon (neither predictor knows future commands): its points 1 s and 2 s ahead are
// compared with where the robot truly was then, in the robot's frame at the tick, against a
// constant-velocity extrapolation of the odometry's velocity at that tick. A tick where the cockpit
// would draw no path (readout not trusted, imagination failed) counts at the constant-velocity error.
import * as tf from '@tensorflow/tfjs-core';
import { percentiles } from '../../core/util/latencyWindow.ts';
import { integratePath, PATH_HORIZON_STEPS, readoutTrusted, VelocityReadout, type Rssm } from '../../session/worldModelParts.ts';
import type { EmbeddingSlot } from '../../core/perception.ts';
import type { BenchRow } from './report.ts';
import { filterEpisodes, previousAction } from './worldModelFiltering.ts';
import { CONTROL_PERIOD_SECS, type SimEpisode } from './worldModelEpisodes.ts';

/** A command counts as held while it stays this close to the one at the tick (m/s, rad/s): the operator's key held, the explorer's draw kept. */
export const HELD_TOLERANCE = { linearMps: 0.02, angularRadps: 0.05 };

export interface PathErrors {
  /** Metres, per evaluated tick: the cockpit's path at 1 s and 2 s, and constant velocity at the same. */
  model1s: number[];
  model2s: number[];
  cv1s: number[];
  cv2s: number[];
  /** Evaluated ticks where the cockpit would have drawn no path (counted at the constant-velocity error). */
  noPath: number;
}

export function pathRows(
  rssm: Rssm,
  training: readonly SimEpisode[],
  heldOut: readonly SimEpisode[],
  slots: readonly EmbeddingSlot[],
  warmupTicks: number,
): BenchRow[] {
  const readout = fittedReadout(training, slots);
  const errors = pathErrors(rssm, heldOut, readout, warmupTicks);
  const quality = readout.fitQuality();
  const count = errors.model2s.length;
  const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const ratio = mean(errors.model2s) / mean(errors.cv2s);
  process.stderr.write(
    `worldmodel: path at ${count} held-command ticks (${errors.noPath} with no path drawn), readout R² ${quality ? `${quality.linear.toFixed(2)} / ${quality.angular.toFixed(2)}` : 'not fitted'}; ` +
      `mean error 1 s ${mean(errors.model1s).toFixed(3)} m (constant velocity ${mean(errors.cv1s).toFixed(3)}), 2 s ${mean(errors.model2s).toFixed(3)} m (${mean(errors.cv2s).toFixed(3)})\n`,
  );
  if (count === 0) throw new Error('no held-out tick has its command held for the whole path horizon: record longer segments');
  const metres = (name: string, values: number[]): BenchRow => ({ name, unit: 'm', ...percentiles(values), value: mean(values) });
  return [
    metres('path-error-1s', errors.model1s),
    metres('path-error-2s', errors.model2s),
    metres('path-error-cv-1s', errors.cv1s),
    metres('path-error-cv-2s', errors.cv2s),
    { name: 'path-error-ratio-2s', unit: 'ratio', p50: null, p95: null, p99: null, value: ratio },
  ];
}

/** The readout as a running core's would be after these ticks: each tick's embedding against the odometry's velocity. */
function fittedReadout(episodes: readonly SimEpisode[], slots: readonly EmbeddingSlot[]): VelocityReadout {
  const proprio = slots.find((slot) => slot.name === 'proprio');
  if (proprio === undefined) throw new Error('the encoders have no proprioception slot: the cockpit draws no path');
  const readout = new VelocityReadout({ offset: proprio.offset, size: proprio.size });
  for (const episode of episodes) {
    for (let tick = 0; tick < episode.ticks; tick++) {
      const embedding = episode.embeddings.subarray(tick * episode.embeddingSize, (tick + 1) * episode.embeddingSize);
      readout.observe(embedding, { linearMps: episode.odomVelocities[tick * 2]!, angularRadps: episode.odomVelocities[tick * 2 + 1]! });
    }
  }
  return readout;
}

export function pathErrors(rssm: Rssm, episodes: readonly SimEpisode[], readout: VelocityReadout, warmupTicks: number): PathErrors {
  const { config } = rssm;
  const horizon = PATH_HORIZON_STEPS;
  const oneSecond = Math.round(1 / CONTROL_PERIOD_SECS);
  const trusted = readoutTrusted(readout);
  const errors: PathErrors = { model1s: [], model2s: [], cv1s: [], cv2s: [], noPath: 0 };
  filterEpisodes(rssm, episodes, (tick, state) => {
    const rows = episodes.map((episode, row) => ({ episode, row })).filter(({ episode }) => tick >= warmupTicks && commandHeld(episode, tick, horizon));
    if (rows.length === 0) return;
    let imagined: Float32Array | undefined;
    if (trusted) {
      // The command in effect at the tick, held for the horizon, as the cockpit imagines it; one batch row per episode.
      const actions = new Float32Array(episodes.length * horizon * config.actionSize);
      episodes.forEach((episode, row) => {
        for (let ahead = 0; ahead < horizon; ahead++) previousAction(episode, tick + 1, config, actions, (row * horizon + ahead) * config.actionSize);
      });
      const input = tf.tensor3d(actions, [episodes.length, horizon, config.actionSize]);
      const output = rssm.imagine(state, input);
      imagined = output.dataSync() as Float32Array;
      tf.dispose([input, output]);
    }
    for (const { episode, row } of rows) {
      const driven = (ahead: number) => drivenInRobotFrame(episode, tick, ahead);
      const velocity = { linearMps: episode.odomVelocities[tick * 2]!, angularRadps: episode.odomVelocities[tick * 2 + 1]! };
      const cv = (secs: number) => constantVelocityPoint(velocity.linearMps, velocity.angularRadps, secs);
      const cv1 = distance(cv(oneSecond * CONTROL_PERIOD_SECS), driven(oneSecond));
      const cv2 = distance(cv(horizon * CONTROL_PERIOD_SECS), driven(horizon));
      const size = horizon * config.embeddingSize;
      const path = imagined && integratePath(imagined.subarray(row * size, (row + 1) * size), config.embeddingSize, readout, CONTROL_PERIOD_SECS);
      errors.cv1s.push(cv1);
      errors.cv2s.push(cv2);
      if (path === undefined) {
        errors.noPath++;
        errors.model1s.push(cv1);
        errors.model2s.push(cv2);
        continue;
      }
      errors.model1s.push(distance(path.pointsM[oneSecond]!, driven(oneSecond)));
      errors.model2s.push(distance(path.pointsM[horizon]!, driven(horizon)));
    }
  });
  return errors;
}

/** Whether the command given after tick `tick` stays (within HELD_TOLERANCE) the same for `horizon` ticks, all of them recorded. */
export function commandHeld(episode: SimEpisode, tick: number, horizon: number): boolean {
  if (tick + horizon >= episode.ticks) return false;
  const [linear, angular] = [episode.actions[tick * 2]!, episode.actions[tick * 2 + 1]!];
  for (let ahead = 1; ahead < horizon; ahead++) {
    const at = (tick + ahead) * 2;
    if (Math.abs(episode.actions[at]! - linear) > HELD_TOLERANCE.linearMps || Math.abs(episode.actions[at + 1]! - angular) > HELD_TOLERANCE.angularRadps)
      return false;
  }
  return Number.isFinite(episode.odomVelocities[tick * 2]!) && Number.isFinite(episode.odomVelocities[tick * 2 + 1]!);
}

/** Where the robot truly was `ahead` ticks after `tick`, in its frame at `tick` (x forward, y left). */
function drivenInRobotFrame(episode: SimEpisode, tick: number, ahead: number): [number, number] {
  const [x0, y0, yaw0] = episode.posesWorld.subarray(tick * 3, tick * 3 + 3);
  const [x1, y1] = episode.posesWorld.subarray((tick + ahead) * 3, (tick + ahead) * 3 + 2);
  const [dx, dy] = [x1! - x0!, y1! - y0!];
  const [cos, sin] = [Math.cos(yaw0!), Math.sin(yaw0!)];
  return [cos * dx + sin * dy, -sin * dx + cos * dy];
}

/** Where a robot keeping this speed and turn rate is after `secs`, in its frame now (an arc, or a line). */
export function constantVelocityPoint(linearMps: number, angularRadps: number, secs: number): [number, number] {
  const turn = angularRadps * secs;
  if (Math.abs(turn) < 1e-9) return [linearMps * secs, 0];
  const radius = linearMps / angularRadps;
  return [radius * Math.sin(turn), radius * (1 - Math.cos(turn))];
}

function distance(a: readonly [number, number], b: readonly [number, number]): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}
