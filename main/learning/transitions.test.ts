import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../core/util/seededRandom.ts';
import type { Driver } from '../core/tickReport.ts';
import { NO_FEEDBACK, type FeedbackSignals } from './feedbackTypes.ts';
import { TickBuffer } from './tickBuffer.ts';
import { drawTransitions, indexTransitions } from './transitions.ts';

function bufferWith(episodes: Array<{ id: string; steps: number; driver: (step: number) => Driver }>): TickBuffer {
  const buffer = new TickBuffer(100, 2);
  for (const episode of episodes) {
    for (let step = 0; step < episode.steps; step++) {
      buffer.add({
        episodeId: episode.id,
        step,
        embedding: new Float32Array([step, 0]),
        action: { linearMps: 0.1, angularRadps: 0 },
        driver: episode.driver(step),
      });
    }
  }
  return buffer;
}

const signals: FeedbackSignals = {
  ...NO_FEEDBACK,
  episodes: [
    { episodeId: 'goal', outcome: 'reached-goal' },
    { episodeId: 'failed', outcome: 'failed' },
  ],
};

describe('indexTransitions', () => {
  const buffer = bufferWith([
    { id: 'goal', steps: 10, driver: (step) => (step < 5 ? 'operator' : 'policy') },
    { id: 'failed', steps: 5, driver: () => 'policy' },
    { id: 'running', steps: 4, driver: () => 'operator' },
  ]);
  const held = buffer.slotsWhere(() => true);
  const index = indexTransitions(buffer, held, signals);
  const slot = (episode: string, step: number) => buffer.slotOf(episode, step)!;

  it('ends only an episode whose goal the operator said was reached, at its last tick', () => {
    expect([...index.terminal.keys()].filter((s) => index.terminal[s] === 1)).toEqual([slot('goal', 9)]);
  });

  it('links each tick to the next of its own episode, never across episodes', () => {
    expect(index.next[slot('goal', 3)]).toBe(slot('goal', 4));
    expect(index.next[slot('goal', 9)]).toBe(-1);
    expect(index.next[slot('failed', 4)]).toBe(-1);
  });

  it("starts from every tick with a next one or the goal, split by driver; a failed or running episode's last tick starts nothing", () => {
    expect(index.operatorStarts).toHaveLength(5 + 3);
    expect(index.policyStarts).toHaveLength(5 + 4);
    expect(index.policyStarts).not.toContain(slot('failed', 4));
    expect(index.operatorStarts).not.toContain(slot('running', 3));
  });

  it('without episode ends, nothing is terminal', () => {
    const none = indexTransitions(buffer, held, NO_FEEDBACK);
    expect(none.terminal.every((flag) => flag === 0)).toBe(true);
  });
});

describe('drawTransitions', () => {
  const buffer = bufferWith([
    { id: 'goal', steps: 10, driver: () => 'policy' },
    { id: 'failed', steps: 5, driver: () => 'operator' },
  ]);
  const held = buffer.slotsWhere(() => true);
  const index = indexTransitions(buffer, held, signals);
  const batch = drawTransitions(index, 400, 3, 0.9, new SeededRandom(3), () => true);
  const rows = batch.starts.map((start, row) => ({
    episode: buffer.episodeIds[start]!,
    step: buffer.steps[start]!,
    rewards: batch.rewardSlots[row]!.map((slot) => buffer.steps[slot]!),
    bootstrap: batch.bootstrap[row]! >= 0 ? buffer.steps[batch.bootstrap[row]!]! : -1,
    discount: batch.bootstrapDiscount[row]!,
    fromOperator: batch.fromOperator[row]!,
  }));

  it('draws half from the operator and half from the policy', () => {
    expect(rows.filter((row) => row.fromOperator)).toHaveLength(200);
    expect(rows.every((row) => row.fromOperator === (row.episode === 'failed'))).toBe(true);
  });

  it('sums n rewards and bootstraps n ticks on with γⁿ', () => {
    const mid = rows.find((row) => row.episode === 'goal' && row.step === 2)!;
    expect(mid).toMatchObject({ rewards: [2, 3, 4], bootstrap: 5 });
    expect(mid.discount).toBeCloseTo(0.9 ** 3, 6);
  });

  it('stops at the goal with no bootstrap', () => {
    const near = rows.find((row) => row.episode === 'goal' && row.step === 8)!;
    expect(near).toMatchObject({ rewards: [8, 9], bootstrap: -1, discount: 0 });
  });

  it("cuts at a failed episode's end and bootstraps from its last tick (not terminal)", () => {
    const cut = rows.find((row) => row.episode === 'failed' && row.step === 3)!;
    expect(cut).toMatchObject({ rewards: [3], bootstrap: 4 });
    expect(cut.discount).toBeCloseTo(0.9, 6);
  });

  it('leaves out a start replaced since the round began', () => {
    const gone = buffer.slotOf('goal', 2)!;
    const drawn = drawTransitions(index, 400, 3, 0.9, new SeededRandom(3), (slot) => slot !== gone);
    expect(drawn.starts).not.toContain(gone);
  });

  it('draws nothing from an empty index', () => {
    const empty = indexTransitions(new TickBuffer(4, 2), [], NO_FEEDBACK);
    expect(drawTransitions(empty, 10, 3, 0.9, new SeededRandom(1), () => true).starts).toEqual([]);
  });
});

