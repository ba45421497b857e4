// What a task is to the simulated robot: a judge, consulted after every physics step, of whether the
// episode is still running, has succeeded or has failed, and how far along it is.
import type { Solids } from '../arena.ts';
import type { Pose2D } from '../geometry.ts';

export type EpisodeStatus = 'running' | 'succeeded' | 'failed';
/** `reached-goal`: reach and corridor; `docked`: dock; the failures are every task's. */
export type EpisodeEndReason = 'reached-goal' | 'docked' | 'collision' | 'timeout';

/** An episode as benches, tests and `/sim/ground_truth` see it. */
export interface EpisodeState {
  /** Episodes started since the robot was made, counting from 1. */
  index: number;
  /** The seed that placed the start pose and goal (and the corridor, or the dock's marker). */
  seed: number;
  status: EpisodeStatus;
  /** Why it ended; undefined while running. */
  reason: EpisodeEndReason | undefined;
  /** Simulated time since the episode began (frozen once it ends). */
  elapsedSecs: number;
  /** The task's shaped progress, 0 at the start and 1 at success. */
  progress: number;
}

/** What the task is shown after each physics step. */
export interface TaskStep {
  elapsedSecs: number;
  pose: Pose2D;
  /** A solid pushed back on the robot during the step. */
  contact: boolean;
  /** The body's speed over the ground after the step; a judge that needs it (dock) counts its absence as moving. */
  speedMps?: number;
}

export interface TaskVerdict {
  status: EpisodeStatus;
  reason: EpisodeEndReason | undefined;
  progress: number;
}

export interface SimTask {
  judge(step: TaskStep): TaskVerdict;
  /** The world's solids changed mid-episode (an obstacle was dropped in): re-plan what depends on them. */
  solidsChanged(solids: Solids): void;
}
