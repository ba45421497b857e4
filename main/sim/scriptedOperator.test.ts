import { describe, it, expect } from 'vitest';
import { DEFAULT_TOPIC_MAP } from '../core/link.ts';
import { twistFromDrive, type DriveCommand } from '../core/messages.ts';
import { GOAL_COLOUR } from './arena.ts';
import { EVALUATION_ARENA_SEEDS } from './arenaSeeds.ts';
import { runEpisodes } from './episodeRunner.ts';
import type { Pose2D } from './geometry.ts';
import { createSimLink, type LockstepLink } from './lockstepLink.ts';
import { ScriptedOperator, type OperatorDecision, type ScriptedOperatorOptions } from './scriptedOperator.ts';

const STEADY: Partial<ScriptedOperatorOptions> = { linearNoiseMps: 0, angularNoiseRadps: 0 };

/** An empty 10 m arena (walls at ±5 m), the robot at `startPose`, the goal in the far north-west corner. */
function openArena(startPose: Pose2D): LockstepLink {
  const link = createSimLink({ arenaSeed: 7, episodeSeed: 7, arena: { sizeM: 10, obstacleCount: 0 }, autoReset: false, epochMs: 0 });
  link.robot.startEpisode({ startPose, goal: { xM: -4, yM: 4, radiusM: 0.15, heightM: 1, colour: GOAL_COLOUR } });
  return link;
}

/** Plays `ticks` control ticks at 10 Hz with the operator watching a policy that always proposes `proposed`. */
function supervise(link: LockstepLink, operator: ScriptedOperator, proposed: DriveCommand, ticks: number): OperatorDecision[] {
  const decisions: OperatorDecision[] = [];
  for (let tick = 0; tick < ticks; tick++) {
    const decision = operator.supervise(link.robot.groundTruth(), proposed);
    decisions.push(decision);
    link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(decision.command));
    link.advance(0.1);
  }
  return decisions;
}

const firstTakeover = (decisions: readonly OperatorDecision[]): number => decisions.findIndex((decision) => decision.driver === 'operator');

