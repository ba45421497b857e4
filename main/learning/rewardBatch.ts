// One reward-ensemble step's batch: a sample of the round's items (feedbackLabels.ts), renumbered as
// rows of the few ticks they read, so that a step gathers those ticks and not every held one.
import type { SeededRandom } from '../core/util/seededRandom.ts';
import type { RewardItems } from './feedbackLabels.ts';
import { sampleItems } from './randomPick.ts';
import type { LabelItem, PairItem } from './rewardEnsemble.ts';

export interface RewardBatch {
  /** The buffer slots the items read, row by row. */
  slots: number[];
  pairs: PairItem[];
  labels: LabelItem[];
}

/** Up to `pairsPerStep` pairs, then up to `labelsPerStep` labels, drawn from `items` in that order. */
export function rewardBatch(
  items: RewardItems,
  pairsPerStep: number,
  labelsPerStep: number,
  random: SeededRandom,
  current: (slot: number) => boolean,
): RewardBatch {
  const pairs = sampleItems(items.pairs, pairsPerStep, random);
  const labels = sampleItems(items.labels, labelsPerStep, random);
  return compactItems(pairs, labels, current);
}

/**
 * The sampled items over the few slots they read, renumbered as rows of those slots' features; an
 * item with a tick replaced since the round began is left out.
 */
function compactItems(pairs: readonly PairItem[], labels: readonly LabelItem[], current: (slot: number) => boolean): RewardBatch {
  const slots: number[] = [];
  const rowOf = new Map<number, number>();
  const row = (slot: number) => {
    let at = rowOf.get(slot);
    if (at === undefined) {
      at = slots.push(slot) - 1;
      rowOf.set(slot, at);
    }
    return at;
  };
  const keptPairs = pairs
    .filter((pair) => pair.first.every(current) && pair.second.every(current))
    .map((pair) => ({ ...pair, first: pair.first.map(row), second: pair.second.map(row) }));
  const keptLabels = labels.filter((label) => current(label.row)).map((label) => ({ ...label, row: row(label.row) }));
  return { slots, pairs: keptPairs, labels: keptLabels };
}
