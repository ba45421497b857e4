// The learner's training loop, as the worker runs it: set up (backend, memory, newest checkpoint),
// then train step by step while the replay ratio allows, and otherwise sleep until a message
// (new ticks, resume, stop) changes that. Messages are handled between steps; every outcome goes back
// through `post`, so the loop knows nothing of threads.
import { Memory } from '../../memory/memory.ts';
import { Rssm } from '../rssm.ts';
import { namedWeights, parameterCount } from '../rssmWeights.ts';
import type { TrainedWorldModel } from '../worldModelCheckpoint.ts';
import { worldModelConfig, type WorldModelConfig } from '../worldModelConfig.ts';
import { WorldModelTrainer } from '../worldModelTrainer.ts';
import { worldModelVersion } from './checkpointDirectory.ts';
import { loadLearnerBackend } from './learnerBackend.ts';
import { restoreNewestCheckpoint, saveCheckpoint, type SavedCheckpoint } from './learnerCheckpoints.ts';
import type { FromLearner, LearnerOptions, LearnerWaiting, ToLearner } from './learnerProtocol.ts';
import { LossAverage } from './lossAverage.ts';
import { MessageWake } from './messageWake.ts';
import { ReplayBudget } from './replayBudget.ts';
import { ReplayFeed } from './replayFeed.ts';

export type PostToMain = (message: FromLearner, transfer?: ArrayBuffer[]) => void;

/** Failed steps in a row after which the loop waits for the next message instead of retrying. */
const MAX_CONSECUTIVE_FAILURES = 2;
/** Smoothing of the step time behind steps/s (about the last ten steps). */
const STEP_TIME_SMOOTHING = 0.1;

interface Session {
  options: LearnerOptions;
  config: WorldModelConfig;
  memory: Memory;
  feed: ReplayFeed;
  model: TrainedWorldModel;
  /** The newest checkpoint written or restored: the next one's parent. */
  lastCheckpoint: { version: string; step: number } | undefined;
}

export class LearnerLoop {
  private budget: ReplayBudget | undefined;
  private running: Promise<void> | undefined;
  private paused = false;
  private stopping = false;
  private consecutiveFailures = 0;
  private smoothedStepMs: number | undefined;
  private readonly losses = new LossAverage();
  private readonly wake = new MessageWake();

  private session: Session | undefined;
  /** `sync` requests waiting for training to hold. */
  private syncs: number[] = [];

  constructor(private readonly post: PostToMain) {}

  handle(message: ToLearner): void {
    switch (message.type) {
      case 'start':
        if (this.running !== undefined) return this.post({ type: 'error', message: 'learner: already started; a second start is ignored', fatal: false });
        this.budget = new ReplayBudget(message.options.replayRatio, message.options.batchSize * message.options.sequenceLength);
        this.running = this.run(message.options).catch((error: unknown) =>
          this.post({ type: 'error', message: `learner stopped: ${describe(error)}`, fatal: true }),
        );
        return;
      case 'ticksWritten':
        this.budget?.receive(message.count);
        this.session?.feed.noteTicksWritten(message.count);
        this.consecutiveFailures = 0;
        return this.wake.notify();
      case 'sync':
        // Answered where training next holds (at once if it holds now): every step due by now is taken by then.
        this.syncs.push(message.id);
        return this.wake.notify();
      case 'pause':
        this.paused = true;
        // Woken so that it says at once that it is paused, even while it was waiting for ticks.
        return this.wake.notify();
      case 'resume':
        this.paused = false;
        this.consecutiveFailures = 0;
        return this.wake.notify();
      case 'stop':
        this.stopping = true;
        if (this.running === undefined) this.post({ type: 'stopped', step: 0 });
        return this.wake.notify();
    }
  }

  private async run(options: LearnerOptions): Promise<void> {
    const config = worldModelConfig(options.preset, { ...options.configOverrides, embeddingSize: options.tickSpace.embeddingSize });
    const backend = await loadLearnerBackend(options.backendPreference);
    // The control loop's process runs memory maintenance; a second compactor here would race it.
    const memory = await Memory.open({ uri: options.memoryUri, maintenance: { periodMs: 0 } });
    let stopped: FromLearner;
    try {
      const feed = await ReplayFeed.open(memory, options.tickSpace, {
        sequenceLength: options.sequenceLength,
        refreshTicks: options.replayIndexRefreshTicks,
        seed: options.seed,
      });
      const { restored, refused } = await restoreNewestCheckpoint(
        options.checkpointDir,
        { config, encoderVersion: options.tickSpace.encoderVersion },
        options.seed,
      );
      const model = restored?.model ?? freshModel(config, options.seed);
      const session: Session = { options, config, memory, feed, model, lastCheckpoint: restored?.from };
      this.session = session;
      this.post({
        type: 'ready',
        backend: backend.backend,
        backendsTried: backend.tried,
        openblasThreads: backend.openblasThreads,
        openblasCore: backend.openblasCore,
        parameterCount: parameterCount(model.rssm.weights),
        resumedFrom: restored?.from,
        checkpointsRefused: refused,
        ticksAvailable: await feed.tickCount(),
      });
      // The control loop gets the restored weights at once, not a publish interval later.
      if (restored !== undefined) this.publishWeights(session);
      await this.train(session);
      stopped = { type: 'stopped', step: model.trainer.steps, checkpoint: await this.saveIfTrained(session) };
      model.trainer.dispose();
    } finally {
      await memory.close();
    }
    // Last, so the main thread may terminate the worker the moment it reads this.
    this.post(stopped);
  }

