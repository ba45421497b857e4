import { describe, expect, it } from 'vitest';
import { pairedSuccess, type EvaluatedEpisode, type EvaluationOutcome } from './learningEvaluation.ts';

function outcome(reached: readonly boolean[], arenaSeed = 80_000): EvaluationOutcome {
  const episodes: EvaluatedEpisode[] = reached.map((goal, index) => ({
    arenaSeed,
    episodeSeed: index,
    outcome: goal ? 'reached-goal' : 'timeout',
    timeToGoalSecs: goal ? 10 : undefined,
  }));
  const successes = reached.filter(Boolean).length;
  return { episodes, successRate: successes / reached.length, collisions: 0, timeouts: reached.length - successes };
}

describe('success paired episode by episode', () => {
  it('gives the mean difference and its standard error over the pairs', () => {
    // Differences 1, 0, 0, −1, 1: mean 0.2, sample variance 0.7.
    const paired = pairedSuccess([[outcome([true, true, false, false, true]), outcome([false, true, false, true, false])]]);
    expect(paired.episodes).toBe(5);
    expect(paired.a).toBeCloseTo(0.6, 12);
    expect(paired.b).toBeCloseTo(0.4, 12);
    expect(paired.difference).toBeCloseTo(0.2, 12);
    expect(paired.standardError).toBeCloseTo(Math.sqrt(0.7 / 5), 12);
  });

  it('pools the episodes of several pairs of sets (one per seed)', () => {
    const paired = pairedSuccess([
      [outcome([true, true]), outcome([true, false])],
      [outcome([false, true], 80_001), outcome([false, true], 80_001)],
    ]);
    expect(paired).toMatchObject({ episodes: 4, difference: 0.25, a: 0.75 });
    expect(paired.b).toBeCloseTo(0.5, 12);
  });

  it('refuses sets that are not the same episodes', () => {
    expect(() => pairedSuccess([[outcome([true, true]), outcome([true])]])).toThrow('paired sets differ in size: 2 and 1 episodes');
    expect(() => pairedSuccess([[outcome([true]), outcome([true], 80_001)]])).toThrow('paired sets differ at episode 0: arena 80000/0 against 80001/0');
    expect(() => pairedSuccess([])).toThrow('no episodes to pair');
  });
});
