import { describe, expect, it } from 'vitest';
import { createWorldModel, disposeWorldModel, sessionWorldModelConfig, VelocityReadout } from '../../session/worldModelParts.ts';
import { commandHeld, constantVelocityPoint, pathErrors } from './worldModelPaths.ts';
import type { SimEpisode } from './worldModelEpisodes.ts';

const EMBEDDING = 8;

/** A robot driving a circle (0.5 m/s, 0.25 rad/s) under one held command, its odometry exact. */
function circleEpisode(ticks: number, changeAt?: number): SimEpisode {
  const [v, w, dt] = [0.5, 0.25, 0.1];
  const episode: SimEpisode = {
    arenaSeed: 1,
    segment: 0,
    ticks,
    embeddingSize: EMBEDDING,
    embeddings: new Float32Array(ticks * EMBEDDING),
    actions: new Float32Array(ticks * 2),
    labels: Array.from({ length: ticks }, () => 'normal' as const),
    posesWorld: new Float32Array(ticks * 3),
    odomVelocities: new Float32Array(ticks * 2),
    randomDriven: new Uint8Array(ticks),
    contactOnsets: new Uint8Array(ticks),
    touching: new Uint8Array(ticks),
    events: [],
  };
  for (let tick = 0; tick < ticks; tick++) {
    const [x, y] = constantVelocityPoint(v, w, tick * dt);
    episode.posesWorld.set([x + 3, y - 1, w * tick * dt], tick * 3);
    episode.odomVelocities.set([v, w], tick * 2);
    episode.actions.set(changeAt !== undefined && tick >= changeAt ? [0, 0] : [v, w], tick * 2);
  }
  return episode;
}

describe('the predicted path bench', () => {
  it('extrapolates at constant velocity along the arc (and a line without turning)', () => {
    expect(constantVelocityPoint(0.5, 0, 2)).toEqual([1, 0]);
    const [x, y] = constantVelocityPoint(1, Math.PI / 2, 1); // a quarter circle of radius 2/π
    expect(x).toBeCloseTo(2 / Math.PI, 9);
    expect(y).toBeCloseTo(2 / Math.PI, 9);
    const [, right] = constantVelocityPoint(1, -0.5, 1);
    expect(right).toBeLessThan(0);
  });

  it('counts a tick only where the command stays held for the whole horizon, with odometry', () => {
    const changing = circleEpisode(40, 25);
    expect(commandHeld(changing, 0, 20)).toBe(true);
    expect(commandHeld(changing, 6, 20)).toBe(false); // the command changes at tick 25, inside 6 … 25
    expect(commandHeld(changing, 20, 20)).toBe(false); // no pose 2 s on
    const blind = circleEpisode(40);
    blind.odomVelocities[2] = Number.NaN;
    expect(commandHeld(blind, 1, 20)).toBe(false);
  });

  it('scores the path the robot drove in its own frame: constant velocity exact on a held circle, and no drawn path counted at its error', () => {
    const config = sessionWorldModelConfig('wm-xxs', { embeddingSize: EMBEDDING, actionLimits: [0.6, 2] });
    const model = createWorldModel(config, 1);
    try {
      // A readout never fitted: the cockpit would draw no path at any tick.
      const readout = new VelocityReadout({ offset: 0, size: EMBEDDING });
      const errors = pathErrors(model.rssm, [circleEpisode(40)], readout, 5);
      expect(errors.cv2s).toHaveLength(40 - 20 - 5);
      expect(errors.noPath).toBe(errors.cv2s.length);
      for (const error of [...errors.cv1s, ...errors.cv2s]) expect(error).toBeLessThan(1e-5);
      expect(errors.model2s).toEqual(errors.cv2s);
    } finally {
      disposeWorldModel(model);
    }
  });
});