describe('overridden-command pairs', () => {
  // The policy drives steps 0–5, the operator takes over at 6 and drives to the goal at 13.
  const buffer = bufferWith([{ id: 'taken', steps: 14, driver: (step) => (step < 6 ? 'policy' : 'operator') }]);
  const held = buffer.slotsWhere(() => true);
  const takeover: FeedbackSignals = {
    ...NO_FEEDBACK,
    episodes: [{ episodeId: 'taken', outcome: 'reached-goal' }],
    interventions: [
      {
        id: 'i1',
        atStep: 6,
        episodeId: 'taken',
        policySegment: { episodeId: 'taken', startStep: 0, endStep: 5 },
        operatorSegment: { episodeId: 'taken', startStep: 6, endStep: 13 },
      },
    ],
  };
  const slot = (step: number) => buffer.slotOf('taken', step)!;

  it("pairs each of the operator's first ticks after a takeover with the command it overrode", () => {
    const index = indexTransitions(buffer, held, takeover, 3);
    expect(index.overriddenPairs).toEqual([6, 7, 8].map((step) => ({ state: slot(step), action: slot(5) })));
    expect(indexTransitions(buffer, held, takeover).overriddenPairs).toEqual([]);
    // A takeover before the policy drove has nothing overridden.
    const early = { ...takeover, interventions: [{ ...takeover.interventions[0]!, policySegment: undefined }] };
    expect(indexTransitions(buffer, held, early, 3).overriddenPairs).toEqual([]);
  });

  it('draws its share of rows as pairs: the operator’s transition with the overridden command, charged one takeover', () => {
    const index = indexTransitions(buffer, held, takeover, 3);
    const batch = drawTransitions(index, 200, 3, 0.9, new SeededRandom(5), () => true, 0.25);
    const pairRows = batch.interventions.flatMap((charged, row) => (charged === 1 ? [row] : []));
    expect(pairRows).toHaveLength(50);
    for (const row of pairRows) {
      expect(batch.actionSlots[row]).toBe(slot(5));
      expect([6, 7, 8]).toContain(buffer.steps[batch.starts[row]!]);
      const step = buffer.steps[batch.starts[row]!]!;
      expect(batch.rewardSlots[row]!.map((each) => buffer.steps[each]!)).toEqual([step, step + 1, step + 2]);
      expect(buffer.steps[batch.bootstrap[row]!]).toBe(step + 3);
    }
    // Every other row is its own start's transition, uncharged.
    batch.starts.forEach((start, row) => {
      if (batch.interventions[row] === 0) expect(batch.actionSlots[row]).toBe(start);
    });
    // With no pairs in the index the share draws ordinary rows.
    expect(
      drawTransitions(indexTransitions(buffer, held, takeover), 200, 3, 0.9, new SeededRandom(5), () => true, 0.25).interventions.every((n) => n === 0),
    ).toBe(true);
  });
});
