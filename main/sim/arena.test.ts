import { describe, it, expect } from 'vitest';
import { clearanceM, createArena, placeEpisode, solidsOf } from './arena.ts';
import { distanceToAabbM } from './geometry.ts';

describe('arena layout', () => {
  it('is the same for the same seed and different for another', () => {
    expect(createArena(3)).toEqual(createArena(3));
    expect(createArena(3).obstacles).not.toEqual(createArena(4).obstacles);
    expect(placeEpisode(createArena(3), 9)).toEqual(placeEpisode(createArena(3), 9));
    expect(placeEpisode(createArena(3), 9)).not.toEqual(placeEpisode(createArena(3), 10));
  });

  it('leaves room to pass every obstacle and starts the robot clear of everything, far from the goal', () => {
    for (let arenaSeed = 0; arenaSeed < 30; arenaSeed++) {
      const arena = createArena(arenaSeed);
      expect(arena.obstacles).toHaveLength(4);
      for (const obstacle of arena.obstacles) {
        for (const wall of arena.walls) expect(gapM(obstacle, wall)).toBeGreaterThanOrEqual(0.6 - 1e-9);
        for (const other of arena.obstacles) if (other !== obstacle) expect(gapM(obstacle, other)).toBeGreaterThanOrEqual(0.6);
      }
      for (let episodeSeed = 0; episodeSeed < 5; episodeSeed++) {
        const { startPose, goal } = placeEpisode(arena, episodeSeed);
        const solids = solidsOf(arena, goal);
        expect(clearanceM(solids, startPose.xM, startPose.yM)).toBeGreaterThanOrEqual(0.35);
        expect(Math.hypot(startPose.xM - goal.xM, startPose.yM - goal.yM)).toBeGreaterThanOrEqual(2);
        for (const box of solids.boxes) expect(distanceToAabbM(goal.xM, goal.yM, box)).toBeGreaterThanOrEqual(0.75);
      }
    }
  });

  it('rejects sizes and counts that make no arena', () => {
    expect(() => createArena(1, { sizeM: 1 })).toThrow(RangeError);
    expect(() => createArena(1, { obstacleCount: 1.5 })).toThrow(RangeError);
  });
});

function gapM(a: { minXM: number; minYM: number; maxXM: number; maxYM: number }, b: typeof a): number {
  return Math.hypot(Math.max(a.minXM - b.maxXM, b.minXM - a.maxXM, 0), Math.max(a.minYM - b.maxYM, b.minYM - a.maxYM, 0));
}
