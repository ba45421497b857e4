// Real transitions for the off-policy critics (issue 27): from the held ticks, n-step stretches of one
// episode, each with the ticks whose rewards it sums and the tick it bootstraps from. Nothing joins
// ticks across an episode's end. Only the operator's "goal reached" is terminal: the operator never
// says whether a failed episode ran out of time or hit something, so a failed episode's last ticks are
// cut (bootstrapped), not ended. Rewards are not stored: they are relabelled when a batch is drawn,
// for the reward ensemble keeps learning.
import type { FeedbackSignals } from './feedbackTypes.ts';
import { pickIndex } from './randomPick.ts';
import type { SeededRandom } from '../core/util/seededRandom.ts';
import type { TickBuffer } from './tickBuffer.ts';

/** The held ticks' links, as of one round. */
export interface TransitionIndex {
  /** Slot of the next tick of the same episode, −1 where it is not held (yet). */
  next: Int32Array;
  /** 1 where the tick is the last of an episode the operator ended as "goal reached". */
  terminal: Uint8Array;
  /** Start slots by who drove them: a start needs a next tick or to be terminal. */
  operatorStarts: number[];
  policyStarts: number[];
}

/** A drawn batch: row r starts at `starts[r]` and sums the rewards of `rewardSlots[r]`. */
export interface TransitionBatch {
  starts: number[];
  /** The ticks whose rewards are summed, discounted, for each row (1 to n of them). */
  rewardSlots: number[][];
  /** The tick each row bootstraps from (−1: none, the goal was reached). */
  bootstrap: number[];
  /** γ^k for the bootstrap (0 where none). */
  bootstrapDiscount: number[];
  /** Which rows were drawn from the operator's ticks. */
  fromOperator: boolean[];
}

/** The episodes the operator has ended, as the learner reads them (`FeedbackSignals.episodes`). */
export function successfulEpisodes(signals: FeedbackSignals): Set<string> {
  return new Set((signals.episodes ?? []).filter((ended) => ended.outcome === 'reached-goal').map((ended) => ended.episodeId));
}

export function indexTransitions(buffer: TickBuffer, held: readonly number[], signals: FeedbackSignals): TransitionIndex {
  const next = new Int32Array(buffer.capacity).fill(-1);
  const terminal = new Uint8Array(buffer.capacity);
  const succeeded = successfulEpisodes(signals);
  const operatorStarts: number[] = [];
  const policyStarts: number[] = [];
  for (const slot of held) {
    const episodeId = buffer.episodeIds[slot]!;
    const following = buffer.slotOf(episodeId, buffer.steps[slot]! + 1);
    if (following !== undefined) next[slot] = following;
    // The last held tick of an episode that ended with the goal reached.
    else if (succeeded.has(episodeId)) terminal[slot] = 1;
    // No next tick and not the goal: the newest tick of a running episode, or a failed episode's last (cut).
    if (next[slot]! < 0 && terminal[slot] === 0) continue;
    const driver = buffer.drivers[slot];
    if (driver === 'operator') operatorStarts.push(slot);
    else if (driver === 'policy') policyStarts.push(slot);
  }
  return { next, terminal, operatorStarts, policyStarts };
}

/**
 * `size` transitions, half from the operator's starts and half from the policy's (all from one kind
 * when the other has none), each up to `steps` ticks long; `current` leaves out a slot replaced since the
 * round began.
 */
export function drawTransitions(
  index: TransitionIndex,
  size: number,
  steps: number,
  discount: number,
  random: SeededRandom,
  current: (slot: number) => boolean,
): TransitionBatch {
  const batch: TransitionBatch = { starts: [], rewardSlots: [], bootstrap: [], bootstrapDiscount: [], fromOperator: [] };
  const { operatorStarts, policyStarts } = index;
  if (operatorStarts.length + policyStarts.length === 0) return batch;
  for (let row = 0; row < size; row++) {
    const fromOperator = policyStarts.length === 0 || (operatorStarts.length > 0 && row % 2 === 0);
    const pool = fromOperator ? operatorStarts : policyStarts;
    const start = pool[pickIndex(random, pool.length)]!;
    if (!current(start)) continue;
    const rewardSlots = [start];
    let last = start;
    let bootstrap = -1;
    let factor = discount;
    for (let k = 1; k <= steps; k++) {
      if (index.terminal[last] === 1) break;
      const following = index.next[last]!;
      if (following < 0 || !current(following)) {
        // Cut: bootstrap from the last tick reached, one step less.
        bootstrap = last === start ? -2 : last;
        if (last !== start) {
          rewardSlots.pop();
          factor /= discount;
        }
        break;
      }
      if (k === steps) {
        bootstrap = following;
        break;
      }
      rewardSlots.push(following);
      last = following;
      factor *= discount;
    }
    if (bootstrap === -2) continue;
    batch.starts.push(start);
    batch.rewardSlots.push(rewardSlots);
    batch.bootstrap.push(bootstrap);
    batch.bootstrapDiscount.push(bootstrap >= 0 ? factor : 0);
    batch.fromOperator.push(fromOperator);
  }
  return batch;
}
