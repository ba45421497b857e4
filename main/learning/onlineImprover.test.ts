// The live learner: it keeps operator and policy ticks (never idle or e-stopped ones, never a tick
// with a non-finite embedding), runs a round in its worker thread when there is something new, and
// hands over a numbered candidate that says what it learned from; the reward ensemble answers here.
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { OnlineImprover } from './onlineImprover.ts';
import type { PolicyCandidate } from './policyImprover.ts';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function tick(step: number, driver: 'operator' | 'policy' | 'idle', embedding = Float32Array.from({ length: 6 }, (_, k) => Math.sin(step * (k + 1)))) {
  return { episodeId: 'session-1', step, timeMs: step * 100, embedding, latent: undefined, action: { linearMps: 0.2, angularRadps: Math.sin(step) }, driver } as const;
}

describe('OnlineImprover', () => {
  it('turns operator ticks and feedback into numbered candidates', async () => {
    const improver = new OnlineImprover({ embeddingSize: 6, limits: [0.5, 1.5], updateEverySecs: 3600, stepsPerUpdate: 4, learner: { hidden: 8, layers: 1, minTicksToFit: 20 } });
    const candidates: PolicyCandidate[] = [];
    improver.onCandidate((candidate) => candidates.push(candidate));
    try {
      for (let step = 0; step < 10; step++) improver.observe(tick(step, 'operator'));
      await improver.update();
      // Too few ticks to fit the statistics yet: nothing comes out, and the next round tries again.
      expect(candidates).toHaveLength(0);
      for (let step = 10; step < 40; step++) improver.observe(tick(step, 'operator'));
      for (let step = 40; step < 60; step++) improver.observe(tick(step, 'idle'));
      improver.observe(tick(60, 'operator', Float32Array.of(1, 2, Number.NaN, 4, 5, 6)));
      improver.feedbackChanged({ interventions: [{ id: 'i1', atStep: 20, episodeId: 'session-1', policySegment: undefined, operatorSegment: { episodeId: 'session-1', startStep: 20, endStep: 30 } }], preferences: [], ratings: [] });
      await improver.update();
      expect(candidates).toHaveLength(1);
      expect(candidates[0]!.policy.version).toBe('learned-1');
      expect(candidates[0]!.trainedOn).toEqual({ interventions: 1, preferences: 0, ratings: 0, operatorTicks: 40 });
      // Nothing new since: no round, no candidate.
      await improver.update();
      expect(candidates).toHaveLength(1);
      improver.observe(tick(61, 'operator'));
      await improver.update();
      expect(candidates.map((candidate) => candidate.policy.version)).toEqual(['learned-1', 'learned-2']);
      expect(improver.lastError).toBeUndefined();
      // The worker trains; this thread answers from its frozen copy of the reward ensemble at once.
      expect(typeof (await improver.backend())).toBe('string');
      const spread = improver.disagreement({ episodeId: 'session-1', startStep: 10, endStep: 19 }, { episodeId: 'session-1', startStep: 25, endStep: 34 });
      expect(spread).toBeGreaterThanOrEqual(0);
      expect(improver.disagreement({ episodeId: 'session-1', startStep: 45, endStep: 50 }, { episodeId: 'session-1', startStep: 10, endStep: 19 })).toBeUndefined();
      expect(Number.isFinite(improver.rewardEstimate(tick(5, 'operator').embedding))).toBe(true);
      expect(improver.rewardEstimate(Float32Array.of(1, 2, Number.NaN, 4, 5, 6))).toBeUndefined();
    } finally {
      await improver.close();
    }
  });
});
