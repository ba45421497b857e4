// The learners on small synthetic data where the right answer is known: the actor clones what the
// operator did, weights up the ticks after a takeover, and the reward ensemble ranks the preferred
// kind of tick higher and disagrees less about what it was taught than about what it never saw.
import type { Driver } from '../core/tickReport.ts';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedbackSignals } from './feedbackTypes.ts';
import { NO_FEEDBACK } from './feedbackTypes.ts';
import { DEFAULT_LABEL_WEIGHTS, type LabelWeights } from './feedbackLabels.ts';
import { isHeldOutAnswer, PolicyLearner } from './policyLearner.ts';
import { LearnedPolicy } from './learnedPolicy.ts';
import { DEFAULT_REWARD_DRIFT_OPTIONS } from './rewardDrift.ts';
import { TickBuffer } from './tickBuffer.ts';
import { Rssm } from '../worldmodel/rssm.ts';
import { disposeWeights } from '../worldmodel/rssmWeights.ts';
import { worldModelConfig } from '../worldmodel/worldModelConfig.ts';

const readWeightsOf = (learner: PolicyLearner) => learner.snapshot('probe').weights;

const SIZE = 8;

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** Feature 0 says which way to turn: the operator turns left when it is positive, right when negative. */
function fill(buffer: TickBuffer, count: number, driver: Driver, episodeId: string, seed: number, firstStep = 0): void {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  for (let i = 0; i < count; i++) {
    const embedding = Float32Array.from({ length: SIZE }, () => next() * 2 - 1);
    const turn = embedding[0]! > 0 ? 1.2 : -1.2;
    buffer.add({ episodeId, step: firstStep + i, embedding, action: { linearMps: 0.3, angularRadps: turn }, driver });
  }
}

