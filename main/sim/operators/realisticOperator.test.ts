import { describe, expect, it } from 'vitest';
import { DEFAULT_TOPIC_MAP } from '../../core/link.ts';
import { twistFromDrive, type DriveCommand } from '../../core/messages.ts';
import { GOAL_COLOUR } from '../arena.ts';
import { runEpisodes } from '../episodeRunner.ts';
import type { Pose2D } from '../geometry.ts';
import { createSimLink, type LockstepLink } from '../lockstepLink.ts';
import { ScriptedOperator, type OperatorDecision } from '../scriptedOperator.ts';
import { createOperator } from './createOperator.ts';
import { RealisticOperator } from './realisticOperator.ts';
import { REALISTIC_OPERATOR_PARAMETERS } from './realisticParameters.ts';
import type { SimOperator } from './simOperator.ts';

/** An empty 10 m arena (walls at ±5 m), the robot at `startPose`, the goal in the far north-west corner. */
function openArena(startPose: Pose2D): LockstepLink {
  const link = createSimLink({ arenaSeed: 7, episodeSeed: 7, arena: { sizeM: 10, obstacleCount: 0 }, autoReset: false, epochMs: 0 });
  link.robot.startEpisode({ startPose, goal: { xM: -4, yM: 4, radiusM: 0.15, heightM: 1, colour: GOAL_COLOUR } });
  return link;
}

type Supervisor = Pick<SimOperator, 'supervise'> | ScriptedOperator;

/**
 * Plays up to `ticks` control ticks at 10 Hz with the operator watching a policy that always proposes
 * `proposed` (and `beforeTick` run first each tick); stops after showing the operator an ended episode.
 */
function supervise(
  link: LockstepLink,
  operator: Supervisor,
  proposed: DriveCommand,
  ticks: number,
  beforeTick = (_tick: number): void => {},
): OperatorDecision[] {
  const decisions: OperatorDecision[] = [];
  for (let tick = 0; tick < ticks; tick++) {
    beforeTick(tick);
    const truth = link.robot.groundTruth();
    decisions.push(operator.supervise(truth, proposed));
    if (truth.episode.status !== 'running') break;
    link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(decisions.at(-1)!.command));
    link.advance(0.1);
  }
  return decisions;
}

const firstTakeover = (decisions: readonly OperatorDecision[]): number => decisions.findIndex((decision) => decision.driver === 'operator');

/** The lengths, in ticks, of the operator's stretches at the wheel (the last one only if it ended). */
function takeoverLengths(decisions: readonly OperatorDecision[]): number[] {
  const lengths: number[] = [];
  let length = 0;
  for (const decision of decisions) {
    if (decision.driver === 'operator') length++;
    else if (length > 0) {
      lengths.push(length);
      length = 0;
    }
  }
  return lengths;
}

