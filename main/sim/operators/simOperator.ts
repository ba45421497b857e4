// The human a bench simulates, behind one interface: it drives alone, watches a policy and takes over,
// answers preference questions (or skips them) and now and then rates what it just watched. Each
// operator is called once per 100 ms control tick with the robot's ground truth, which it may see late.
import type { DriveCommand } from '../../core/messages.ts';
import type { OperatorDecision, SegmentTruth } from '../scriptedOperator.ts';
import type { GroundTruth } from '../simRobot.ts';

export type { OperatorDecision, SegmentTruth, TakeoverReason } from '../scriptedOperator.ts';

export const SIM_OPERATORS = ['expert', 'realistic'] as const;
export type SimOperatorName = (typeof SIM_OPERATORS)[number];

export function isSimOperatorName(value: string): value is SimOperatorName {
  return (SIM_OPERATORS as readonly string[]).includes(value);
}

/** Which segment of a preference question is better, or 'skip': the operator declined to answer. */
export type PreferenceAnswer = 'a' | 'b' | 'skip';

/** The operator's verdict on the last few seconds of the policy's driving. */
export type OperatorRating = 'good' | 'bad';

/** The operator's takeovers so far, and how many of them a collision followed (see TakeoverTally). */
export interface TakeoverCounts {
  takeovers: number;
  /** Takeovers during which, or within a short while of handing back, the robot hit something. */
  followedByCollision: number;
}

export interface SimOperator {
  readonly name: SimOperatorName;
  /** One tick of driving alone: the command the operator gives. */
  drive(truth: GroundTruth): DriveCommand;
  /** One tick of watching a policy that proposes `proposed`: who drives, with what, and why. */
  supervise(truth: GroundTruth, proposed: DriveCommand): OperatorDecision;
  /** Answers a preference question about two segments, or skips it. */
  prefer(a: SegmentTruth, b: SegmentTruth): PreferenceAnswer;
  /**
   * Called every tick while the policy drives: usually undefined, now and then a rating of the last
   * few seconds (the rating belongs to the tick it is returned on).
   */
  rate(truth: GroundTruth): OperatorRating | undefined;
  /** Every takeover since the operator was made, and those a collision followed. */
  takeovers(): TakeoverCounts;
}
