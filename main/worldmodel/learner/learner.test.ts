import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tickRow } from '../../../test/support/tickRows.ts';
import { WaitableLog } from '../../../test/support/waitableLog.ts';
import { Memory } from '../../memory/memory.ts';
import type { TickSpace } from '../../memory/tickSchema.ts';
import type { TickStore } from '../../memory/tickStore.ts';
import { worldModelConfig } from '../worldModelConfig.ts';
import { WorldModelFilter } from '../worldModelFilter.ts';
import { Learner } from './learner.ts';
import type { FromLearner, LearnerOptionsInput } from './learnerProtocol.ts';

const SPACE: TickSpace = { encoderVersion: 'enc-learn', embeddingSize: 8, distance: 'l2' };
const TINY = { deterministicSize: 16, stochasticGroups: 4, classes: 4, hiddenSize: 16, learningRate: 3e-3 };

/** A smooth, learnable episode: the embedding turns with the commanded rate. */
function ticks(from: number, count: number) {
  return Array.from({ length: count }, (_, i) => {
    const step = from + i;
    return tickRow({
      episodeId: 'ep-learn',
      step,
      timeMs: 1_700_000_000_000 + step * 100,
      embedding: Float32Array.from({ length: SPACE.embeddingSize }, (_, d) => Math.sin(step * 0.2 + d)),
      actionLinearMps: 0.2 * Math.cos(step * 0.05),
      actionAngularRadps: 0.5,
      encoderVersion: SPACE.encoderVersion,
    });
  });
}

type Logged = FromLearner | { type: 'problem'; message: string };

