// The reward ensemble's training items from feedback: what each kind of feedback labels, with the
// weights the learner's `labels` option sets (the defaults are the weights the learner always used).
import { describe, expect, it } from 'vitest';
import { checkLabelWeights, DEFAULT_LABEL_WEIGHTS, rewardItems, takeoverMarks, type LabelWeights } from './feedbackLabels.ts';
import type { FeedbackSignals } from './feedbackTypes.ts';
import { TickBuffer } from './tickBuffer.ts';

const SIZE = 2;

function buffer(): TickBuffer {
  const ticks = new TickBuffer(200, SIZE);
  for (const [episodeId, driver] of [
    ['policy', 'policy'],
    ['operator', 'operator'],
  ] as const) {
    for (let step = 0; step < 50; step++) ticks.add({ episodeId, step, embedding: new Float32Array(SIZE), action: { linearMps: 0, angularRadps: 0 }, driver });
  }
  return ticks;
}

const signals: FeedbackSignals = {
  interventions: [
    {
      id: 'i1',
      atStep: 30,
      episodeId: 'policy',
      policySegment: { episodeId: 'policy', startStep: 10, endStep: 29 },
      operatorSegment: { episodeId: 'operator', startStep: 0, endStep: 3 },
    },
  ],
  preferences: [
    { id: 'q1', first: { episodeId: 'policy', startStep: 0, endStep: 4 }, second: { episodeId: 'operator', startStep: 10, endStep: 14 }, answer: 'equal' },
  ],
  ratings: [{ id: 'r1', episodeId: 'policy', step: 40, rating: -1 }],
};

function items(weights: LabelWeights) {
  const ticks = buffer();
  const held = ticks.slotsWhere(() => true);
  const marks = takeoverMarks(ticks, signals, { nearTakeoverTicks: 20, beforeTakeoverTicks: 10 });
  const { pairs, labels } = rewardItems(ticks, signals, held, marks, weights);
  const weightsOf = (prefix: string) => labels.filter((label) => label.id.startsWith(prefix)).map((label) => label.weight);
  return { pairs, labels, weightsOf };
}

describe('feedback labels', () => {
  it('defaults to the weights the learner always used', () => {
    expect(DEFAULT_LABEL_WEIGHTS).toEqual({
      takeoverPairWeight: 1,
      afterTakeoverGoodWeight: 0.25,
      beforeTakeoverBadWeight: 1,
      preferencePairWeight: 1,
      ratingRadiusTicks: 5,
      ratedTickWeight: 1,
      ratingNeighbourWeight: 0.5,
    });
    const { pairs, labels, weightsOf } = items(DEFAULT_LABEL_WEIGHTS);
    expect(pairs.map(({ id, firstPreferred, weight }) => ({ id, firstPreferred, weight }))).toEqual([
      { id: 'i1:pair', firstPreferred: 1, weight: 1 },
      { id: 'q1', firstPreferred: 0.5, weight: 1 },
    ]);
    // The operator's 4 ticks after the takeover good at ¼; the policy's last 10 before it bad at 1.
    expect(weightsOf('i1:')).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(weightsOf('before:')).toEqual(Array(10).fill(1));
    expect(labels.filter((label) => label.id.startsWith('before:')).every((label) => label.good === 0)).toBe(true);
    // The rated tick at 1 and 5 ticks either side at ½, all bad.
    expect(weightsOf('r1:')).toEqual([0.5, 0.5, 0.5, 0.5, 0.5, 1, 0.5, 0.5, 0.5, 0.5, 0.5]);
    expect(labels.filter((label) => label.id.startsWith('r1:')).every((label) => label.good === 0)).toBe(true);
  });

  it('weighs each kind of feedback as its option says', () => {
    const weights: LabelWeights = {
      takeoverPairWeight: 2,
      afterTakeoverGoodWeight: 0.75,
      beforeTakeoverBadWeight: 0.5,
      preferencePairWeight: 3,
      ratingRadiusTicks: 1,
      ratedTickWeight: 4,
      ratingNeighbourWeight: 0.125,
    };
    const { pairs, weightsOf } = items(weights);
    expect(pairs.map((pair) => pair.weight)).toEqual([2, 3]);
    expect(weightsOf('i1:')).toEqual([0.75, 0.75, 0.75, 0.75]);
    expect(weightsOf('before:')).toEqual(Array(10).fill(0.5));
    expect(weightsOf('r1:')).toEqual([0.125, 4, 0.125]);
  });

  it('refuses a negative weight and a fractional radius', () => {
    expect(() => checkLabelWeights({ ...DEFAULT_LABEL_WEIGHTS, afterTakeoverGoodWeight: -1 })).toThrow(/afterTakeoverGoodWeight/);
    expect(() => checkLabelWeights({ ...DEFAULT_LABEL_WEIGHTS, ratingRadiusTicks: 1.5 })).toThrow(/ratingRadiusTicks/);
    expect(() => checkLabelWeights(DEFAULT_LABEL_WEIGHTS)).not.toThrow();
  });
});
