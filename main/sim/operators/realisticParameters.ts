// The `realistic` operator's figures, each with where it comes from. Issue 26 fixed the ranges (reaction
// 300–500 ms, 50–70 % of the safety filter's speed, 1 s time to collision, 20 % wrong and 20 % skipped
// answers, rare ratings); the published figures below are what those ranges stand on. Where no study
// gives a number for a robot operator, the comment says the figure is ours. docs/learning.md ("The
// operators") has the same list with full citations.

/**
 * The safety filter's speed limit (DEFAULT_SAFETY_LIMITS.maxLinearMps in main/safety/safetyFilter.ts,
 * which main/sim may not import): the bench's filter clips every command to it.
 */
export const SAFETY_FILTER_MAX_LINEAR_MPS = 0.5;

export interface RealisticOperatorParameters {
  /**
   * Seconds from seeing to acting, drawn uniformly per event (each episode's start and each takeover's
   * hand-back draw the next one); acted on at the nearest 100 ms tick, so 3–5 ticks. Simple visual
   * reaction is about 0.2–0.25 s (Luce 1986); drivers braking for an expected event take 0.7–0.75 s,
   * for a surprise about 1.5 s (Green 2000), both including the foot's movement. An operator who is
   * watching for exactly this, hand on the stick, sits between: the 0.3–0.5 s.
   */
  reactionMinSecs: number;
  reactionMaxSecs: number;
  /**
   * The speed it cruises at on open ground, drawn uniformly per episode: 50–70 % of the safety
   * filter's 0.5 m/s (issue 26). Teleoperators drive slower than the vehicle allows, for the narrow
   * field of view, poor depth cues and lag of a camera view (Chen, Haas & Barnes 2007). It drives the
   * expert's whole pace scaled down to this, turns included: where the expert slows near things it
   * slows in proportion, as the steering law has speed through a passage grow with its width at a
   * rate that is the driver's own (Accot & Zhai 1997), and a slower turn suits its longer delay.
   */
  cruiseMinMps: number;
  cruiseMaxMps: number;
  /**
   * Its plan keeps the rim at least this far from any solid (the expert: 0.05 m). Misjudged distance
   * in a camera view is a leading cause of teleoperated collisions (Chen, Haas & Barnes 2007) and
   * operators leave room for it; the 0.08 m is ours, bounded by the arena's 0.6 m passages
   * (0.35 m of robot plus twice the margin leaves 9 cm).
   */
  planMarginM: number;
  /**
   * The hand follows its own intention through a first-order lag of this time constant: the
   * neuromuscular lag of the crossover model, about 0.1–0.2 s (McRuer & Jex 1967).
   */
  steeringLagSecs: number;
  /**
   * It turns this much harder than it means to, so each heading correction overshoots and is
   * corrected back; its delay adds to that. Operators close the steering loop with a small stability
   * margin, so their corrections overshoot (the crossover model, McRuer & Jex 1967); the 1.3 is ours.
   */
  steeringOvershootGain: number;
  /**
   * Gaussian noise on each command, a floor plus a share of the command: motor noise grows with the
   * size of the command (Harris & Wolpert 1998). Floors as the expert's; the 10 % share is ours.
   */
  linearNoiseFloorMps: number;
  angularNoiseFloorRadps: number;
  noiseShareOfCommand: number;
  /**
   * Takes over when the policy's command, as it saw it one reaction time ago, would hit something
   * within this long (issue 26). Traffic studies count a time to collision under about 1.5 s as a
   * critical encounter (van der Horst 1990); 1 s, seen late, is a late operator.
   */
  takeoverTimeToCollisionSecs: number;
  /** Takes over when the task's progress has not grown for this long: ours, half again the expert's 4 s. */
  stallSecs: number;
  /** Drives this long before handing back, as the expert does. */
  driveSecs: number;
  /**
   * The share of takeovers it ends after only earlyHandBackSecs, whether the danger has passed or not:
   * over-reliance on automation (misuse, Parasuraman & Riley 1997). Both figures are ours.
   */
  earlyHandBackRate: number;
  earlyHandBackSecs: number;
  /**
   * Preference questions: 20 % answered wrongly and 20 % skipped, of all questions (issue 26). Trained
   * labellers agree with each other on 72.6 % of comparisons (Ouyang et al. 2022); B-Pref's simulated
   * teachers err at 10 % and skip uninformative queries (Lee et al. 2021); Christiano et al. (2017)
   * let people answer "can't tell" and dropped those answers.
   */
  wrongAnswerRate: number;
  skipRate: number;
  /**
   * Ratings: about one per this many seconds of the policy's driving (a few per 10 minutes, issue 26),
   * judging the last ratingWindowSecs, wrong as often as its answers. A trainer whose only job is
   * feedback gives it every few seconds (TAMER, Knox & Stone 2009); an operator who is also
   * supervising rates rarely. The figures are ours.
   */
  ratingMeanIntervalSecs: number;
  ratingWindowSecs: number;
  wrongRatingRate: number;
}

export const REALISTIC_OPERATOR_PARAMETERS: Readonly<RealisticOperatorParameters> = Object.freeze({
  reactionMinSecs: 0.3,
  reactionMaxSecs: 0.5,
  cruiseMinMps: 0.5 * SAFETY_FILTER_MAX_LINEAR_MPS,
  cruiseMaxMps: 0.7 * SAFETY_FILTER_MAX_LINEAR_MPS,
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
