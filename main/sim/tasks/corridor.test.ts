import { describe, it, expect } from 'vitest';
import { clearanceM, createArena, type Arena } from '../arena.ts';
import { EVALUATION_ARENA_SEEDS } from '../arenaSeeds.ts';
import { DIFF_DRIVE_SPEC } from '../diffDrive.ts';
import { NavigationField } from '../navigationField.ts';
import {
  channelOffset,
  CORRIDOR_MAX_ROUTE_M,
  CORRIDOR_SIDE_CLEARANCE_RANGE_M,
  corridorChannel,
  DEFAULT_CORRIDOR_OPTIONS,
  placeCorridorEpisode,
  type CorridorChannel,
} from './corridor.ts';
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

  it('keeps the way from start to goal within 6 m, so that a careful operator can drive it in the time limit', () => {
    const lengths: number[] = [];
    for (const arenaSeed of EVALUATION_ARENA_SEEDS) {
      const arena = createArena(arenaSeed);
      for (let episodeSeed = 1; episodeSeed <= 5; episodeSeed++) {
        const episode = placeCorridorEpisode(arena, episodeSeed);
        const field = new NavigationField(arena.sizeM, { boxes: episodeSolids(arena, episode).boxes, pillars: [episode.goalPillar!] }, episode.goal, {
          cellM: 0.05,
          blockedWithinM: RADIUS_M + 0.04,
          goalWithinM: episode.goal.radiusM + RADIUS_M + DEFAULT_CORRIDOR_OPTIONS.successGapM,
          preferredClearanceM: 0,
          clearancePenalty: 0,
        });
        lengths.push(field.costToGoM(episode.startPose.xM, episode.startPose.yM));
      }
    }
    expect(Math.max(...lengths)).toBeLessThanOrEqual(CORRIDOR_MAX_ROUTE_M);
    // Still a detour: the passage is part of the way, not all of it.
    expect(Math.min(...lengths)).toBeGreaterThan(2 * 0.8);
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

  it('reads its channel back from its boxes: side walls at the half-width either side of the centre line, 9–14 cm a side (and half a bump) of room', () => {
    for (const [index, arenaSeed] of EVALUATION_ARENA_SEEDS.slice(0, 5).entries()) {
      const episode = placeCorridorEpisode(createArena(arenaSeed), index + 1);
      const channel = corridorChannel(episode.fixtures.boxes);
      const where = `arena ${arenaSeed}`;
      const fixtures = { boxes: episode.fixtures.boxes, pillars: [] };
      const at = (alongM: number, acrossM: number) => (channel.alongAxis === 'x' ? { xM: alongM, yM: acrossM } : { xM: acrossM, yM: alongM });
      const roomM = channel.halfWidthM - RADIUS_M;
      expect(roomM, where).toBeGreaterThanOrEqual(CORRIDOR_SIDE_CLEARANCE_RANGE_M[0] + 0.03);
      expect(roomM, where).toBeLessThanOrEqual(CORRIDOR_SIDE_CLEARANCE_RANGE_M[1] + 0.06);
      for (let step = 0; step <= 20; step++) {
        const centre = at(channel.alongFromM + ((channel.alongToM - channel.alongFromM) * step) / 20, channel.centreAcrossM);
        const clearM = clearanceM(fixtures, centre.xM, centre.yM);
        // The channel is half a bump (3–6 cm) wider than the pinch, so a bump comes that much nearer the line than the pinch's clearance; nothing is nearer than that, nor farther than the side walls.
        expect(clearM, where).toBeGreaterThanOrEqual(RADIUS_M + CORRIDOR_SIDE_CLEARANCE_RANGE_M[0] - 0.06);
        expect(clearM, where).toBeLessThanOrEqual(channel.halfWidthM + 1e-9);
      }
      const middleM = (channel.alongFromM + channel.alongToM) / 2;
      for (const side of [-1, 1]) {
        const face = at(middleM, channel.centreAcrossM + side * channel.halfWidthM);
        expect(clearanceM(fixtures, face.xM, face.yM), where).toBeCloseTo(0, 9);
      }
    }
  });

  it('measures a pose off the centre line to its left as it faces along the channel, either way', () => {
    const alongX: CorridorChannel = { alongAxis: 'x', centreAcrossM: 1, alongFromM: -0.5, alongToM: 0.7, halfWidthM: 0.35 };
    expect(channelOffset(alongX, { xM: 0.3, yM: 1.05, yawRad: 0.2 })).toEqual({ alongM: expect.closeTo(0.2, 12), leftOfCentreM: expect.closeTo(0.05, 12) });
    expect(channelOffset(alongX, { xM: 0.3, yM: 1.05, yawRad: Math.PI - 0.2 }).leftOfCentreM).toBeCloseTo(-0.05, 12);
    const alongY: CorridorChannel = { alongAxis: 'y', centreAcrossM: 2, alongFromM: -1, alongToM: 1, halfWidthM: 0.35 };
    // Facing +y, left is −x.
    expect(channelOffset(alongY, { xM: 1.95, yM: 0.4, yawRad: Math.PI / 2 })).toEqual({
      alongM: expect.closeTo(0.4, 12),
      leftOfCentreM: expect.closeTo(0.05, 12),
    });
    expect(channelOffset(alongY, { xM: 1.95, yM: 0.4, yawRad: -Math.PI / 2 }).leftOfCentreM).toBeCloseTo(-0.05, 12);
  });

  it('refuses boxes that are not a corridor', () => {
    const box = { minXM: 0, minYM: 0, maxXM: 1, maxYM: 1 };
    expect(() => corridorChannel([box, box, box])).toThrow(/at least 4 boxes/);
    expect(() => corridorChannel([box, box, box, { minXM: 2, minYM: 2, maxXM: 3, maxYM: 3 }])).toThrow(/side walls/);
  });
});
