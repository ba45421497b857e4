// Real transitions for the off-policy critics (issue 27): from the held ticks, n-step stretches of one
// episode, each with the ticks whose rewards it sums and the tick it bootstraps from. Nothing joins
// ticks across an episode's end. Only the operator's "goal reached" is terminal: the operator never
// says whether a failed episode ran out of time or hit something, so a failed episode's last ticks are
// cut (bootstrapped), not ended. Rewards are not stored: they are relabelled when a batch is drawn,
// for the reward ensemble keeps learning.
//
// Overridden-command pairs (RLIF's intervention as a pair): at each of the operator's first ticks after
// a takeover, the command the policy was giving when it was overridden is a counterfactual action on
// the operator's own state. Had the policy kept it, the operator would have taken over all the same: its
// outcome is the operator's transition from that state less the intervention's cost. A pair row is
// that transition with the overridden command as its action and one intervention's cost taken off; it
// puts the operator's correction and what it corrected side by side on one state, the contrast the
// critics must learn (docs/learning.md: without it they ranked the two at about a coin flip).
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
  /** Overridden-command pairs: an operator tick just after a takeover, and the policy's tick whose command it overrode. */
  overriddenPairs: Array<{ state: number; action: number }>;
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
  /** The tick whose command is the row's action: its start, or for a pair the overridden policy tick. */
  actionSlots: number[];
  /** Interventions charged on top of the row's rewards: 1 for a pair, else 0. */
  interventions: number[];
}

/** The episodes the operator has ended, as the learner reads them (`FeedbackSignals.episodes`). */
export function successfulEpisodes(signals: FeedbackSignals): Set<string> {
  return new Set((signals.episodes ?? []).filter((ended) => ended.outcome === 'reached-goal').map((ended) => ended.episodeId));
}

/** `pairTicks`: the operator's ticks after each takeover that pair with the overridden command (0: no pairs). */
export function indexTransitions(buffer: TickBuffer, held: readonly number[], signals: FeedbackSignals, pairTicks = 0): TransitionIndex {
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
  return {
    next,
    terminal,
    operatorStarts,
    policyStarts,
    // The pairs whose operator tick a transition can start from.
    overriddenPairs: takeoverPairs(buffer, signals, pairTicks).filter(({ state }) => next[state]! >= 0 || terminal[state] === 1),
  };
}

/**
 * Each takeover's first `ticks` operator ticks after it, paired with the policy's tick whose command the
 * operator overrode (its last before the takeover); a takeover before the policy drove has none.
 */
export function takeoverPairs(buffer: TickBuffer, signals: FeedbackSignals, ticks: number): TransitionIndex['overriddenPairs'] {
  const pairs: TransitionIndex['overriddenPairs'] = [];
  for (const intervention of signals.interventions) {
    const before = intervention.policySegment;
    const action = before === undefined ? undefined : buffer.slotOf(before.episodeId, before.endStep);
    if (action === undefined || buffer.drivers[action] !== 'policy') continue;
    const after = intervention.operatorSegment;
    for (let step = after.startStep; step <= Math.min(after.endStep, after.startStep + ticks - 1); step++) {
      const state = buffer.slotOf(after.episodeId, step);
      if (state !== undefined && buffer.drivers[state] === 'operator') pairs.push({ state, action });
    }
  }
  return pairs;
}

/**
 * `size` transitions, half from the operator's starts and half from the policy's (all from one kind
 * when the other has none), each up to `steps` ticks long; `current` leaves out a slot replaced since the
 * round began. `pairShare` of the rows, where the index holds overridden-command pairs, are pairs.
 */
export function drawTransitions(
  index: TransitionIndex,
  size: number,
  steps: number,
  discount: number,
  random: SeededRandom,
  current: (slot: number) => boolean,
  pairShare = 0,
): TransitionBatch {
  const batch: TransitionBatch = { starts: [], rewardSlots: [], bootstrap: [], bootstrapDiscount: [], fromOperator: [], actionSlots: [], interventions: [] };
  const { operatorStarts, policyStarts, overriddenPairs } = index;
  if (operatorStarts.length + policyStarts.length === 0) return batch;
  const pairRows = overriddenPairs.length > 0 ? Math.round(size * pairShare) : 0;
  for (let row = 0; row < size; row++) {
    let start: number;
    let actionSlot: number;
    let fromOperator: boolean;
    if (row < pairRows) {
      const pair = overriddenPairs[pickIndex(random, overriddenPairs.length)]!;
      [start, actionSlot, fromOperator] = [pair.state, pair.action, true];
      if (!current(actionSlot)) continue;
    } else {
      fromOperator = policyStarts.length === 0 || (operatorStarts.length > 0 && row % 2 === 0);
      const pool = fromOperator ? operatorStarts : policyStarts;
      start = actionSlot = pool[pickIndex(random, pool.length)]!;
    }
    if (!current(start)) continue;
    const walked = walk(index, start, steps, discount, current);
    if (walked === undefined) continue;
    batch.starts.push(start);
    batch.rewardSlots.push(walked.rewardSlots);
    batch.bootstrap.push(walked.bootstrap);
    batch.bootstrapDiscount.push(walked.bootstrap >= 0 ? walked.factor : 0);
    batch.fromOperator.push(fromOperator);
    batch.actionSlots.push(actionSlot);
    batch.interventions.push(row < pairRows ? 1 : 0);
  }
  return batch;
}

/** The n-step stretch from `start`: the ticks whose rewards it sums and where it bootstraps (−1: the goal); undefined where it cannot start. */
function walk(
  index: TransitionIndex,
  start: number,
  steps: number,
  discount: number,
  current: (slot: number) => boolean,
): { rewardSlots: number[]; bootstrap: number; factor: number } | undefined {
  const rewardSlots = [start];
  let last = start;
  let bootstrap = -1;
  let factor = discount;
  for (let k = 1; k <= steps; k++) {
    if (index.terminal[last] === 1) break;
    const following = index.next[last]!;
    if (following < 0 || !current(following)) {
      // Cut: bootstrap from the last tick reached, one step less.
      if (last === start) return undefined;
      bootstrap = last;
      rewardSlots.pop();
      factor /= discount;
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
  return { rewardSlots, bootstrap, factor };
}