describe('ScriptedOperator', () => {
  it('drives alone to the goal around the obstacles, in several arenas, with its usual delay and noise', () => {
    for (const arenaSeed of [1, 2, 3, 4]) {
      const link = createSimLink({ arenaSeed, episodeSeed: arenaSeed, epochMs: 0 });
      const operator = new ScriptedOperator(link.robot.arena, { seed: arenaSeed });
      const episodes = runEpisodes(link, (truth) => operator.drive(truth), { episodes: 1, controlRateHz: 10, maxSimSecs: 40 });
      for (const episode of episodes) expect(episode, `arena ${arenaSeed}`).toMatchObject({ status: 'succeeded', reason: 'reached-goal' });
    }
  });

  it('takes over before a policy drives into a wall, a reaction delay late, and prevents the crash', () => {
    const takeoverTick = (reactionDelayTicks: number): number => {
      const link = openArena({ xM: 2.5, yM: 0, yawRad: 0 });
      const operator = new ScriptedOperator(link.robot.arena, { ...STEADY, reactionDelayTicks });
      const decisions = supervise(link, operator, { linearMps: 0.6, angularRadps: 0 }, 60);
      expect(decisions[firstTakeover(decisions)]?.reason).toBe('imminent-collision');
      expect(link.robot.groundTruth().collisionCount).toBe(0);
      return firstTakeover(decisions);
    };
    const prompt = takeoverTick(0);
    expect(prompt).toBeGreaterThan(0);
    expect(takeoverTick(3)).toBe(prompt + 3);
  });

  it('takes over when the policy makes no progress, drives for a while, then hands back', () => {
    const link = openArena({ xM: 2, yM: -2, yawRad: 0 });
    const operator = new ScriptedOperator(link.robot.arena, { ...STEADY, reactionDelayTicks: 0, stallSecs: 2, driveSecs: 3 });
    const decisions = supervise(link, operator, { linearMps: 0, angularRadps: 0 }, 80);
    const takeover = firstTakeover(decisions);
    expect(takeover).toBe(20);
    expect(decisions[takeover]?.reason).toBe('no-progress');
    expect(decisions.slice(takeover, takeover + 30).every((decision) => decision.driver === 'operator')).toBe(true);
    expect(decisions[takeover + 30]?.driver).toBe('policy');
    expect(link.robot.groundTruth().episode.progress).toBeGreaterThan(0.1);
  });

  it('leaves a policy that drives well alone', () => {
    const link = openArena({ xM: 2, yM: -2, yawRad: 0 });
    const guide = new ScriptedOperator(link.robot.arena, { ...STEADY, reactionDelayTicks: 0 });
    const watcher = new ScriptedOperator(link.robot.arena, STEADY);
    for (let tick = 0; tick < 60; tick++) {
      const truth = link.robot.groundTruth();
      const decision = watcher.supervise(truth, guide.drive(truth));
      expect(decision.driver, `tick ${tick}`).toBe('policy');
      link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(decision.command));
      link.advance(0.1);
    }
  });

  it('has a shaky hand: Gaussian noise of the configured size on its commands, reproducible by seed', () => {
    // Facing the goal it drives straight at full speed; facing away it turns on the spot at full rate.
    // Noise is measured where the limits do not clip it: on the turn rate in the first, the speed in the second.
    const commands = (yawRad: number, options: Partial<ScriptedOperatorOptions>): DriveCommand[] => {
      const link = openArena({ xM: 2, yM: -2, yawRad });
      const operator = new ScriptedOperator(link.robot.arena, { reactionDelayTicks: 0, ...options });
      const truth = link.robot.groundTruth();
      return Array.from({ length: 400 }, () => operator.drive(truth));
    };
    const sigma = (values: readonly number[]): number => Math.sqrt(values.reduce((sum, value) => sum + value * value, 0) / values.length);
    const towardGoalRad = (3 * Math.PI) / 4;
    const straight = commands(towardGoalRad, STEADY);
    expect(new Set(straight.map((command) => command.angularRadps)).size).toBe(1);
    const shakyTurn = commands(towardGoalRad, { seed: 4, linearNoiseMps: 0.1, angularNoiseRadps: 0.2 });
    expect(sigma(shakyTurn.map((command, index) => command.angularRadps - (straight[index]?.angularRadps ?? 0)))).toBeCloseTo(0.2, 1);
    const shakySpeed = commands(-Math.PI / 4, { seed: 4, linearNoiseMps: 0.1, angularNoiseRadps: 0.2 });
    expect(sigma(shakySpeed.map((command) => command.linearMps))).toBeCloseTo(0.1, 1);
    expect(commands(towardGoalRad, { seed: 4, linearNoiseMps: 0.1, angularNoiseRadps: 0.2 })).toEqual(shakyTurn);
  });

  it('prefers the segment without a collision, then the one with more progress, wrong at the configured rate', () => {
    const arena = openArena({ xM: 0, yM: 0, yawRad: 0 }).robot.arena;
    const honest = new ScriptedOperator(arena, { wrongAnswerRate: 0 });
    const ahead = { startProgress: 0.2, endProgress: 0.5, collided: false };
    const stuck = { startProgress: 0.2, endProgress: 0.25, collided: false };
    const crashed = { startProgress: 0.2, endProgress: 0.7, collided: true };
    expect(honest.prefer(ahead, stuck)).toBe('a');
    expect(honest.prefer(stuck, ahead)).toBe('b');
    expect(honest.prefer(crashed, stuck)).toBe('b');

    const fallible = new ScriptedOperator(arena, { wrongAnswerRate: 0.3, seed: 9 });
    const wrong = Array.from({ length: 2000 }, () => fallible.prefer(ahead, stuck)).filter((answer) => answer === 'b').length;
    expect(wrong / 2000).toBeGreaterThan(0.26);
    expect(wrong / 2000).toBeLessThan(0.34);
  });

  it.each(['dock', 'corridor'] as const)('drives alone to %s success in evaluation arenas, with its usual delay and noise', (task) => {
    for (const [arenaSeed, episodeSeed] of [
      [EVALUATION_ARENA_SEEDS[0]!, 1],
      [EVALUATION_ARENA_SEEDS[7]!, 4],
    ] as const) {
      const link = createSimLink({ task, arenaSeed, episodeSeed, autoReset: false, epochMs: 0 });
      const operator = new ScriptedOperator(link.robot.arena, { seed: episodeSeed });
      let last: DriveCommand = { linearMps: 1, angularRadps: 1 };
      while (link.robot.episodeState().status === 'running') {
        last = operator.drive(link.robot.groundTruth());
        link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(last));
        link.advance(0.1);
      }
      const truth = link.robot.groundTruth();
      expect(truth.episode, `${task} in arena ${arenaSeed}`).toMatchObject({ status: 'succeeded', reason: task === 'dock' ? 'docked' : 'reached-goal' });
      expect(truth.collisionCount).toBe(0);
      // Docked, it lets go of the stick: no shaky hand on a stop.
      if (task === 'dock') expect(last).toEqual({ linearMps: 0, angularRadps: 0 });
    }
  });
});
