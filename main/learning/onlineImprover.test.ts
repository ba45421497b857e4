// The live learner: it keeps operator and policy ticks (never idle or e-stopped ones, never a tick
// with a non-finite embedding), runs a round in its worker thread when there is something new, and
// hands over a numbered candidate that says what it learned from; the reward ensemble answers here.
import * as tf from '@tensorflow/tfjs-core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('saves every candidate and carries on from the newest in the next session', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'reins-improver-'));
    const options = { embeddingSize: 6, limits: [0.5, 1.5] as const, updateEverySecs: 3600, stepsPerUpdate: 4, learner: { hidden: 8, layers: 1, minTicksToFit: 20 }, checkpoints: { folder, encoderVersion: 'enc-1' } };
    const probe = { embedding: { values: Float32Array.of(0.3, -0.2, 0.1, 0.5, -0.4, 0.2), mask: { camera: true, lidar: true, proprio: true } }, frame: { timeMs: 0, missing: [] } } as never;
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
    const improver = new OnlineImprover({ embeddingSize: 6, limits: [0.5, 1.5], updateEverySecs: 3600, stepsPerUpdate: 2, learner: { hidden: 8, layers: 1, minTicksToFit: 20 }, checkpoints: { folder: blocked, encoderVersion: 'enc-1' } });
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
});
