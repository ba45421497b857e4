// Runs reach episodes in lockstep through the robot's own link, as a bench or test drives it: a
// controller sees the ground truth once per control tick and its command goes out on /cmd_vel.
// The robot resets itself when an episode ends; each outcome is read from the ground truth.
import { DEFAULT_TOPIC_MAP } from '../core/link.ts';
import { twistFromDrive, type DriveCommand } from '../core/messages.ts';
import type { LockstepLink } from './lockstepLink.ts';
import type { GroundTruth } from './simRobot.ts';
import type { EpisodeState } from './tasks/task.ts';

/** Whatever drives: the scripted operator, a random policy, a policy under supervision. */
export type TruthController = (truth: GroundTruth) => DriveCommand;

export interface EpisodeRunOptions {
  episodes: number;
  controlRateHz: number;
  /** Give up (throw) after this much simulated time: an episode that never ends is a bug. */
  maxSimSecs: number;
}

/** Drives until `episodes` episodes have ended; returns each as it ended. The robot must auto-reset. */
export function runEpisodes(link: LockstepLink, controller: TruthController, options: EpisodeRunOptions): EpisodeState[] {
  if (!link.robot.autoReset) throw new Error('runEpisodes needs a robot that resets itself at the end of each episode (autoReset)');
  const ended: EpisodeState[] = [];
  const periodSecs = 1 / options.controlRateHz;
  const startSecs = link.robot.simTimeSecs();
  let lastEndedIndex = link.robot.groundTruth().lastEndedEpisode?.index;
  while (ended.length < options.episodes) {
    if (link.robot.simTimeSecs() - startSecs > options.maxSimSecs) {
      throw new Error(`only ${ended.length} of ${options.episodes} episodes ended in ${options.maxSimSecs} s of simulated time`);
    }
    const truth = link.robot.groundTruth();
    link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(controller(truth)));
    link.advance(periodSecs);
    const last = link.robot.groundTruth().lastEndedEpisode;
    if (last !== undefined && last.index !== lastEndedIndex) {
      lastEndedIndex = last.index;
      ended.push(last);
    }
  }
  return ended;
}
