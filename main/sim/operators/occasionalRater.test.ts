import { describe, expect, it } from 'vitest';
import { createSimLink } from '../lockstepLink.ts';
import { SeededRandom } from '../random.ts';
import type { GroundTruth } from '../simRobot.ts';
import { OccasionalRater, type RaterParameters } from './occasionalRater.ts';
import { REALISTIC_OPERATOR_PARAMETERS } from './realisticParameters.ts';
import type { OperatorRating } from './simOperator.ts';

const BASE = createSimLink({ arenaSeed: 1, episodeSeed: 1, epochMs: 0 }).robot.groundTruth();

/** The truth at tick `tick` (10 Hz) of a drive whose progress, collisions and episode the caller sets; earlier episodes succeeded. */
function truthAt(tick: number, progress: number, collisionCount = 0, episodeIndex = 1): GroundTruth {
  const lastEndedEpisode = episodeIndex > 1 ? { ...BASE.episode, index: episodeIndex - 1, status: 'succeeded' as const, progress: 1 } : undefined;
  return { ...BASE, simTimeSecs: tick / 10, collisionCount, episode: { ...BASE.episode, index: episodeIndex, progress }, lastEndedEpisode };
}

/** Rates every tick of `ticks` ticks, returning each rating with its tick. */
function ratings(rater: OccasionalRater, ticks: number, truth: (tick: number) => GroundTruth): Array<{ tick: number; rating: OperatorRating }> {
  const given: Array<{ tick: number; rating: OperatorRating }> = [];
  for (let tick = 0; tick < ticks; tick++) {
    const rating = rater.rate(truth(tick));
    if (rating !== undefined) given.push({ tick, rating });
  }
  return given;
}

const EAGER: RaterParameters = { ratingMeanIntervalSecs: 1e-6, ratingWindowSecs: 5, wrongRatingRate: 0 };

describe('OccasionalRater', () => {
  it('rates a few times per 10 minutes of watching, sometimes wrongly', () => {
    const rater = new OccasionalRater(REALISTIC_OPERATOR_PARAMETERS, new SeededRandom(1));
    // Ten hours of a robot that reaches the goal every minute, rated at the realistic operator's pace.
    const given = ratings(rater, 360_000, (tick) => truthAt(tick, (tick % 600) / 600, 0, 1 + Math.floor(tick / 600)));
    const perTenMinutes = given.length / 60;
    expect(perTenMinutes).toBeGreaterThan(3);
    expect(perTenMinutes).toBeLessThan(4.5);
    const wrong = given.filter(({ rating }) => rating === 'bad').length / given.length;
    expect(wrong).toBeGreaterThan(0.12);
    expect(wrong).toBeLessThan(0.28);
  });

  it('judges the last few seconds: progress is good, standing still or a crash is bad, a little progress no opinion', () => {
    const first = (truth: (tick: number) => GroundTruth) => ratings(new OccasionalRater(EAGER, new SeededRandom(2)), 200, truth)[0];
    // The window must fill (5 s) before the first rating.
    expect(first((tick) => truthAt(tick, tick * 0.002))).toEqual({ tick: 50, rating: 'good' });
    expect(first((tick) => truthAt(tick, 0.3))?.rating).toBe('bad');
    expect(first((tick) => truthAt(tick, tick * 0.0005, tick >= 80 ? 1 : 0))).toEqual({ tick: 80, rating: 'bad' });
    expect(first((tick) => truthAt(tick, tick * 0.0005))).toBeUndefined();
  });

  it('starts watching afresh after the policy stopped driving for a while', () => {
    const rater = new OccasionalRater(EAGER, new SeededRandom(3));
    for (let tick = 0; tick < 40; tick++) expect(rater.rate(truthAt(tick, 0.3))).toBeUndefined();
    // A takeover: nothing rated for 3 s; the 4 s before it do not fill the next window.
    for (let tick = 70; tick < 119; tick++) expect(rater.rate(truthAt(tick, 0.3))).toBeUndefined();
    expect(rater.rate(truthAt(120, 0.3))).toBe('bad');
  });
});
