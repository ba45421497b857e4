// An episode of any task: where the robot starts, what it drives to, and what the task adds to the
// arena (the goal pillar, the corridor's walls and clutter, the dock's marker).
import type { Arena, Episode, Footprints, SolidBox, SolidPillar } from '../arena.ts';
import type { Circle, Pose2D } from '../geometry.ts';
import type { SimTaskName } from './taskNames.ts';

export interface TaskEpisode {
  task: SimTaskName;
  startPose: Pose2D;
  /**
   * What the robot drives to. reach and corridor: the goal pillar's footprint. dock: the dock pose's
   * position with radius 0 (a point on the floor, not a solid).
   */
  goal: Circle;
  /** The goal pillar standing in the arena (reach, corridor); undefined for dock, whose goal is a marked pose. */
  goalPillar: SolidPillar | undefined;
  /** Solids the task adds to the arena besides the goal pillar: the corridor's walls and clutter, the dock's marker. */
  fixtures: { boxes: readonly SolidBox[]; pillars: readonly SolidPillar[] };
  /** dock: where the robot must come to rest (facing the marker on the wall); undefined for the other tasks. */
  dockPose: Pose2D | undefined;
}

/** A reach episode as the arena places it (or a test builds it), in the common shape. */
export function reachEpisode(episode: Episode): TaskEpisode {
  const { goal } = episode;
  return {
    task: 'reach',
    startPose: episode.startPose,
    goal: { xM: goal.xM, yM: goal.yM, radiusM: goal.radiusM },
    goalPillar: goal,
    fixtures: { boxes: [], pillars: [] },
    dockPose: undefined,
  };
}

/** Everything a ray can hit or the robot can bump into during the episode (before anything is dropped in). */
export function episodeSolids(arena: Arena, episode: TaskEpisode): { boxes: SolidBox[]; pillars: SolidPillar[] } {
  const goalPillars = episode.goalPillar === undefined ? [] : [episode.goalPillar];
  return { boxes: [...arena.walls, ...arena.obstacles, ...episode.fixtures.boxes], pillars: [...episode.fixtures.pillars, ...goalPillars] };
}

/** The footprints of what the task adds that the robot must keep clear of (its goal pillar is not one). */
export function taskObstacles(episode: TaskEpisode): Footprints {
  return {
    boxes: episode.fixtures.boxes.map(({ minXM, minYM, maxXM, maxYM }) => ({ minXM, minYM, maxXM, maxYM })),
    pillars: episode.fixtures.pillars.map(({ xM, yM, radiusM }) => ({ xM, yM, radiusM })),
  };
}
