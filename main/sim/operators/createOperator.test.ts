import { describe, expect, it } from 'vitest';
import { DEFAULT_TOPIC_MAP } from '../../core/link.ts';
import { twistFromDrive, type DriveCommand } from '../../core/messages.ts';
import { createSimLink, type LockstepLink } from '../lockstepLink.ts';
import { ScriptedOperator, type OperatorDecision } from '../scriptedOperator.ts';
import { createOperator, isSimOperatorName, SIM_OPERATORS, type SimOperatorName } from './createOperator.ts';

/** A policy that weaves and sometimes stops: enough to make an operator take over now and then. */
const wobblyPolicy = (tick: number): DriveCommand => ({ linearMps: tick % 90 < 60 ? 0.5 : 0, angularRadps: Math.sin(tick / 15) });

describe('createOperator', () => {
  it('makes each named operator, and refuses other names', () => {
    expect(SIM_OPERATORS).toEqual(['expert', 'realistic']);
    const arena = createSimLink({ arenaSeed: 1, episodeSeed: 1, epochMs: 0 }).robot.arena;
    for (const name of SIM_OPERATORS) expect(createOperator(name, arena, 1).name).toBe(name);
    expect(isSimOperatorName('realistic')).toBe(true);
    expect(isSimOperatorName('novice')).toBe(false);
    expect(() => createOperator('novice' as SimOperatorName, arena, 1)).toThrow(/unknown operator "novice"; operators: expert, realistic/);
  });

  it('expert: today’s scripted operator, decision for decision, with its takeovers tallied', () => {
    const [ourLink, theirLink] = [1, 2].map(() => createSimLink({ arenaSeed: 3, episodeSeed: 3, epochMs: 0 })) as [LockstepLink, LockstepLink];
    const expert = createOperator('expert', ourLink.robot.arena, 5);
    const scripted = new ScriptedOperator(theirLink.robot.arena, { seed: 5 });
    let takeovers = 0;
    let lastDriver: OperatorDecision['driver'] = 'policy';
    for (let tick = 0; tick < 450; tick++) {
      const [ourTruth, theirTruth] = [ourLink.robot.groundTruth(), theirLink.robot.groundTruth()];
      let ours: DriveCommand;
      let theirs: DriveCommand;
      if (tick < 100) {
        [ours, theirs] = [expert.drive(ourTruth), scripted.drive(theirTruth)];
      } else {
        const [ourDecision, theirDecision] = [expert.supervise(ourTruth, wobblyPolicy(tick)), scripted.supervise(theirTruth, wobblyPolicy(tick))];
        expect(ourDecision, `tick ${tick}`).toEqual(theirDecision);
        if (theirDecision.driver === 'operator' && lastDriver === 'policy') takeovers++;
        lastDriver = theirDecision.driver;
        [ours, theirs] = [ourDecision.command, theirDecision.command];
      }
      expect(ours, `tick ${tick}`).toEqual(theirs);
      ourLink.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(ours));
      theirLink.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(theirs));
      for (const link of [ourLink, theirLink]) link.advance(0.1);
    }
    expect(takeovers).toBeGreaterThan(0);
    expect(expert.takeovers().takeovers).toBe(takeovers);
  });

  it('expert: answers every question (10 % wrongly) and never rates', () => {
    const link = createSimLink({ arenaSeed: 1, episodeSeed: 1, epochMs: 0 });
    const expert = createOperator('expert', link.robot.arena, 2);
    const ahead = { startProgress: 0.2, endProgress: 0.5, collided: false };
    const stuck = { startProgress: 0.2, endProgress: 0.25, collided: false };
    const answers = Array.from({ length: 2000 }, () => expert.prefer(ahead, stuck));
    expect(answers).not.toContain('skip');
    expect(answers.filter((answer) => answer === 'b').length / answers.length).toBeCloseTo(0.1, 1);
    for (let tick = 0; tick < 300; tick++) {
      expect(expert.rate(link.robot.groundTruth())).toBeUndefined();
      link.advance(0.1);
    }
  });
});