  private async train(session: Session): Promise<void> {
    while (!this.stopping) {
      if (!this.paused && this.consecutiveFailures < MAX_CONSECUTIVE_FAILURES && session.feed.needsRefresh()) {
        await this.refreshFeed(session);
        // Ticks may have been noted while the index was read: look again before deciding to wait.
        continue;
      }
      // From here to `wake.next()` nothing awaits, so no message can slip in between the check and the wait.
      const hold = this.holdReason(session);
      if (hold !== undefined) {
        for (const id of this.syncs.splice(0)) this.post({ type: 'caughtUp', id, step: session.model.trainer.steps });
        this.post({ type: 'waiting', reason: hold, step: session.model.trainer.steps });
        await this.wake.next();
        continue;
      }
      await this.step(session);
      // Let queued messages (stop, pause, new ticks) in between steps.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private holdReason(session: Session): LearnerWaiting['reason'] | undefined {
    if (this.paused) return 'paused';
    if (this.consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) return 'after-errors';
    if (session.feed.sequenceCount === 0) return 'not-enough-ticks';
    if (!this.budget!.allowsStep()) return 'replay-ratio';
    return undefined;
  }

  private async refreshFeed(session: Session): Promise<void> {
    try {
      await session.feed.refresh();
    } catch (error) {
      this.consecutiveFailures++;
      this.post({ type: 'error', message: `learner: could not read the replay index: ${describe(error)}`, fatal: false });
    }
  }

  private async step(session: Session): Promise<void> {
    const { options, config, model } = session;
    const startedMs = performance.now();
    let figures;
    try {
      const batch = await session.feed.batch(options.batchSize, config);
      // A fresh model takes the embedding's statistics from its first replay, once; they then travel with its weights.
      if (!model.rssm.embeddingNormFitted()) model.rssm.fitEmbeddingNorm(batch.embeddings, batch.batch * batch.length);
      figures = model.trainer.step(batch);
    } catch (error) {
      this.consecutiveFailures++;
      session.feed.markStale();
      this.post({ type: 'error', message: `learner: training step ${model.trainer.steps + 1} failed: ${describe(error)}`, fatal: false });
      return;
    }
    this.consecutiveFailures = 0;
    this.budget!.recordStep();
    this.losses.add(figures);
    const stepMs = performance.now() - startedMs;
    this.smoothedStepMs = this.smoothedStepMs === undefined ? stepMs : this.smoothedStepMs + STEP_TIME_SMOOTHING * (stepMs - this.smoothedStepMs);
    const { gradNorm, ...losses } = figures;
    const step = model.trainer.steps;
    this.post({ type: 'trained', step, losses, gradNorm, stepMs, stepsPerSec: 1000 / this.smoothedStepMs, replayRatio: this.budget!.achievedRatio() });
    if (step % options.weightPublishIntervalSteps === 0) this.publishWeights(session);
    if (step % options.checkpointIntervalSteps === 0) await this.saveIfTrained(session);
  }

  private publishWeights(session: Session): void {
    // Copies: dataSync hands back the backend's own storage, which a transfer would take from it.
    const weights = namedWeights(session.model.rssm.weights).map(([name, variable]) => ({
      name,
      shape: [...variable.shape],
      values: (variable.dataSync() as Float32Array).slice(),
    }));
    const step = session.model.trainer.steps;
    this.post(
      { type: 'weights', version: worldModelVersion(session.options.tickSpace.encoderVersion, step), step, weights },
      weights.map((weight) => weight.values.buffer as ArrayBuffer),
    );
  }

  /** Saves unless nothing was trained since the last checkpoint; a failure is reported, not thrown. */
  private async saveIfTrained(session: Session): Promise<SavedCheckpoint | undefined> {
    const { options, model } = session;
    const step = model.trainer.steps;
    if (step === 0 || step === session.lastCheckpoint?.step) return undefined;
    try {
      const saved = await saveCheckpoint(model, session.memory.records, {
        dir: options.checkpointDir,
        encoderVersion: options.tickSpace.encoderVersion,
        keep: options.keepCheckpoints,
        parentVersion: session.lastCheckpoint?.version,
        scores: { ...this.losses.takeMeans(), trainSteps: step },
      });
      session.lastCheckpoint = saved;
      this.post({ type: 'checkpointSaved', ...saved });
      return saved;
    } catch (error) {
      this.post({ type: 'error', message: `learner: checkpoint at step ${step} not saved: ${describe(error)}`, fatal: false });
      return undefined;
    }
  }
}

function freshModel(config: WorldModelConfig, seed: number): TrainedWorldModel {
  const rssm = new Rssm(config, seed);
  return { rssm, trainer: new WorldModelTrainer(rssm) };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
