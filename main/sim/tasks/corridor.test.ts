import { describe, it, expect } from 'vitest';
import { createArena, type Arena } from '../arena.ts';
import { EVALUATION_ARENA_SEEDS } from '../arenaSeeds.ts';
import { DIFF_DRIVE_SPEC } from '../diffDrive.ts';
import { NavigationField } from '../navigationField.ts';
import { CORRIDOR_SIDE_CLEARANCE_RANGE_M, DEFAULT_CORRIDOR_OPTIONS, placeCorridorEpisode } from './corridor.ts';
import { createSimTask } from './simTasks.ts';
import { DEFAULT_DOCK_OPTIONS } from './dock.ts';
import { DEFAULT_REACH_OPTIONS } from './reach.ts';
import { episodeSolids, type TaskEpisode } from './taskEpisode.ts';

const RADIUS_M = DIFF_DRIVE_SPEC.bodyRadiusM;

/** Whether a robot that keeps `marginM` (rim) from every solid can get from the start to the goal's centre among `boxes` (planned on a grid of `cellM`). */
function passable(arena: Arena, episode: TaskEpisode, boxes: TaskEpisode['fixtures']['boxes'], marginM: number, cellM = 0.05): boolean {
  const field = new NavigationField(
    arena.sizeM,
    { boxes, pillars: [] },
    { ...episode.goal, radiusM: 0 },
    {
      cellM,
      blockedWithinM: RADIUS_M + marginM,
      goalWithinM: 0.05,
      preferredClearanceM: 0,
      clearancePenalty: 0,
    },
  );
  return Number.isFinite(field.costToGoM(episode.startPose.xM, episode.startPose.yM));
}

describe('corridor', () => {
  it('every way from start to goal squeezes within 15 cm a side, and a robot keeping a few centimetres clear gets through', () => {
    for (const [index, arenaSeed] of EVALUATION_ARENA_SEEDS.entries()) {
      const arena = createArena(arenaSeed);
      const episodeSeed = index + 1;
      const episode = placeCorridorEpisode(arena, episodeSeed);
      const where = `arena ${arenaSeed}, episode ${episodeSeed}`;
      // Only the arena's walls and the corridor: the arena's obstacles can only take ways away, never add one.
      const corridorOnly = [...arena.walls, ...episode.fixtures.boxes];
      expect(passable(arena, episode, arena.walls, 0.15), `${where}: the open arena is passable with a 15 cm berth`).toBe(true);
      expect(passable(arena, episode, corridorOnly, 0.15), `${where}: no way through with a 15 cm berth`).toBe(false);
      // The whole episode, obstacles and all, with the margin the expert plans with.
      expect(passable(arena, episode, episodeSolids(arena, episode).boxes, 0.03, 0.025), `${where}: a way through with a 3 cm berth`).toBe(true);
    }
    expect(CORRIDOR_SIDE_CLEARANCE_RANGE_M[1]).toBeLessThan(0.15);
  });

  it('places the start and the goal pillar on opposite sides of the passage, each clear, from the seed alone', () => {
    const arena = createArena(EVALUATION_ARENA_SEEDS[0]!);
    expect(placeCorridorEpisode(arena, 4)).toEqual(placeCorridorEpisode(arena, 4));
    expect(placeCorridorEpisode(arena, 4)).not.toEqual(placeCorridorEpisode(arena, 5));
    const episode = placeCorridorEpisode(arena, 4);
    expect(episode).toMatchObject({ task: 'corridor', goal: { radiusM: 0.15 }, dockPose: undefined });
    expect(episode.goalPillar).toMatchObject({ xM: episode.goal.xM, yM: episode.goal.yM });
    expect(episode.fixtures.boxes.length).toBeGreaterThanOrEqual(6);
  });

  it('is judged as reach is, with 60 s to do it in', () => {
    const arena = createArena(EVALUATION_ARENA_SEEDS[1]!);
    const episode = placeCorridorEpisode(arena, 1);
    const task = createSimTask(arena.sizeM, episodeSolids(arena, episode), episode, {
      reach: DEFAULT_REACH_OPTIONS,
      corridor: DEFAULT_CORRIDOR_OPTIONS,
      dock: DEFAULT_DOCK_OPTIONS,
    });
    const atStart = { pose: episode.startPose, contact: false };
    expect(task.judge({ ...atStart, elapsedSecs: 59.9 })).toMatchObject({ status: 'running', progress: 0 });
    expect(task.judge({ ...atStart, elapsedSecs: 60 })).toMatchObject({ status: 'failed', reason: 'timeout' });
    expect(task.judge({ ...atStart, elapsedSecs: 3, contact: true })).toMatchObject({ status: 'failed', reason: 'collision' });
    const atGoal = { xM: episode.goal.xM + 0.5, yM: episode.goal.yM, yawRad: 0 };
    expect(task.judge({ pose: atGoal, contact: false, elapsedSecs: 20 })).toEqual({ status: 'succeeded', reason: 'reached-goal', progress: 1 });
  });
});
