// What the operator's feedback says about the held ticks (DESIGN §3), as the policy learner reads it:
// which ticks lie just after a takeover (weighted up in imitation) and just before one (never
// imitated), and the reward ensemble's training items — each takeover a preference pair plus good
// labels on the operator's ticks and bad ones on the policy's, each answered question a pair, each
// rating a label on the rated tick and its neighbours. How much each kind weighs is `LabelWeights`.
import type { FeedbackSignals, Segment } from './feedbackTypes.ts';
import type { LabelItem, PairItem } from './rewardEnsemble.ts';
import type { TickBuffer } from './tickBuffer.ts';

/** How much each kind of feedback teaches the reward ensemble; the learner's `labels` option. */
export interface LabelWeights {
  /** Weight of the pair a takeover makes: the operator's ticks after it preferred to the policy's before it. */
  takeoverPairWeight: number;
  /**
   * Weight of each operator tick after a takeover, labelled good: less than a rated tick's, for a
   * takeover labels every tick the operator drove, not one moment the operator judged.
   */
  afterTakeoverGoodWeight: number;
  /** Weight of each policy tick just before a takeover (the learner's `beforeTakeoverTicks`), labelled bad. */
  beforeTakeoverBadWeight: number;
  /** Weight of an answered preference question's pair. */
  preferencePairWeight: number;
  /** A rating speaks for the rated tick and this many ticks either side of it (5 at a 10 Hz loop: the second around it). */
  ratingRadiusTicks: number;
  /** Weight of the rated tick's own label. */
  ratedTickWeight: number;
  /** Weight of each neighbouring tick's label within `ratingRadiusTicks`: the operator rated the moment, not them. */
  ratingNeighbourWeight: number;
}

export const DEFAULT_LABEL_WEIGHTS: Readonly<LabelWeights> = Object.freeze({
  takeoverPairWeight: 1,
  afterTakeoverGoodWeight: 0.25,
  beforeTakeoverBadWeight: 1,
  preferencePairWeight: 1,
  ratingRadiusTicks: 5,
  ratedTickWeight: 1,
  ratingNeighbourWeight: 0.5,
});

/** Throws a RangeError naming the first weight that is not a finite number ≥ 0, or a radius that is not a whole number. */
export function checkLabelWeights(weights: LabelWeights): void {
  for (const [name, value] of Object.entries(weights)) {
    if (!(Number.isFinite(value) && value >= 0)) throw new RangeError(`label weights: ${name} must be a finite number ≥ 0, got ${value}`);
  }
  if (!Number.isInteger(weights.ratingRadiusTicks))
    throw new RangeError(`label weights: ratingRadiusTicks must be a whole number of ticks, got ${weights.ratingRadiusTicks}`);
}

/** How far around a takeover its marks reach (options of the learner, shared with imitation). */
export interface TakeoverWindows {
  /** Operator ticks this soon after a takeover weigh more in imitation (reins only). */
  nearTakeoverTicks: number;
  /** Policy ticks this close before a takeover count as bad and are never imitated. */
  beforeTakeoverTicks: number;
}

/** Slots just after each takeover (operator) and just before it (policy). */
export interface TakeoverMarks {
  nearTakeover: Set<number>;
  beforeTakeover: Set<number>;
}

export interface RewardItems {
  pairs: PairItem[];
  labels: LabelItem[];
}

export function takeoverMarks(buffer: TickBuffer, signals: FeedbackSignals, windows: TakeoverWindows): TakeoverMarks {
  const nearTakeover = new Set<number>();
  const beforeTakeover = new Set<number>();
  for (const intervention of signals.interventions) {
    const { operatorSegment: after, policySegment: before } = intervention;
    for (let step = after.startStep; step <= Math.min(after.endStep, after.startStep + windows.nearTakeoverTicks - 1); step++) {
      const slot = buffer.slotOf(after.episodeId, step);
      if (slot !== undefined) nearTakeover.add(slot);
    }
    if (before !== undefined) {
      for (let step = Math.max(before.startStep, before.endStep - windows.beforeTakeoverTicks + 1); step <= before.endStep; step++) {
        const slot = buffer.slotOf(before.episodeId, step);
        if (slot !== undefined) beforeTakeover.add(slot);
      }
    }
  }
  return { nearTakeover, beforeTakeover };
}

/** Bradley–Terry's target for an "equal" answer: neither segment preferred. */
const TIE = 0.5;

/**
 * The reward ensemble's items over slots of the buffer. An item's id names its ticks by their place
 * among the ticks held now (`held`), as the ensemble's bootstrap split reads it; a tick labelled twice
 * keeps its last label.
 */
export function rewardItems(
  buffer: TickBuffer,
  signals: FeedbackSignals,
  held: readonly number[],
  marks: Pick<TakeoverMarks, 'beforeTakeover'>,
  weights: LabelWeights,
): RewardItems {
  const placeOf = new Map(held.map((slot, place) => [slot, place]));
  const slots = (segment: Segment | undefined): number[] | undefined => (segment === undefined ? undefined : buffer.segmentSlots(segment));
  const pairs: PairItem[] = [];
  const labels: LabelItem[] = [];
  for (const intervention of signals.interventions) {
    const before = slots(intervention.policySegment);
    const after = slots(intervention.operatorSegment);
    if (before !== undefined && after !== undefined && before.length > 0 && after.length > 0) {
      pairs.push({ id: `${intervention.id}:pair`, first: after, second: before, firstPreferred: 1, weight: weights.takeoverPairWeight });
    }
    for (const slot of after ?? []) labels.push({ id: `${intervention.id}:${placeOf.get(slot)}`, row: slot, good: 1, weight: weights.afterTakeoverGoodWeight });
  }
  for (const slot of marks.beforeTakeover) {
    if (placeOf.has(slot)) labels.push({ id: `before:${slot}`, row: slot, good: 0, weight: weights.beforeTakeoverBadWeight });
  }
  for (const preference of signals.preferences) {
    const first = slots(preference.first);
    const second = slots(preference.second);
    if (first === undefined || second === undefined) continue;
    pairs.push({
      id: preference.id,
      first,
      second,
      firstPreferred: preference.answer === 'first' ? 1 : preference.answer === 'second' ? 0 : TIE,
      weight: weights.preferencePairWeight,
    });
  }
  for (const rating of signals.ratings) {
    for (let step = rating.step - weights.ratingRadiusTicks; step <= rating.step + weights.ratingRadiusTicks; step++) {
      const slot = buffer.slotOf(rating.episodeId, step);
      if (slot !== undefined)
        labels.push({
          id: `${rating.id}:${step}`,
          row: slot,
          good: rating.rating > 0 ? 1 : 0,
          weight: step === rating.step ? weights.ratedTickWeight : weights.ratingNeighbourWeight,
        });
    }
  }
  return { pairs, labels: dedupeLabels(labels) };
}

function dedupeLabels(labels: LabelItem[]): LabelItem[] {
  const seen = new Map<string, LabelItem>();
  for (const label of labels) seen.set(label.id, label);
  return [...seen.values()];
}
