// The live learner: it keeps operator and policy ticks (never idle or e-stopped ones, never a tick
// with a non-finite embedding), runs a round in its worker thread when there is something new, and
// hands over a numbered candidate that says what it learned from; the reward ensemble answers here.
import * as tf from '@tensorflow/tfjs-core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MemoryTeaching } from './memoryTeaching.ts';
import { OnlineImprover } from './onlineImprover.ts';
import type { PolicyCandidate } from './policyImprover.ts';
import { Rssm } from '../worldmodel/rssm.ts';
import { disposeWeights, namedWeights } from '../worldmodel/rssmWeights.ts';
import { worldModelConfig } from '../worldmodel/worldModelConfig.ts';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function tick(step: number, driver: 'operator' | 'policy' | 'idle', embedding = Float32Array.from({ length: 6 }, (_, k) => Math.sin(step * (k + 1)))) {
  return {
    episodeId: 'session-1',
    step,
    timeMs: step * 100,
    embedding,
    latent: undefined,
    action: { linearMps: 0.2, angularRadps: Math.sin(step) },
    driver,
  } as const;
}

/** A small improver whose rounds run only when a test calls update(). */
function smallImprover(): OnlineImprover {
  return new OnlineImprover({
    embeddingSize: 6,
    limits: [0.5, 1.5],
    updateEverySecs: 3600,
    stepsPerUpdate: 4,
    learner: { hidden: 8, layers: 1, minTicksToFit: 20 },
  });
}