describe('Learner', () => {
  let folder: string;
  let memory: Memory;
  let store: TickStore;
  let written: number;
  const running: Learner[] = [];

  beforeAll(async () => {
    await tf.setBackend('cpu');
  });
  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'reins-learner-'));
    memory = await Memory.open({ uri: join(folder, 'memory'), maintenance: { periodMs: 0 } });
    store = await memory.ticks(SPACE);
    written = 0;
  });
  afterEach(async () => {
    for (const learner of running.splice(0)) await learner.stop();
    await memory.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** Appends the next `count` ticks of the episode, as the control loop's writer would. */
  async function writeTicks(count: number): Promise<void> {
    await store.write(ticks(written, count));
    written += count;
  }

  function start(options: Partial<LearnerOptionsInput> = {}) {
    const learner = Learner.start({
      memoryUri: join(folder, 'memory'),
      tickSpace: SPACE,
      preset: 'wm-xxs',
      configOverrides: TINY,
      replayRatio: 1,
      batchSize: 2,
      sequenceLength: 8,
      checkpointDir: join(folder, 'checkpoints'),
      checkpointIntervalSteps: 1000,
      weightPublishIntervalSteps: 1000,
      seed: 5,
      ...options,
    });
    running.push(learner);
    const log = new WaitableLog<Logged>('learner messages');
    for (const type of ['ready', 'trained', 'waiting', 'weights', 'checkpointSaved'] as const) learner.on(type, (message: FromLearner) => log.push(message));
    learner.on('problem', (message) => log.push({ type: 'problem', message }));
    const of = <T extends Logged['type']>(type: T) => log.items.filter((item): item is Extract<Logged, { type: T }> => item.type === type);
    const waitingAt = (reason: string, step: number) =>
      log.until(
        (items) => items.some((item) => item.type === 'waiting' && item.reason === reason && item.step === step),
        `waiting (${reason}) at step ${step}`,
        15_000,
      );
    return { learner, log, of, waitingAt };
  }

  it('trains on the ticks memory receives, with finite and falling losses, and its weights load into the filter', async () => {
    const { learner, of, waitingAt } = start({ replayRatio: 4, batchSize: 4, weightPublishIntervalSteps: 5 });
    const ready = await learner.ready();
    expect(ready).toMatchObject({ ticksAvailable: 0, checkpointsRefused: [], resumedFrom: undefined });
    expect(ready.parameterCount).toBeGreaterThan(0);
    await waitingAt('not-enough-ticks', 0);

    await writeTicks(200);
    learner.noteTicksWritten(200);
    // 4 replayed ticks per tick received, 4 × 8 ticks a step: 25 steps.
    await waitingAt('replay-ratio', 25);
    const losses = of('trained').map((trained) => trained.losses.total);
    expect(of('trained').map((trained) => trained.step)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(losses.every(Number.isFinite)).toBe(true);
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    expect(mean(losses.slice(-5))).toBeLessThan(mean(losses.slice(0, 5)));
    expect(of('trained').at(-1)).toMatchObject({ replayRatio: 4, stepsPerSec: expect.any(Number) });
    expect(learner.status()).toMatchObject({ state: 'waiting', waitingFor: 'replay-ratio', errorCount: 0 });

    expect(of('weights').map((weights) => weights.step)).toEqual([5, 10, 15, 20, 25]);
    const weights = learner.takeWeights()!;
    expect(weights.version).toBe('world-model-enc-learn-25');
    expect(learner.takeWeights()).toBeUndefined();
    const filter = new WorldModelFilter(worldModelConfig('wm-xxs', { ...TINY, embeddingSize: SPACE.embeddingSize }));
    filter.loadWeights(weights.weights, weights.version);
    expect(filter.version).toBe('world-model-enc-learn-25');
    expect(Number.isFinite(filter.step({ linearMps: 0.1, angularRadps: 0.5 }, ticks(0, 1)[0]!.embedding).surpriseNats)).toBe(true);
  });

  it('waits once the replay ratio is met, trains again when ticks are written, and holds while paused', async () => {
    await writeTicks(64);
    const { learner, log, of, waitingAt } = start();
    // Ticks already in memory can be replayed but owe no training.
    expect((await learner.ready()).ticksAvailable).toBe(64);
    await waitingAt('replay-ratio', 0);

    await writeTicks(32);
    learner.noteTicksWritten(32);
    await waitingAt('replay-ratio', 2);
    expect(of('trained')).toHaveLength(2);

    learner.pause();
    await waitingAt('paused', 2);
    expect(learner.status()).toMatchObject({ state: 'paused', waitingFor: 'paused' });
    await writeTicks(48);
    learner.noteTicksWritten(48);
    // Woken by the ticks, it looks, finds itself paused, and goes back to waiting without a step.
    await log.until((items) => items.filter((item) => item.type === 'waiting' && item.reason === 'paused').length === 2, 'a second paused wait');
    expect(of('trained')).toHaveLength(2);

    learner.resume();
    await waitingAt('replay-ratio', 5);
    expect(of('trained').map((trained) => trained.step)).toEqual([1, 2, 3, 4, 5]);
    expect(of('trained').at(-1)!.replayRatio).toBe(1);
  });

  it('saves a checkpoint on stop that a new learner resumes from', async () => {
    await writeTicks(16);
    const first = start();
    await first.waitingAt('replay-ratio', 0);
    await writeTicks(48);
    first.learner.noteTicksWritten(48);
    await first.waitingAt('replay-ratio', 3);
    const stopped = await first.learner.stop();
    expect(stopped).toMatchObject({ step: 3, checkpoint: { version: 'world-model-enc-learn-3', step: 3 } });
    expect(existsSync(stopped!.checkpoint!.path)).toBe(true);
    expect(first.learner.status().state).toBe('stopped');
    await memory.records.checkpoints.checkoutLatest();
    const [row] = await memory.records.listCheckpoints('world-model');
    expect(row).toMatchObject({ version: 'world-model-enc-learn-3', encoderVersion: SPACE.encoderVersion, weightsUri: stopped!.checkpoint!.path });
    expect(Number.isFinite(row!.scores.loss)).toBe(true);

    const second = start();
    expect(await second.learner.ready()).toMatchObject({ resumedFrom: { version: 'world-model-enc-learn-3', step: 3 }, checkpointsRefused: [] });
    // The restored weights go out at once, so the control loop need not wait for a publish interval.
    await second.log.until((items) => items.some((item) => item.type === 'weights' && item.step === 3), 'the restored weights');
    await writeTicks(16);
    second.learner.noteTicksWritten(16);
    await second.waitingAt('replay-ratio', 4);
    expect(second.of('trained').map((trained) => trained.step)).toEqual([4]);
  });

  it('refuses a corrupt checkpoint with the reason in ready, and trains fresh', async () => {
    mkdirSync(join(folder, 'checkpoints'));
    writeFileSync(join(folder, 'checkpoints', 'world-model-enc-learn-40.ckpt'), 'half a file');
    const { learner, of, waitingAt } = start();
    const ready = await learner.ready();
    expect(ready.resumedFrom).toBeUndefined();
    expect(ready.checkpointsRefused).toEqual([expect.stringMatching(/world-model-enc-learn-40\.ckpt is not a Reins world-model checkpoint/)]);
    await writeTicks(16);
    learner.noteTicksWritten(16);
    await waitingAt('replay-ratio', 1);
    expect(of('trained').map((trained) => trained.step)).toEqual([1]);
  });

  it('reports a worker that cannot start as failed, without harm to the main thread', async () => {
    const notAFolder = join(folder, 'a-file');
    writeFileSync(notAFolder, 'not a memory');
    const { learner, log } = start({ memoryUri: notAFolder });
    await expect(learner.ready()).rejects.toThrow(/learner stopped: /);
    await log.until((items) => items.some((item) => item.type === 'problem'), 'the problem');
    expect(learner.status()).toMatchObject({ state: 'failed', lastError: expect.stringMatching(/a-file/) });
    expect(await learner.stop()).toBeUndefined();
  });

  it('refuses invalid options before a worker is spawned', () => {
    expect(() => start({ batchSize: 0 })).toThrow(/learner options are invalid \(batchSize: /);
    expect(() => start({ configOverrides: { embeddingSize: 9 } })).toThrow(/embeddingSize must match tickSpace/);
  });
});