describe('the realistic operator', () => {
  it('keeps the figures its documentation cites', () => {
    expect(REALISTIC_OPERATOR_PARAMETERS).toEqual({
      reactionMinSecs: 0.3,
      reactionMaxSecs: 0.5,
      cruiseMinMps: 0.25,
      cruiseMaxMps: 0.35,
      planMarginM: 0.08,
      steeringLagSecs: 0.15,
      steeringOvershootGain: 1.3,
      linearNoiseFloorMps: 0.03,
      angularNoiseFloorRadps: 0.1,
      noiseShareOfCommand: 0.1,
      takeoverTimeToCollisionSecs: 1,
      stallSecs: 6,
      driveSecs: 3,
      earlyHandBackRate: 0.25,
      earlyHandBackSecs: 1,
      wrongAnswerRate: 0.2,
      skipRate: 0.2,
      ratingMeanIntervalSecs: 150,
      ratingWindowSecs: 5,
      wrongRatingRate: 0.2,
    });
  });

  it('takes over on the time to collision it saw one reaction time ago: 3–5 ticks after a prompt operator would', () => {
    const toWall: DriveCommand = { linearMps: 0.5, angularRadps: 0 };
    const promptLink = openArena({ xM: 2.5, yM: 0, yawRad: 0 });
    const prompt = firstTakeover(supervise(promptLink, new ScriptedOperator(promptLink.robot.arena, { reactionDelayTicks: 0 }), toWall, 60));
    expect(prompt).toBeGreaterThan(0);
    const lags = new Set<number>();
    for (let seed = 1; seed <= 6; seed++) {
      const link = openArena({ xM: 2.5, yM: 0, yawRad: 0 });
      const operator = new RealisticOperator(link.robot.arena, seed);
      let reactionSecs = 0;
      const decisions = supervise(link, operator, toWall, 60, (tick) => {
        if (tick === 1) reactionSecs = operator.currentReactionSecs;
      });
      const lag = firstTakeover(decisions) - prompt;
      expect(decisions[prompt + lag]?.reason, `seed ${seed}`).toBe('imminent-collision');
      expect(reactionSecs).toBeGreaterThanOrEqual(0.3);
      expect(reactionSecs).toBeLessThanOrEqual(0.5);
      expect(Math.abs(lag - reactionSecs * 10), `seed ${seed}: lag ${lag} ticks, reaction ${reactionSecs} s`).toBeLessThanOrEqual(0.5 + 1e-6);
      lags.add(lag);
    }
    expect([...lags].sort()).toEqual([3, 4, 5]);
  });

  it('does not stop in time for an obstacle dropped close ahead, where the expert does, and counts those takeovers', () => {
    const crashes = (name: 'expert' | 'realistic'): { takeovers: number; followedByCollision: number } => {
      const totals = { takeovers: 0, followedByCollision: 0 };
      for (let seed = 1; seed <= 4; seed++) {
        const link = openArena({ xM: 0, yM: -3, yawRad: Math.PI / 2 });
        const operator = createOperator(name, link.robot.arena, seed);
        supervise(link, operator, { linearMps: 0.5, angularRadps: 0 }, 50, (tick) => {
          if (tick === 20) link.inject({ kind: 'drop-obstacle', distanceM: 0.6, radiusM: 0.1 });
        });
        totals.takeovers += operator.takeovers().takeovers;
        totals.followedByCollision += operator.takeovers().followedByCollision;
      }
      return totals;
    };
    expect(crashes('expert')).toEqual({ takeovers: 4, followedByCollision: 0 });
    const realistic = crashes('realistic');
    expect(realistic.takeovers).toBe(4);
    expect(realistic.followedByCollision).toBeGreaterThanOrEqual(3);
  });

  it('waits longer than the expert for a stuck robot, and sometimes hands back after only a second', () => {
    const lengths: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const link = openArena({ xM: 2, yM: -2, yawRad: 0 });
      const decisions = supervise(link, new RealisticOperator(link.robot.arena, seed), { linearMps: 0, angularRadps: 0 }, 280);
      const takeover = firstTakeover(decisions);
      expect(decisions[takeover]?.reason).toBe('no-progress');
      // Six seconds without progress, seen 3–5 ticks late.
      expect(takeover).toBeGreaterThanOrEqual(63);
      expect(takeover).toBeLessThanOrEqual(65);
      lengths.push(...takeoverLengths(decisions));
    }
    expect(lengths.length).toBeGreaterThanOrEqual(16);
    expect(lengths.every((length) => length === 10 || length === 30)).toBe(true);
    const early = lengths.filter((length) => length === 10).length;
    expect(early).toBeGreaterThan(0);
    expect(early).toBeLessThan(lengths.length / 2);
  });

  it('cruises at 50–70 % of the safety filter’s 0.5 m/s, a speed drawn per episode', () => {
    const cruises: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      // Facing the goal 8.5 m away across an empty arena: a straight run at cruising speed.
      const link = openArena({ xM: 2, yM: -2, yawRad: (3 * Math.PI) / 4 });
      const operator = new RealisticOperator(link.robot.arena, seed);
      const speeds: number[] = [];
      for (let tick = 0; tick < 80; tick++) {
        const command = operator.drive(link.robot.groundTruth());
        if (tick >= 30) speeds.push(command.linearMps);
        link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(command));
        link.advance(0.1);
      }
      const cruise = operator.currentCruiseMps;
      expect(cruise).toBeGreaterThanOrEqual(0.25);
      expect(cruise).toBeLessThanOrEqual(0.35);
      expect(speeds.reduce((sum, speed) => sum + speed, 0) / speeds.length).toBeCloseTo(cruise, 1);
      cruises.push(cruise);
    }
    expect(Math.max(...cruises) - Math.min(...cruises)).toBeGreaterThan(0.04);
  });

  it('skips a fifth of the preference questions and answers a fifth of them wrongly, reproducibly by seed', () => {
    const arena = openArena({ xM: 0, yM: 0, yawRad: 0 }).robot.arena;
    const ahead = { startProgress: 0.2, endProgress: 0.5, collided: false };
    const crashed = { startProgress: 0.2, endProgress: 0.7, collided: true };
    const answers = (seed: number) => {
      const operator = new RealisticOperator(arena, seed);
      return Array.from({ length: 4000 }, (_, i) => (i % 2 === 0 ? operator.prefer(ahead, crashed) : operator.prefer(crashed, ahead)));
    };
    const given = answers(3);
    const share = (wanted: (answer: string, i: number) => boolean) => given.filter(wanted).length / given.length;
    expect(share((answer) => answer === 'skip')).toBeCloseTo(0.2, 1);
    expect(share((answer, i) => answer === (i % 2 === 0 ? 'b' : 'a'))).toBeCloseTo(0.2, 1);
    expect(share((answer, i) => answer === (i % 2 === 0 ? 'a' : 'b'))).toBeCloseTo(0.6, 1);
    expect(answers(3)).toEqual(given);
  });

  it('reaches the goal alone in several arenas, more slowly than the expert', () => {
    const secs = { expert: 0, realistic: 0 };
    for (const name of ['expert', 'realistic'] as const) {
      for (const arenaSeed of [1, 2, 3, 4]) {
        const link = createSimLink({ arenaSeed, episodeSeed: arenaSeed, epochMs: 0 });
        const operator = createOperator(name, link.robot.arena, arenaSeed);
        const episodes = runEpisodes(link, (truth) => operator.drive(truth), { episodes: 2, controlRateHz: 10, maxSimSecs: 80 });
        for (const episode of episodes) {
          expect(episode, `${name} in arena ${arenaSeed}`).toMatchObject({ status: 'succeeded', reason: 'reached-goal' });
          secs[name] += episode.elapsedSecs;
        }
      }
    }
    expect(secs.realistic).toBeGreaterThan(1.3 * secs.expert);
  });

  it('docks and gets through the corridor alone', () => {
    for (const task of ['dock', 'corridor'] as const) {
      for (const arenaSeed of [1, 2]) {
        const link = createSimLink({ arenaSeed, episodeSeed: arenaSeed, epochMs: 0, task });
        const operator = createOperator('realistic', link.robot.arena, arenaSeed);
        const [episode] = runEpisodes(link, (truth) => operator.drive(truth), { episodes: 1, controlRateHz: 10, maxSimSecs: 70 });
        expect(episode, `${task} in arena ${arenaSeed}`).toMatchObject({ status: 'succeeded' });
      }
    }
  });
});