describe('OnlineImprover', () => {
  it('turns operator ticks and feedback into numbered candidates', async () => {
    const improver = smallImprover();
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
      improver.feedbackChanged({
        interventions: [
          { id: 'i1', atStep: 20, episodeId: 'session-1', policySegment: undefined, operatorSegment: { episodeId: 'session-1', startStep: 20, endStep: 39 } },
        ],
        preferences: [],
        ratings: [],
      });
      expect(improver.taughtRewardSpread()).toBeUndefined();
      await improver.update();
      expect(candidates).toHaveLength(1);
      expect(candidates[0]!.policy.version).toBe('learned-1');
      expect(candidates[0]!.trainedOn).toEqual({ interventions: 1, preferences: 0, ratings: 0, operatorTicks: 40 });
      const probe = tick(25, 'operator').embedding;
      const firstScore = improver.rewardUncertainty(probe)!;
      // Nothing new since: no round, no candidate.
      await improver.update();
      expect(candidates).toHaveLength(1);
      improver.observe(tick(61, 'operator'));
      await improver.update();
      expect(candidates.map((candidate) => candidate.policy.version)).toEqual(['learned-1', 'learned-2']);
      // The answer kept for a tick is not kept across new weights: the second round's ensemble answers anew.
      expect(improver.rewardUncertainty(probe)!.mean).not.toBe(firstScore.mean);
      expect(improver.lastError).toBeUndefined();
      // The worker trains; this thread answers from its frozen copy of the reward ensemble at once.
      expect(typeof (await improver.backend())).toBe('string');
      const spread = improver.disagreement({ episodeId: 'session-1', startStep: 10, endStep: 19 }, { episodeId: 'session-1', startStep: 25, endStep: 34 });
      expect(spread).toBeGreaterThanOrEqual(0);
      expect(
        improver.disagreement({ episodeId: 'session-1', startStep: 45, endStep: 50 }, { episodeId: 'session-1', startStep: 10, endStep: 19 }),
      ).toBeUndefined();
      expect(Number.isFinite(improver.rewardEstimate(tick(5, 'operator').embedding))).toBe(true);
      expect(improver.rewardEstimate(Float32Array.of(1, 2, Number.NaN, 4, 5, 6))).toBeUndefined();
      // The spread where the feedback taught it is measured in the worker and comes back with the round;
      // a tick's own spread is answered here, from the same frozen copy.
      expect(improver.taughtRewardSpread()).toBeGreaterThan(0);
      const embedding = tick(25, 'operator').embedding;
      const { mean, spread: tickSpread } = improver.rewardUncertainty(embedding)!;
      expect(tickSpread).toBeGreaterThan(0);
      expect(improver.rewardEstimate(embedding)).toBe(mean);
      expect(improver.rewardUncertainty(Float32Array.of(1, 2, Number.POSITIVE_INFINITY, 4, 5, 6))).toBeUndefined();
    } finally {
      await improver.close();
    }
  });

  it('keeps every tick given while its thread is still starting', async () => {
    const improver = smallImprover();
    const candidates: PolicyCandidate[] = [];
    improver.onCandidate((candidate) => candidates.push(candidate));
    try {
      // Given at once, before the thread has loaded its backend: the first 50 reach it as one batch
      // while it is still starting, and the round must learn from them as from the 10 after.
      for (let step = 0; step < 60; step++) improver.observe(tick(step, 'operator'));
      await improver.update();
      expect(improver.lastError).toBeUndefined();
      expect(candidates.map((candidate) => candidate.trainedOn.operatorTicks)).toEqual([60]);
    } finally {
      await improver.close();
    }
  });

  it('starts no round or retrain while paused, keeps the ticks it is given, and learns from them once resumed', async () => {
    const improver = smallImprover();
    const candidates: PolicyCandidate[] = [];
    improver.onCandidate((candidate) => candidates.push(candidate));
    try {
      improver.pause();
      expect(improver.isPaused()).toBe(true);
      for (let step = 0; step < 40; step++) improver.observe(tick(step, 'operator'));
      await improver.update();
      let read = 0;
      const retrain = await improver.retrainFromMemory(async () => {
        read++;
        throw new Error('a paused learner reads no memory');
      }, 10);
      expect(retrain).toEqual({ ok: false, reason: 'learning is paused while the core’s memory is near its budget', ticks: 0 });
      expect(read).toBe(0);
      expect(candidates).toHaveLength(0);
      expect(improver.stepsTaken()).toBe(0);
      improver.resume();
      await improver.update();
      expect(candidates.map((candidate) => candidate.trainedOn.operatorTicks)).toEqual([40]);
      expect(improver.stepsTaken()).toBe(4);
    } finally {
      await improver.close();
    }
  });

  it('imagines in the world model the core hands over, and goes on learning', async () => {
    const imagination = { rollouts: 4, warmupTicks: 3, horizon: 3, everyActorSteps: 1 };
    const improver = new OnlineImprover({
      embeddingSize: 6,
      limits: [0.5, 1.5],
      updateEverySecs: 3600,
      stepsPerUpdate: 4,
      learner: { hidden: 8, layers: 1, minTicksToFit: 20, rewardStepsPerActorStep: 1, imagination },
    });
    const rssm = new Rssm(worldModelConfig('wm-xxs', { embeddingSize: 6 }), 1);
    const candidates: PolicyCandidate[] = [];
    improver.onCandidate((candidate) => candidates.push(candidate));
    try {
      for (let step = 0; step < 40; step++) improver.observe(tick(step, step < 25 ? 'operator' : 'policy'));
      improver.feedbackChanged({
        interventions: [
          {
            id: 'i1',
            atStep: 20,
            episodeId: 'session-1',
            policySegment: { episodeId: 'session-1', startStep: 10, endStep: 19 },
            operatorSegment: { episodeId: 'session-1', startStep: 20, endStep: 24 },
          },
        ],
        preferences: [],
        ratings: [],
      });
      await improver.update();
      improver.useWorldModel(
        rssm.config,
        namedWeights(rssm.weights).map(([name, variable]) => ({ name, shape: [...variable.shape], values: variable.dataSync() as Float32Array })),
        'wm-1',
      );
      improver.observe(tick(40, 'operator'));
      await improver.update();
      expect(candidates.map((candidate) => candidate.policy.version)).toEqual(['learned-1', 'learned-2']);
      expect(improver.lastError).toBeUndefined();
    } finally {
      await improver.close();
      disposeWeights(rssm.weights);
    }
  });

  it('saves every candidate and carries on from the newest in the next session', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'reins-improver-'));
    const options = {
      embeddingSize: 6,
      limits: [0.5, 1.5] as const,
      updateEverySecs: 3600,
      stepsPerUpdate: 4,
      learner: { hidden: 8, layers: 1, minTicksToFit: 20 },
      checkpoints: { folder, encoderVersion: 'enc-1' },
    };
    const probe = {
      embedding: { values: Float32Array.of(0.3, -0.2, 0.1, 0.5, -0.4, 0.2), mask: { camera: true, lidar: true, proprio: true } },
      frame: { timeMs: 0, missing: [] },
    } as never;
    try {
      const first = new OnlineImprover(options);
      const offered: PolicyCandidate[] = [];
      first.onCandidate((candidate) => offered.push(candidate));
      expect(await first.restore()).toEqual({ restored: undefined, refused: [] });
      for (let step = 0; step < 40; step++) first.observe(tick(step, 'operator'));
      await first.update();
      await first.close();
      expect(offered.map((candidate) => candidate.policy.version)).toEqual(['learned-1']);
      expect(first.lastError).toBeUndefined();

      const second = new OnlineImprover(options);
      const restored: PolicyCandidate[] = [];
      second.onCandidate((candidate) => restored.push(candidate));
      try {
        expect(await second.restore()).toEqual({ restored: 'learned-1', refused: [] });
        expect(restored[0]!.policy.act(probe)).toEqual(offered[0]!.policy.act(probe));
        expect(restored[0]!.trainedOn.operatorTicks).toBe(40);
        // It trains on from there, and the numbering carries on.
        for (let step = 0; step < 5; step++) second.observe(tick(100 + step, 'operator'));
        await second.update();
        expect(second.lastError).toBeUndefined();
        expect(restored.map((candidate) => candidate.policy.version)).toEqual(['learned-1', 'learned-2']);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('says so when a version cannot be saved, and still offers it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'reins-improver-'));
    const blocked = join(folder, 'a-file');
    writeFileSync(blocked, 'in the way');
    const improver = new OnlineImprover({
      embeddingSize: 6,
      limits: [0.5, 1.5],
      updateEverySecs: 3600,
      stepsPerUpdate: 2,
      learner: { hidden: 8, layers: 1, minTicksToFit: 20 },
      checkpoints: { folder: blocked, encoderVersion: 'enc-1' },
    });
    const offered: PolicyCandidate[] = [];
    improver.onCandidate((candidate) => offered.push(candidate));
    try {
      for (let step = 0; step < 30; step++) improver.observe(tick(step, 'operator'));
      await improver.update();
      expect(offered).toHaveLength(1);
    } finally {
      await improver.close();
      rmSync(folder, { recursive: true, force: true });
    }
    expect(improver.problem()).toMatch(/policy learned-1 was not saved/);
  });

  it('retrains a fresh policy from what the memory holds, offers it as the next version, and trains on from it', async () => {
    const improver = new OnlineImprover({
      embeddingSize: 6,
      limits: [0.5, 1.5],
      updateEverySecs: 3600,
      stepsPerUpdate: 4,
      learner: { hidden: 16, layers: 1, minTicksToFit: 20, learningRate: 5e-3 },
    });
    const offered: PolicyCandidate[] = [];
    improver.onCandidate((candidate) => offered.push(candidate));
    // Earlier sessions' operator: turns left when the first feature is positive, right when it is negative.
    const count = 400;
    const teaching: MemoryTeaching = {
      ticks: {
        count,
        embeddingSize: 6,
        embeddings: new Float32Array(count * 6),
        actions: new Float32Array(count * 2),
        drivers: [],
        episodeIds: [],
        steps: new Int32Array(count),
      },
      signals: {
        interventions: [
          {
            id: 'i1',
            atStep: 50,
            episodeId: 'old-1',
            policySegment: { episodeId: 'old-1', startStep: 40, endStep: 49 },
            operatorSegment: { episodeId: 'old-1', startStep: 50, endStep: 60 },
          },
        ],
        preferences: [],
        ratings: [],
      },
      drivenTicksHeld: count,
    };
    for (let index = 0; index < count; index++) {
      const side = index % 2 === 0 ? 1 : -1;
      teaching.ticks.embeddings.set(
        Float32Array.from({ length: 6 }, (_, k) => (k === 0 ? side : Math.sin(index * (k + 1)))),
        index * 6,
      );
      teaching.ticks.actions.set([0.2, side * 1.2], index * 2);
      teaching.ticks.drivers.push(index < 40 || index >= 50 ? 'operator' : 'policy');
      teaching.ticks.episodeIds.push('old-1');
      teaching.ticks.steps[index] = index;
    }
    const probe = (first: number) =>
      ({
        embedding: { values: Float32Array.of(first, 0, 0, 0, 0, 0), mask: { camera: true, lidar: true, proprio: true } },
        frame: { timeMs: 0, missing: [] },
      }) as never;
    try {
      // No fast round starts while the retrain runs (one piece of training at a time).
      for (let step = 0; step < 30; step++) improver.observe(tick(step, 'operator'));
      const retrained = improver.retrainFromMemory(async () => teaching, 300);
      const fast = improver.update();
      expect(await retrained).toEqual({
        ok: true,
        version: 'learned-1',
        ticks: count,
        trainedOn: { interventions: 1, preferences: 0, ratings: 0, operatorTicks: 390, fromMemory: true },
      });
      await fast;
      expect(offered[0]!.policy.act(probe(1)).angularRadps).toBeGreaterThan(0.3);
      expect(offered[0]!.policy.act(probe(-1)).angularRadps).toBeLessThan(-0.3);
      // The fast path carries on from the retrained weights, and the numbering goes on.
      improver.observe(tick(30, 'operator'));
      await improver.update();
      expect(offered.map((candidate) => candidate.policy.version)).toEqual(['learned-1', 'learned-2']);
      expect(offered[1]!.policy.act(probe(1)).angularRadps).toBeGreaterThan(0.3);
      expect(improver.lastError).toBeUndefined();

      // A memory with nothing to learn from, or from other encoders, gives no version and says why.
      const none = {
        ...teaching,
        ticks: {
          ...teaching.ticks,
          count: 0,
          embeddings: new Float32Array(0),
          actions: new Float32Array(0),
          drivers: [],
          episodeIds: [],
          steps: new Int32Array(0),
        },
      };
      expect(await improver.retrainFromMemory(async () => none, 10)).toEqual({
        ok: false,
        reason: 'the memory holds no driven ticks of these encoders yet',
        ticks: 0,
      });
      const wide = { ...teaching, ticks: { ...teaching.ticks, count: 1, embeddingSize: 8, embeddings: new Float32Array(8) } };
      expect(await improver.retrainFromMemory(async () => wide, 10)).toMatchObject({
        ok: false,
        reason: "the memory's embeddings have 8 values, the encoders 6",
      });
      const few = {
        ...teaching,
        ticks: {
          ...teaching.ticks,
          count: 5,
          embeddings: new Float32Array(30),
          actions: new Float32Array(10),
          drivers: Array(5).fill('operator'),
          episodeIds: Array(5).fill('old-2'),
          steps: Int32Array.of(0, 1, 2, 3, 4),
        },
      };
      expect(await improver.retrainFromMemory(async () => few, 10)).toEqual({ ok: false, reason: 'there are too few driven ticks', ticks: 5 });
      await expect(improver.retrainFromMemory(async () => teaching, 0)).rejects.toThrow(/whole number/);
      expect(offered).toHaveLength(2);
    } finally {
      await improver.close();
    }
  });

  it('abandons a retrain in progress when it closes, rather than waiting for it', async () => {
    const improver = new OnlineImprover({ embeddingSize: 6, limits: [0.5, 1.5], updateEverySecs: 3600, learner: { hidden: 16, layers: 1, minTicksToFit: 20 } });
    await improver.backend();
    const count = 200;
    const teaching: MemoryTeaching = {
      ticks: {
        count,
        embeddingSize: 6,
        embeddings: Float32Array.from({ length: count * 6 }, (_, i) => Math.sin(i)),
        actions: new Float32Array(count * 2).fill(0.1),
        drivers: Array(count).fill('operator'),
        episodeIds: Array(count).fill('old-1'),
        steps: Int32Array.from({ length: count }, (_, i) => i),
      },
      signals: { interventions: [], preferences: [], ratings: [] },
      drivenTicksHeld: count,
    };
    let readStarted!: () => void;
    const reading = new Promise<void>((resolve) => (readStarted = resolve));
    // Far more steps than a test could wait for: close() must not wait for them.
    const retrain = improver.retrainFromMemory(async () => (readStarted(), teaching), 10_000_000);
    await reading;
    // Past the read: the retrain has been posted to the worker (every pending continuation has run).
    await new Promise(setImmediate);
    await improver.close();
    expect(await retrain).toEqual({ ok: false, reason: 'the learner has closed', ticks: count });
    expect(improver.lastError).toBeUndefined();
  });
});
