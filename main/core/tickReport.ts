// What one control tick did (DESIGN §2), as every listener of the tick receives it: the frame, the
// embedding, the world model's belief, who drove and what went out, and the versions that made it. A
// listener reads these facts and nothing else of the loop, so the order listeners run in cannot matter.
import type { Belief } from './belief.ts';
import type { ObservationFrame } from './frame.ts';
import type { DriveCommand } from './messages.ts';
import type { Embedding } from './perception.ts';

/** Who drives: e-stop beats the operator, the operator beats the policy (with autonomy on), else idle. */
export type Driver = 'idle' | 'operator' | 'policy' | 'estopped';

export interface SentCommand {
  /** What actually went out, after the safety filter: this, not the request, is what gets recorded. */
  command: DriveCommand;
  /** What the driver asked for. */
  requested: DriveCommand;
  /** The safety filter changed the request (a speed or acceleration limit applied). */
  clipped: boolean;
  driver: Driver;
  atMs: number;
  /** False when the link was down and the command was dropped (never queued). */
  delivered: boolean;
}

export interface TickReport {
  frame: ObservationFrame;
  embedding: Embedding;
  /** What the world model made of this tick; undefined without one, or when it failed this tick. */
  belief: Belief | undefined;
  driver: Driver;
  sent: SentCommand | undefined;
  durationMs: number;
  /** How long after it was due the timer started this tick; undefined for a tick called directly. */
  startLatenessMs?: number;
  /** The version of the policy the loop held at this tick, whoever drove (a listener may swap it after). */
  policyVersion: string;
  /** Autonomy was on at this tick: the policy drives whenever the operator does not. */
  autonomous: boolean;
  /**
   * The command in effect after this tick, with who gave it (`driver`): what went out this tick, or the
   * last one before it. An operator's command goes out when it arrives, between ticks, so a tick where
   * the operator drives may send nothing itself.
   */
  commandInEffect: SentCommand | undefined;
  /** The world model's weights that made `belief`; undefined without one, or when it failed this tick. */
  worldModelVersion: string | undefined;
  /**
   * Where this tick falls in the session's episodes: the episodes the operator has ended before it
   * (0 until the first `end-episode`), and its step within its episode. Memory rows and the learner
   * name the tick by `episodeIdOf(session, episode.index)` and `episode.step`: nothing joins ticks
   * across an episode's end.
   */
  episode: TickEpisode;
}

export interface TickEpisode {
  index: number;
  step: number;
}

/** How an episode ended, as the operator says it (the `end-episode` request). */
export type EpisodeOutcome = 'reached-goal' | 'failed';
export const EPISODE_OUTCOMES: readonly EpisodeOutcome[] = Object.freeze(['reached-goal', 'failed']);

/** The id memory and the learner give a session's episode: the session's own for the first, then `session#2`, `session#3`… */
export function episodeIdOf(sessionEpisodeId: string, index: number): string {
  return index === 0 ? sessionEpisodeId : `${sessionEpisodeId}#${index + 1}`;
}
