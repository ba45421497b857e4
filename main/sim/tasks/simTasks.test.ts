import { describe, it, expect } from 'vitest';
import { clearanceM, createArena, placeEpisode } from '../arena.ts';
import { EVALUATION_ARENA_SEEDS, trainingArenaSeeds } from '../arenaSeeds.ts';
import { DIFF_DRIVE_SPEC } from '../diffDrive.ts';
import { rayEntersAabb } from '../geometry.ts';
import { SimRobot } from '../simRobot.ts';
import { DOCK_MARKER_COLOUR, DOCK_STRIPE_COLOUR } from './dockLayout.ts';
import { placeTaskEpisode } from './simTasks.ts';
import { episodeSolids, reachEpisode } from './taskEpisode.ts';
import { SIM_TASKS } from './taskNames.ts';

const RADIUS_M = DIFF_DRIVE_SPEC.bodyRadiusM;

describe('placing episodes of each task', () => {
  it('places a valid episode of every task in every evaluation arena and in training arenas', () => {
    const arenaSeeds = [...EVALUATION_ARENA_SEEDS, ...trainingArenaSeeds(1, 6)];
    for (const task of SIM_TASKS) {
      for (const [index, arenaSeed] of arenaSeeds.entries()) {
        const arena = createArena(arenaSeed);
        const episode = placeTaskEpisode(arena, task, index + 1);
        const where = `${task} in arena ${arenaSeed}`;
        const solids = episodeSolids(arena, episode);
        expect(episode.task).toBe(task);
        expect(clearanceM(solids, episode.startPose.xM, episode.startPose.yM), `${where}: start`).toBeGreaterThanOrEqual(0.35);
        if (task === 'dock') {
          const dock = episode.dockPose!;
          expect(clearanceM(solids, dock.xM, dock.yM) - RADIUS_M, `${where}: the dock pose is a few centimetres short of the marker`).toBeCloseTo(0.06, 6);
          // Straight ahead of the dock pose, the first thing there is the marker's stripe.
          const ahead = solids.boxes
            .map((box) => ({ box, depthM: rayEntersAabb(dock.xM, dock.yM, Math.cos(dock.yawRad), Math.sin(dock.yawRad), box) }))
            .sort((a, b) => a.depthM - b.depthM)[0];
          expect(ahead?.box.colour, where).toEqual(DOCK_STRIPE_COLOUR);
          expect(
            solids.boxes.filter((box) => box.colour === DOCK_MARKER_COLOUR),
            where,
          ).toHaveLength(1);
          expect(episode.goal).toEqual({ xM: dock.xM, yM: dock.yM, radiusM: 0 });
        } else {
          expect(episode.goalPillar, where).toBeDefined();
          expect(clearanceM({ boxes: solids.boxes, pillars: [] }, episode.goal.xM, episode.goal.yM), `${where}: goal`).toBeGreaterThan(0.5);
        }
      }
    }
  });

  it('places reach episodes exactly as before', () => {
    const arena = createArena(5);
    expect(placeTaskEpisode(arena, 'reach', 9)).toEqual(reachEpisode(placeEpisode(arena, 9)));
  });
});

describe('time limits', () => {
  it.each([
    ['reach', 30],
    ['dock', 60],
    ['corridor', 60],
  ] as const)('%s times out after %i s', (task, limitSecs) => {
    const robot = new SimRobot({ task, arenaSeed: EVALUATION_ARENA_SEEDS[2]!, episodeSeed: 3, autoReset: false, camera: { widthPx: 8, heightPx: 6 } });
    robot.step(limitSecs - 0.1);
    expect(robot.episodeState().status).toBe('running');
    robot.step(0.2);
    expect(robot.episodeState()).toMatchObject({ status: 'failed', reason: 'timeout', elapsedSecs: expect.closeTo(limitSecs, 6) });
  });

  it('refuses a task it does not know, naming it and the ones it knows', () => {
    expect(() => new SimRobot({ task: 'dance' as never })).toThrow(/"dance".*reach, dock, corridor/);
  });
});
