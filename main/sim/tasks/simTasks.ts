// The tasks by name: placing an episode of one from its seed, and making the judge of an episode.
import { placeEpisode, type Arena, type Solids } from '../arena.ts';
import { placeCorridorEpisode } from './corridor.ts';
import { DockTask, type DockOptions } from './dock.ts';
import { placeDockEpisode } from './dockLayout.ts';
import { ReachTask, type ReachOptions } from './reach.ts';
import type { SimTask } from './task.ts';
import { reachEpisode, type TaskEpisode } from './taskEpisode.ts';
import { unknownTaskError, type SimTaskName } from './taskNames.ts';

export interface TaskOptions {
  reach: ReachOptions;
  corridor: ReachOptions;
  dock: DockOptions;
}

/** Places an episode of the task from its seed; the same arena, task and seed always give the same episode. */
export function placeTaskEpisode(arena: Arena, task: SimTaskName, episodeSeed: number): TaskEpisode {
  switch (task) {
    case 'reach':
      return reachEpisode(placeEpisode(arena, episodeSeed));
    case 'dock':
      return placeDockEpisode(arena, episodeSeed);
    case 'corridor':
      return placeCorridorEpisode(arena, episodeSeed);
    default:
      throw unknownTaskError(String(task satisfies never));
  }
}

/** The judge for the episode's task, planned on the episode's solids. */
export function createSimTask(arenaSizeM: number, solids: Solids, episode: TaskEpisode, options: TaskOptions): SimTask {
  switch (episode.task) {
    case 'reach':
      return new ReachTask(arenaSizeM, solids, episode.goal, episode.startPose, options.reach);
    case 'corridor':
      return new ReachTask(arenaSizeM, solids, episode.goal, episode.startPose, options.corridor);
    case 'dock': {
      if (episode.dockPose === undefined) throw new Error('a dock episode needs its dock pose');
      return new DockTask(arenaSizeM, solids, episode.dockPose, episode.startPose, options.dock);
    }
    default:
      throw unknownTaskError(String(episode.task satisfies never));
  }
}
