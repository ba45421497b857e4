// What the operator teaches, as the learners read it (DESIGN §3): interventions, preference answers
// and ratings, each pointing at ticks by episode and step. The feedback ledger produces these; the
// reward model and the policy learner consume them. Undone feedback never appears here.

/** An inclusive range of steps within one episode. */
export interface Segment {
  episodeId: string;
  startStep: number;
  endStep: number;
}

/**
 * One takeover, counted once however long it lasts: the policy's segment before it (penalised, as
 * RLIF does) and the operator's segment after it (a demonstration); together a preference pair.
 */
export interface InterventionSignal {
  id: string;
  /** The step at which the operator took over. */
  atStep: number;
  episodeId: string;
  /** The policy's ticks just before the takeover; undefined when the policy had not driven yet. */
  policySegment: Segment | undefined;
  /** The operator's ticks from the takeover to the hand-back (or the latest tick while it lasts). */
  operatorSegment: Segment;
}

export type PreferenceAnswer = 'first' | 'second' | 'equal';

export interface PreferenceSignal {
  id: string;
  first: Segment;
  second: Segment;
  answer: PreferenceAnswer;
}

export interface RatingSignal {
  id: string;
  episodeId: string;
  step: number;
  /** +1 good, −1 bad. */
  rating: 1 | -1;
}

/** An episode the operator ended, and how (the `end-episode` request). */
export interface EpisodeEndSignal {
  episodeId: string;
  outcome: 'reached-goal' | 'failed';
}

export interface FeedbackSignals {
  interventions: readonly InterventionSignal[];
  preferences: readonly PreferenceSignal[];
  ratings: readonly RatingSignal[];
  /** The episodes the operator has ended (the off-policy critics' terminal ticks); none where unknown. */
  episodes?: readonly EpisodeEndSignal[];
}

export const NO_FEEDBACK: FeedbackSignals = Object.freeze({ interventions: [], preferences: [], ratings: [] });