describe('PolicyLearner', () => {
  const learners: PolicyLearner[] = [];
  afterAll(() => learners.forEach((learner) => learner.dispose()));

  it('reads each step’s rows from the buffer, leaving out ticks replaced since the round began', () => {
    const buffer = new TickBuffer(300, SIZE);
    fill(buffer, 300, 'operator', 'e1', 5);
    const learner = new PolicyLearner(buffer, { method: 'bc', hidden: 16, layers: 1, operatorBatch: 32, minTicksToFit: 50, seed: 4 });
    learners.push(learner);
    const round = learner.begin(NO_FEEDBACK)!;
    round.steps(3);
    expect(round.report.actorSteps).toBe(3);
    // Half the ring is replaced: the round goes on with the half it began with.
    fill(buffer, 150, 'operator', 'e2', 6);
    round.steps(3);
    expect(round.report.actorSteps).toBe(6);
    // The whole ring is replaced: nothing of the round is left, so no step is taken.
    fill(buffer, 150, 'operator', 'e3', 8);
    round.steps(3);
    expect(round.report.actorSteps).toBe(6);
    // A new round reads the ticks held now.
    expect(learner.train(2, NO_FEEDBACK)).toMatchObject({ actorSteps: 2, operatorTicks: 300 });
    expect(buffer.unchangedSince(buffer.slotOf('e3', 0)!, 451)).toBe(true);
    expect(buffer.unchangedSince(buffer.slotOf('e3', 0)!, 450)).toBe(false);
  });

  it('finds a run of one episode’s ticks ending at a slot, and none where a tick is gone', () => {
    const buffer = new TickBuffer(10, SIZE);
    fill(buffer, 6, 'operator', 'a', 1);
    fill(buffer, 6, 'policy', 'b', 2);
    // The ring of 10 now holds a's steps 2–5 and b's steps 0–5.
    const lastOfB = buffer.slotOf('b', 5)!;
    expect(buffer.runEndingAt(lastOfB, 3)).toEqual([buffer.slotOf('b', 3), buffer.slotOf('b', 4), lastOfB]);
    expect(buffer.runEndingAt(lastOfB, 6)).toHaveLength(6);
    expect(buffer.runEndingAt(lastOfB, 7)).toBeUndefined();
    expect(buffer.runEndingAt(buffer.slotOf('a', 3)!, 3)).toBeUndefined();
    const command = buffer.commandAt(lastOfB);
    expect(command.linearMps).toBeCloseTo(0.3, 6);
    expect(Math.abs(command.angularRadps)).toBeCloseTo(1.2, 6);
  });

  it('clones the operator: the trained policy turns the way the operator did', () => {
    const buffer = new TickBuffer(1000, SIZE);
    fill(buffer, 400, 'operator', 'e1', 7);
    const learner = new PolicyLearner(buffer, { method: 'bc', hidden: 32, layers: 1, operatorBatch: 64, minTicksToFit: 50, seed: 3 });
    learners.push(learner);
    const before = learner.candidate('v1');
    const report = learner.train(150, NO_FEEDBACK);
    expect(report.actorSteps).toBe(150);
    expect(report.operatorTicks).toBe(400);
    const after = learner.candidate('v2');
    const probe = (policy: typeof after, sign: number) => {
      const values = new Float32Array(SIZE);
      values[0] = sign * 0.8;
      return policy.act({ embedding: { values, mask: { camera: true, lidar: true, proprio: true } }, frame: { timeMs: 0, missing: [] } } as never).angularRadps;
    };
    expect(probe(after, 1)).toBeGreaterThan(0.5);
    expect(probe(after, -1)).toBeLessThan(-0.5);
    expect(Math.abs(probe(before, 1))).toBeLessThan(0.5);
    expect(after.version).toBe('v2');
    [before, after].forEach((policy) => policy.dispose());
  });

  it('waits for enough ticks before fitting its statistics, and trains nothing until then', () => {
    const buffer = new TickBuffer(100, SIZE);
    fill(buffer, 10, 'operator', 'e1', 1);
    const learner = new PolicyLearner(buffer, { minTicksToFit: 50, hidden: 16, layers: 1 });
    learners.push(learner);
    expect(learner.begin(NO_FEEDBACK)).toBeUndefined();
    expect(learner.train(5, NO_FEEDBACK).actorSteps).toBe(0);
    expect(learner.featureNorm).toBeUndefined();
  });

  it('learns a reward from preferences: the preferred segments score higher than the others', () => {
    const buffer = new TickBuffer(2000, SIZE);
    // Episode "good" ticks have feature 1 high, "bad" ticks low; the operator prefers good segments.
    for (const [episodeId, level] of [
      ['good', 0.9],
      ['bad', -0.9],
    ] as const) {
      for (let step = 0; step < 300; step++) {
        const embedding = Float32Array.from({ length: SIZE }, (_, k) => (k === 1 ? level + (step % 7) * 0.01 : Math.sin(step * (k + 1))));
        buffer.add({ episodeId, step, embedding, action: { linearMps: 0.2, angularRadps: 0 }, driver: 'policy' });
      }
    }
    const preferences = Array.from({ length: 20 }, (_, i) => ({
      id: `q${i}`,
      first: { episodeId: i % 2 === 0 ? 'good' : 'bad', startStep: i * 10, endStep: i * 10 + 9 },
      second: { episodeId: i % 2 === 0 ? 'bad' : 'good', startStep: i * 10, endStep: i * 10 + 9 },
      answer: (i % 2 === 0 ? 'first' : 'second') as 'first' | 'second',
    }));
    const signals: FeedbackSignals = { interventions: [], preferences, ratings: [] };
    const learner = new PolicyLearner(buffer, {
      method: 'reins',
      hidden: 16,
      layers: 1,
      minTicksToFit: 50,
      rewardStepsPerActorStep: 1,
      seed: 5,
      reward: { hidden: 16, layers: 1, learningRate: 3e-3 },
    });
    learners.push(learner);
    const report = learner.train(60, signals);
    expect(report.rewardSteps).toBe(60);
    const rows = (episodeId: string) => buffer.gather(Array.from({ length: 50 }, (_, i) => buffer.slotOf(episodeId, 250 + i)!));
    const good = learner.rewardStatistics(rows('good'), 50)!.mean;
    const bad = learner.rewardStatistics(rows('bad'), 50)!.mean;
    const mean = (values: Float32Array) => values.reduce((a, b) => a + b, 0) / values.length;
    expect(mean(good)).toBeGreaterThan(mean(bad) + 1);
    expect(learner.disagreement({ episodeId: 'good', startStep: 0, endStep: 9 }, { episodeId: 'bad', startStep: 0, endStep: 9 })).toBeGreaterThanOrEqual(0);
    expect(learner.disagreement({ episodeId: 'gone', startStep: 0, endStep: 9 }, { episodeId: 'bad', startStep: 0, endStep: 9 })).toBeUndefined();

    // Its members agree where the answers taught them, and far less on ground nobody taught them about
    // (feature 1 halfway between the good and the bad ticks): what the cockpit's "the reward is unknown
    // here" warning stands on.
    const taught = learner.taughtRewardSpread(signals)!;
    expect(taught).toBeGreaterThan(0);
    const unknown = Float32Array.from({ length: 50 * SIZE }, (_, i) => (i % SIZE === 1 ? 0 : Math.sin(i)));
    expect(mean(learner.rewardStatistics(unknown, 50)!.spread)).toBeGreaterThan(DEFAULT_REWARD_DRIFT_OPTIONS.warnAboveRatio * taught);
    expect(learner.taughtRewardSpread(signals, { quantile: 0 })!).toBeLessThan(taught);
    expect(() => learner.taughtRewardSpread(signals, { quantile: 1.5 })).toThrow(/quantile/);
    expect(() => learner.taughtRewardSpread(signals, { maxTicks: 0 })).toThrow(/maxTicks/);
    expect(learner.taughtRewardSpread(NO_FEEDBACK)).toBeUndefined();
    expect(learner.taughtRewardSpread(signals, { minTicks: 1000 })).toBeUndefined();
  });

  it('stays finite and keeps learning under contradictory, flooding and dangling feedback', () => {
    const buffer = new TickBuffer(600, SIZE);
    fill(buffer, 200, 'operator', 'e1', 9);
    fill(buffer, 200, 'policy', 'e2', 13);
    const same = { episodeId: 'e2', startStep: 0, endStep: 9 };
    const other = { episodeId: 'e2', startStep: 20, endStep: 29 };
    const gone = { episodeId: 'never-seen', startStep: 0, endStep: 9 };
    const signals: FeedbackSignals = {
      // The same pair answered both ways, over and over; and pairs pointing at ticks that are gone.
      preferences: [
        ...Array.from({ length: 40 }, (_, i) => ({
          id: `flip${i}`,
          first: same,
          second: other,
          answer: (i % 2 === 0 ? 'first' : 'second') as 'first' | 'second',
        })),
        { id: 'dangling', first: gone, second: same, answer: 'first' as const },
      ],
      // A flood of opposite ratings on one moment, and a rating of a tick that is gone.
      ratings: [
        ...Array.from({ length: 100 }, (_, i) => ({ id: `r${i}`, episodeId: 'e2', step: 50, rating: (i % 2 === 0 ? 1 : -1) as 1 | -1 })),
        { id: 'r-gone', episodeId: 'never-seen', step: 3, rating: 1 as const },
      ],
      interventions: [{ id: 'i1', atStep: 100, episodeId: 'e2', policySegment: { episodeId: 'e2', startStep: 80, endStep: 99 }, operatorSegment: gone }],
    };
    const learner = new PolicyLearner(buffer, {
      method: 'reins',
      hidden: 16,
      layers: 1,
      minTicksToFit: 50,
      rewardStepsPerActorStep: 1,
      seed: 2,
      reward: { hidden: 16, layers: 1 },
    });
    learners.push(learner);
    const report = learner.train(30, signals);
    expect(report.actorSteps).toBe(30);
    expect(report.rewardSteps).toBe(30);
    expect(Number.isFinite(report.rewardLoss) && Number.isFinite(report.bcLoss)).toBe(true);
    const policy = learner.candidate('v2');
    const command = policy.act({
      embedding: { values: new Float32Array(SIZE).fill(0.3), mask: { camera: true, lidar: true, proprio: true } },
      frame: { timeMs: 0, missing: [] },
    } as never);
    expect(Number.isFinite(command.linearMps) && Number.isFinite(command.angularRadps)).toBe(true);
    expect(policy.nonFiniteOutputs).toBe(0);
    policy.dispose();
  });
  it('teaches the reward ensemble with the label weights its options give', () => {
    const buffer = new TickBuffer(600, SIZE);
    fill(buffer, 200, 'policy', 'p', 3);
    fill(buffer, 200, 'operator', 'o', 5);
    const signals: FeedbackSignals = {
      interventions: [
        {
          id: 'i1',
          atStep: 100,
          episodeId: 'p',
          policySegment: { episodeId: 'p', startStep: 80, endStep: 99 },
          operatorSegment: { episodeId: 'o', startStep: 0, endStep: 60 },
        },
      ],
      preferences: [],
      ratings: [{ id: 'r1', episodeId: 'p', step: 150, rating: 1 }],
    };
    const rewardAfter = (labels: Partial<LabelWeights> | undefined) => {
      const learner = new PolicyLearner(buffer, {
        hidden: 16,
        layers: 1,
        minTicksToFit: 50,
        rewardStepsPerActorStep: 1,
        seed: 6,
        reward: { hidden: 16, layers: 1 },
        ...(labels === undefined ? {} : { labels }),
      });
      learners.push(learner);
      learner.train(4, signals);
      return learner
        .rewardWeights()!
        .flat()
        .flatMap((values) => [...values]);
    };
    const unset = rewardAfter(undefined);
    expect(rewardAfter({ ...DEFAULT_LABEL_WEIGHTS })).toEqual(unset);
    expect(rewardAfter({ afterTakeoverGoodWeight: 1 })).not.toEqual(unset);
    expect(() => new PolicyLearner(buffer, { labels: { ratedTickWeight: -1 } })).toThrow(/ratedTickWeight/);
  });

  it('imagines in the world model once it has one and the reward model has learned, and never for bc', () => {
    const buffer = new TickBuffer(1000, SIZE);
    fill(buffer, 300, 'operator', 'e1', 7);
    fill(buffer, 300, 'policy', 'e2', 9);
    const rssm = new Rssm(worldModelConfig('wm-xxs', { embeddingSize: SIZE }), 2);
    const imagination = { rollouts: 4, warmupTicks: 3, horizon: 3, everyActorSteps: 2 };
    const options = {
      hidden: 16,
      layers: 1,
      operatorBatch: 32,
      minTicksToFit: 50,
      rewardStepsPerActorStep: 1,
      seed: 3,
      reward: { hidden: 16, layers: 1 },
      imagination,
    };
    const preferences = Array.from({ length: 6 }, (_, i) => ({
      id: `q${i}`,
      first: { episodeId: 'e1', startStep: i * 20, endStep: i * 20 + 9 },
      second: { episodeId: 'e2', startStep: i * 20, endStep: i * 20 + 9 },
      answer: 'first' as const,
    }));
    const signals: FeedbackSignals = { interventions: [], preferences, ratings: [] };
    const reins = new PolicyLearner(buffer, options);
    const bc = new PolicyLearner(buffer, { ...options, method: 'bc' });
    learners.push(reins, bc);
    try {
      // No world model yet: behaviour cloning and the reward model only.
      expect(reins.train(4, signals)).toMatchObject({ actorSteps: 4, imaginedSteps: 0 });
      reins.useWorldModel(rssm);
      bc.useWorldModel(rssm);
      const report = reins.train(8, signals);
      expect(report.imaginedSteps).toBe(4);
      expect(Number.isFinite(report.imaginedReward)).toBe(true);
      expect(readWeightsOf(reins).every((values) => values.every(Number.isFinite))).toBe(true);
      expect(bc.train(8, signals).imaginedSteps).toBe(0);
      reins.useWorldModel(undefined);
      expect(reins.train(2, signals).imaginedSteps).toBe(0);
      const wrong = new Rssm(worldModelConfig('wm-xxs', { embeddingSize: SIZE + 1 }), 2);
      expect(() => reins.useWorldModel(wrong)).toThrow(/9-float embeddings/);
      disposeWeights(wrong.weights);
    } finally {
      disposeWeights(rssm.weights);
    }
  });

  it("blocks promotion once the operator's answers turn wrong: the reward ensemble then fails the earlier answers it was kept from", () => {
    // Feature 0 is the progress the operator judges by. Segments of 5 ticks, one episode each.
    const buffer = new TickBuffer(800, SIZE);
    for (let segment = 0; segment < 160; segment++) {
      const progress = (segment % 16) / 8 - 1;
      for (let step = 0; step < 5; step++) {
        const embedding = new Float32Array(SIZE);
        embedding[0] = progress;
        embedding[1 + (segment % 7)] = 0.5;
        buffer.add({
          episodeId: `s${segment}`,
          step,
          embedding,
          action: { linearMps: 0.2, angularRadps: 0 },
          driver: segment % 2 === 0 ? 'operator' : 'policy',
        });
      }
    }
    const segmentOf = (index: number) => ({ episodeId: `s${index}`, startStep: 0, endStep: 4 });
    // Each answer compares a segment with the one 3 further on (higher progress, except across the wrap).
    const answers = (right: boolean) =>
      Array.from({ length: 150 }, (_, i) => {
        const firstBetter = (i % 16) + 3 < 16 ? false : true;
        return { id: `answer-${i}`, first: segmentOf(i), second: segmentOf(i + 3), answer: (firstBetter === right ? 'first' : 'second') as 'first' | 'second' };
      });
    const rightOnes = answers(true);
    const wrongOnes = answers(false);
    const heldOut = rightOnes.filter((answer) => isHeldOutAnswer(answer.id));
    expect(heldOut.length).toBeGreaterThanOrEqual(5);
    const options = {
      hidden: 16,
      layers: 1,
      operatorBatch: 16,
      minTicksToFit: 50,
      seed: 2,
      rewardStepsPerActorStep: 3,
      reward: { members: 3, hidden: 16 },
      critic: { critics: 2, hidden: 8, updatesPerTransition: 0.02, warmupUpdates: 1000 },
    };
    // Earlier answers (right) were kept from the ensemble; the stretch it learned from is all wrong.
    const misled = new PolicyLearner(buffer, options);
    learners.push(misled);
    const misleading: FeedbackSignals = {
      ...NO_FEEDBACK,
      preferences: wrongOnes.map((answer) => (isHeldOutAnswer(answer.id) ? rightOnes.find((r) => r.id === answer.id)! : answer)),
    };
    misled.train(20, misleading);
    expect(misled.heldOutAnswers(misleading).right / misled.heldOutAnswers(misleading).judged).toBeLessThan(0.6);
    expect(misled.evaluateCandidate(undefined, misleading)).toMatchObject({ verdict: 'blocked', reason: expect.stringMatching(/earlier answers right/) });
    // The same feedback, right throughout: nothing blocks.
    const taught = new PolicyLearner(buffer, options);
    learners.push(taught);
    const honest: FeedbackSignals = { ...NO_FEEDBACK, preferences: rightOnes };
    taught.train(20, honest);
    expect(taught.heldOutAnswers(honest).right / taught.heldOutAnswers(honest).judged).toBeGreaterThanOrEqual(0.6);
    expect(taught.evaluateCandidate(undefined, honest)?.verdict).toBe('promote');
  }, 120_000);

  it('takes a takeover spammed every tick and contradictory ratings with the critics on: weights stay finite, the policy stays within its limits', () => {
    const buffer = new TickBuffer(600, SIZE);
    fill(buffer, 300, 'operator', 'spam', 11);
    fill(buffer, 300, 'policy', 'spam', 12, 300);
    // A takeover at every tick of the policy's stretch, each one tick long; every rated tick rated both ways.
    const interventions = Array.from({ length: 150 }, (_, i) => ({
      id: `t${i}`,
      atStep: 300 + 2 * i + 1,
      episodeId: 'spam',
      policySegment: { episodeId: 'spam', startStep: 300 + 2 * i, endStep: 300 + 2 * i },
      operatorSegment: { episodeId: 'spam', startStep: 300 + 2 * i + 1, endStep: 300 + 2 * i + 1 },
    }));
    const ratings = Array.from({ length: 100 }, (_, i) => ({ id: `r${i}`, episodeId: 'spam', step: 300 + (i >> 1), rating: (i % 2 === 0 ? 1 : -1) as 1 | -1 }));
    const signals: FeedbackSignals = { ...NO_FEEDBACK, interventions, ratings, episodes: [{ episodeId: 'spam', outcome: 'failed' }] };
    const learner = new PolicyLearner(buffer, {
      hidden: 16,
      layers: 1,
      operatorBatch: 16,
      minTicksToFit: 50,
      seed: 5,
      reward: { members: 3, hidden: 16 },
      critic: { critics: 2, hidden: 16, batch: 32, updatesPerTransition: 0.05, warmupUpdates: 5 },
    });
    learners.push(learner);
    const report = learner.train(30, signals);
    expect(report.criticUpdates).toBeGreaterThanOrEqual(30);
    expect(report.actorCriticSteps).toBeGreaterThan(0);
    const snapshot = learner.publish('spammed');
    for (const weights of snapshot.weights) expect(weights.every(Number.isFinite)).toBe(true);
    for (const critic of learner.criticWeights()!) for (const weights of critic) expect(weights.every(Number.isFinite)).toBe(true);
    const verdict = learner.evaluateCandidate(undefined, signals)!;
    expect(Number.isFinite(verdict.candidateValue)).toBe(true);
    const policy = new LearnedPolicy(snapshot);
    for (let slot = 0; slot < 600; slot += 7) {
      const command = policy.act({ embedding: { values: buffer.embeddings.subarray(slot * SIZE, (slot + 1) * SIZE) } } as Parameters<LearnedPolicy['act']>[0]);
      expect(Math.abs(command.linearMps)).toBeLessThanOrEqual(snapshot.limits[0]);
      expect(Math.abs(command.angularRadps)).toBeLessThanOrEqual(snapshot.limits[1]);
    }
  }, 120_000);
});
