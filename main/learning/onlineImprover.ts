// The live learner behind the learning session (DESIGN §3's fast path). Training runs in a worker
// thread: ticks go over in batches, and every few seconds, when there is something new to learn from
// (operator ticks, feedback), a round trains the reward ensemble and the actor there and comes back as
// a numbered candidate. This thread keeps only what answers at once: the recent ticks and a frozen
// copy of the reward ensemble, for the question picker's disagreement and memory's reward estimate.
// The slow path (retrainFromMemory) trains a fresh learner there on what the memory holds, and the fast
// path carries on from its weights; SlowPath decides when.
import { Worker } from 'node:worker_threads';
import { wallSchedule, type Schedule } from '../core/runtime/schedule.ts';
import * as tf from '@tensorflow/tfjs-core';
import { NO_FEEDBACK, type FeedbackSignals, type Segment } from './feedbackTypes.ts';
import { standardise, type FeatureNorm } from '../core/util/featureNorm.ts';
import { LearnedPolicy } from './learnedPolicy.ts';
import { ACTION_SIZE } from './actor.ts';
import { criticValueOfRow, DEFAULT_CRITIC_OPTIONS } from './criticEnsemble.ts';
import { checkMlpWeights, type MlpShape } from './networks.ts';
import type { DriveCommand } from '../core/messages.ts';
import type { MemoryTeaching } from './memoryTeaching.ts';
import { newestPolicyCheckpoint, writePolicyCheckpoint } from './policyCheckpoints.ts';
import { DEFAULT_POLICY_LEARNER_OPTIONS, type PolicyLearnerOptions } from './policyLearner.ts';
import type { LearningTick, PolicyCandidate, PolicyImprover, RetrainOutcome } from './policyImprover.ts';
import type { FromPolicyWorker, RoundCandidate, ToPolicyWorker } from './policyWorkerProtocol.ts';
import { RewardEnsemble } from './rewardEnsemble.ts';
import { TickBuffer, type BufferedTick } from './tickBuffer.ts';
import type { NamedArray } from '../worldmodel/checkpointFile.ts';
import type { WorldModelConfig } from '../worldmodel/worldModelConfig.ts';

const WORKER_BOOTSTRAP = new URL('./policyWorkerBootstrap.mjs', import.meta.url);
/** Ticks are sent to the worker in batches of this many (and before every round). */
const TICK_BATCH = 50;

export interface OnlineImproverOptions {
  embeddingSize: number;
  /** [max forward m/s, max turn rad/s]: what the actor's ±1 means (the safety filter's limits). */
  limits: readonly [number, number];
  /** How often a round may start when there is something new. */
  updateEverySecs: number;
  stepsPerUpdate: number;
  /** Ticks kept for learning (the newest). */
  capacityTicks: number;
  /** Version names are `${prefix}${n}`. */
  versionPrefix: string;
  learner: Partial<PolicyLearnerOptions>;
  /** Where every candidate is saved, and restore() looks for the newest (same encoders only). */
  checkpoints?: { folder: string; encoderVersion: string };
  /** The clock its rounds run on: the loop's (simulated time in lockstep); the wall clock by default. */
  schedule?: Schedule;
  /**
   * When a round's candidate is offered: `when-ready` (a live core: the moment the worker has it), or
   * `at-next-round` (a lockstep core: the round trains while the loop goes on ticking, as it does live,
   * and its candidate is offered when the next round is due — the work due by then — so that when a
   * version starts to drive never depends on how fast the machine is).
   */
  candidates?: 'when-ready' | 'at-next-round';
}

export const DEFAULT_ONLINE_IMPROVER_OPTIONS: Omit<OnlineImproverOptions, 'embeddingSize' | 'limits'> = Object.freeze({
  updateEverySecs: 5,
  stepsPerUpdate: 30,
  capacityTicks: 18_000,
  versionPrefix: 'learned-',
  learner: {},
});

export class OnlineImprover implements PolicyImprover {
  readonly options: OnlineImproverOptions;
  private readonly buffer: TickBuffer;
  private readonly reward: RewardEnsemble;
  private norm: FeatureNorm | undefined;
  private readonly worker: Worker;
  private readonly ready: Promise<string>;
  private readonly listeners = new Set<(candidate: PolicyCandidate) => void>();
  private readonly pendingRounds = new Map<number, { resolve: (candidate: RoundCandidate | undefined) => void; reject: (error: Error) => void }>();
  private unsent: BufferedTick[] = [];
  private signals: FeedbackSignals = NO_FEEDBACK;
  private somethingNew = false;
  private running: Promise<void> | undefined;
  private readonly stopRounds: () => void;
  /** A finished round's candidate waiting for its moment (`at-next-round` only). */
  private held: { result: RoundCandidate; trainedOn: PolicyCandidate['trainedOn'] } | undefined;
  private rounds = 0;
  private versions = 0;
  private actorSteps = 0;
  private closed = false;
  /** Held by the core while its memory is near its budget: no round or retrain starts. */
  private paused = false;
  private saving: Promise<void> = Promise.resolve();
  /** Bumped whenever the frozen reward ensemble takes new weights. */
  private rewardVersion = 0;
  private taughtSpread: number | undefined;
  private lastScored: { embedding: Float32Array; rewardVersion: number; score: { mean: number; spread: number } | undefined } | undefined;
  /** The newest candidate's critics, frozen, for the value the cockpit shows (undefined while they are off). */
  private critics: { weights: Float32Array[][]; shape: MlpShape; actionRepeat: number } | undefined;
  private readonly criticInput: Float32Array | undefined;
  /** The last round's failure, if it failed; the next round tries again. */
  lastError: string | undefined;
  /** Why the last round gave no candidate, if it gave none. */
  lastReason: string | undefined;

  constructor(options: Pick<OnlineImproverOptions, 'embeddingSize' | 'limits'> & Partial<OnlineImproverOptions>) {
    this.options = { ...DEFAULT_ONLINE_IMPROVER_OPTIONS, ...options };
    if (!(this.options.updateEverySecs > 0)) throw new RangeError(`updateEverySecs must be > 0, got ${this.options.updateEverySecs}`);
    if (!(Number.isInteger(this.options.stepsPerUpdate) && this.options.stepsPerUpdate >= 1))
      throw new RangeError(`stepsPerUpdate must be a whole number ≥ 1, got ${this.options.stepsPerUpdate}`);
    this.buffer = new TickBuffer(this.options.capacityTicks, this.options.embeddingSize);
    const criticSettings = { ...DEFAULT_CRITIC_OPTIONS, ...this.options.learner.critic };
    if (criticSettings.critics > 0) this.criticInput = new Float32Array(this.options.embeddingSize + ACTION_SIZE * criticSettings.actionRepeat);
    const learner: Partial<PolicyLearnerOptions> = { ...this.options.learner, limits: this.options.limits };
    this.reward = new RewardEnsemble(this.options.embeddingSize, { seed: learner.seed ?? DEFAULT_POLICY_LEARNER_OPTIONS.seed, ...learner.reward });
    this.worker = new Worker(WORKER_BOOTSTRAP);
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (message: FromPolicyWorker) => {
        if (message.type === 'ready') resolve(message.backend);
        else this.onWorkerMessage(message);
      });
      this.worker.on('error', (error) => {
        this.lastError = `the policy learner's thread failed: ${error.message}`;
        reject(error);
        for (const pending of this.pendingRounds.values()) pending.reject(error);
        this.pendingRounds.clear();
      });
      // Stopped before it was ready (closed while starting): nothing waits for it forever.
      this.worker.on('exit', () => reject(new Error("the policy learner's thread has stopped")));
    });
    // A failed start is reported by the first round (lastError); nobody may be awaiting `ready` yet.
    this.ready.catch(() => undefined);
    this.post({ type: 'init', embeddingSize: this.options.embeddingSize, capacityTicks: this.options.capacityTicks, learner });
    const schedule = this.options.schedule ?? wallSchedule();
    this.stopRounds =
      this.options.candidates === 'at-next-round'
        ? schedule.every(this.options.updateEverySecs * 1000, () => this.nextRound())
        : schedule.every(this.options.updateEverySecs * 1000, () => this.update());
  }

  problem(): string | undefined {
    return this.lastError;
  }

  /** Actor steps of every round and retrain that gave a candidate so far. */
  stepsTaken(): number {
    return this.actorSteps;
  }

  /** The TF.js backend the worker trains on, once it has started. */
  backend(): Promise<string> {
    return this.ready;
  }

  observe(tick: LearningTick): void {
    if (this.closed || (tick.driver !== 'operator' && tick.driver !== 'policy')) return;
    if (tick.embedding.length !== this.options.embeddingSize || !tick.embedding.every(Number.isFinite)) return;
    const buffered: BufferedTick = {
      episodeId: tick.episodeId,
      step: tick.step,
      embedding: tick.embedding.slice(),
      action: { ...tick.action },
      driver: tick.driver,
    };
    this.buffer.add(buffered);
    this.unsent.push(buffered);
    if (this.unsent.length >= TICK_BATCH) this.flush();
    if (tick.driver === 'operator') this.somethingNew = true;
  }

  disagreement(a: Segment, b: Segment): number | undefined {
    if (this.norm === undefined) return undefined;
    const first = this.buffer.segmentSlots(a);
    const second = this.buffer.segmentSlots(b);
    if (first === undefined || second === undefined) return undefined;
    const features = tf.tensor2d(standardise(this.norm, this.buffer.gather([...first, ...second])), [first.length + second.length, this.options.embeddingSize]);
    try {
      const rows = [...first, ...second].map((_, row) => row);
      return this.reward.pairDisagreement(features, rows.slice(0, first.length), rows.slice(first.length));
    } finally {
      features.dispose();
    }
  }

  rewardEstimate(embedding: Float32Array): number | undefined {
    return this.rewardUncertainty(embedding)?.mean;
  }

  /**
   * The reward ensemble's mean and spread for a tick's embedding. Memory's row and the drift watch
   * both ask about the same tick: the last answer is kept, for the same values and the same weights.
   */
  rewardUncertainty(embedding: Float32Array): { mean: number; spread: number } | undefined {
    if (this.norm === undefined || !this.reward.trained) return undefined;
    const last = this.lastScored;
    if (last !== undefined && last.rewardVersion === this.rewardVersion && sameValues(last.embedding, embedding)) return last.score;
    if (embedding.length !== this.options.embeddingSize || !embedding.every(Number.isFinite)) return undefined;
    const features = tf.tensor2d(standardise(this.norm, embedding.slice()), [1, embedding.length]);
    let score: { mean: number; spread: number } | undefined;
    try {
      const { mean, spread } = this.reward.meanAndSpread(features);
      score = Number.isFinite(mean[0]) && Number.isFinite(spread[0]) ? { mean: mean[0]!, spread: spread[0]! } : undefined;
    } finally {
      features.dispose();
    }
    this.lastScored = { embedding: embedding.slice(), rewardVersion: this.rewardVersion, score };
    return score;
  }

  /**
   * Copies of what it learns from now — the held ticks, oldest first, and the feedback — with the frozen
   * reward ensemble's members (undefined before it has learned): for benches that measure the learner's
   * parts on a stream (`reins bench critic`).
   */
  heldTeaching(): { ticks: BufferedTick[]; signals: FeedbackSignals; reward: Float32Array[][] | undefined; rewardShape: { members: number; hidden: number } } {
    const ticks = this.buffer
      .slotsWhere(() => true)
      .map((slot) => ({
        episodeId: this.buffer.episodeIds[slot]!,
        step: this.buffer.steps[slot]!,
        embedding: this.buffer.embeddings.slice(slot * this.options.embeddingSize, (slot + 1) * this.options.embeddingSize),
        action: this.buffer.commandAt(slot),
        driver: this.buffer.drivers[slot]!,
      }));
    return {
      ticks,
      signals: structuredClone(this.signals),
      reward: this.reward.trained ? this.reward.memberWeights() : undefined,
      rewardShape: { members: this.reward.options.members, hidden: this.reward.options.hidden },
    };
  }

  criticEstimate(embedding: Float32Array, action: DriveCommand): { value: number; spread: number } | undefined {
    const critics = this.critics;
    const input = this.criticInput;
    if (critics === undefined || input === undefined || this.norm === undefined || embedding.length !== this.options.embeddingSize) return undefined;
    const features = standardise(this.norm, embedding.slice());
    const [maxForward, maxTurn] = this.options.limits;
    const { value, spread } = criticValueOfRow(
      critics.weights,
      critics.shape,
      critics.actionRepeat,
      features,
      [action.linearMps / maxForward, action.angularRadps / maxTurn],
      input,
    );
    return Number.isFinite(value) && Number.isFinite(spread) ? { value, spread } : undefined;
  }

  /** The ensemble's spread where the feedback taught it, as the last round measured it. */
  taughtRewardSpread(): number | undefined {
    return this.reward.trained ? this.taughtSpread : undefined;
  }

  /**
   * The world model's newest weights, for the learner's imagined rollouts (it copies them; nothing
   * here keeps them). Rollouts run only where the learner's options turn them on; otherwise nothing
   * is sent.
   */
  useWorldModel(config: WorldModelConfig, weights: readonly NamedArray[], version: string): void {
    if (this.closed || !((this.options.learner.imagination?.rollouts ?? 0) > 0)) return;
    this.post({ type: 'world-model', config, weights: [...weights], version });
  }

  drivingChanged(version: string): void {
    if (!this.closed) this.post({ type: 'driving', version });
  }

  feedbackChanged(signals: FeedbackSignals): void {
    this.signals = signals;
    this.somethingNew = true;
  }

  onCandidate(listener: (candidate: PolicyCandidate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * No round or retrain starts until `resume()` (the core's memory is near its budget). Ticks and
   * feedback are still kept, and a round already training ends as usual; what is new is learned after.
   */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  isPaused(): boolean {
    return this.paused;
  }

  /** Runs a round now if there is something new and none is running (nor paused); resolves when it has ended. */
  update(): Promise<void> {
    if (this.closed || this.paused || this.running || !this.somethingNew) return this.running ?? Promise.resolve();
    this.somethingNew = false;
    this.running = this.round()
      .catch((error: unknown) => {
        this.lastError = (error as Error).message;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * `at-next-round`'s scheduled work: the round in flight is due now, so it is waited for and its
   * candidate offered; then the next round starts (if there is something new) and is not waited for.
   */
  private async nextRound(): Promise<void> {
    await this.running;
    this.offerHeld();
    void this.update();
  }

  private offerHeld(): void {
    const held = this.held;
    this.held = undefined;
    if (held !== undefined && !this.closed) this.accept(held.result, held.trainedOn);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopRounds();
    // The training in flight is abandoned, not waited for (a retrain from memory takes a minute or
    // more): its result would be offered to nobody. Candidates already offered are still saved.
    await this.worker.terminate();
    for (const pending of this.pendingRounds.values()) pending.resolve(undefined);
    this.pendingRounds.clear();
    await this.running;
    await this.saving;
    this.reward.dispose();
  }

  private async round(): Promise<void> {
    await this.ready;
    this.flush();
    const signals = this.signals;
    const id = ++this.rounds;
    const result = await this.ask(id, { type: 'round', id, signals, steps: this.options.stepsPerUpdate, version: this.nextVersionName() });
    if (this.closed) return;
    if (result === undefined) {
      // Nothing learned this time (too few ticks): the next round tries again.
      this.somethingNew = true;
      return;
    }
    this.actorSteps += this.options.stepsPerUpdate;
    const trainedOn = {
      interventions: signals.interventions.length,
      preferences: signals.preferences.length,
      ratings: signals.ratings.length,
      operatorTicks: result.operatorTicks,
    };
    if (this.options.candidates === 'at-next-round') this.held = { result, trainedOn };
    else this.accept(result, trainedOn);
  }

  /**
   * The slow path: a fresh learner trained in the worker on what `read` finds in the memory (every
   * driven tick of these encoders up to a bound, and every standing correction), offered as the next
   * candidate; the fast path then carries on from its weights. No fast round runs meanwhile. The
   * teaching's arrays are moved to the worker (left empty here).
   */
  retrainFromMemory(read: () => Promise<MemoryTeaching>, steps: number): Promise<RetrainOutcome> {
    if (!(Number.isInteger(steps) && steps >= 1)) return Promise.reject(new RangeError(`retrain steps must be a whole number ≥ 1, got ${steps}`));
    const retrain = async (): Promise<RetrainOutcome> => {
      await this.ready;
      if (this.paused) return { ok: false, reason: 'learning is paused while the core’s memory is near its budget', ticks: 0 };
      const teaching = await read();
      const ticks = teaching.ticks.count;
      if (this.closed) return { ok: false, reason: 'the learner has closed', ticks };
      if (ticks === 0) return { ok: false, reason: 'the memory holds no driven ticks of these encoders yet', ticks };
      if (teaching.ticks.embeddingSize !== this.options.embeddingSize)
        return { ok: false, reason: `the memory's embeddings have ${teaching.ticks.embeddingSize} values, the encoders ${this.options.embeddingSize}`, ticks };
      const id = ++this.rounds;
      const { signals } = teaching;
      const transfer = [teaching.ticks.embeddings.buffer, teaching.ticks.actions.buffer, teaching.ticks.steps.buffer] as ArrayBuffer[];
      const result = await this.ask(id, { type: 'retrain', id, ticks: teaching.ticks, signals, steps, version: this.nextVersionName() }, transfer);
      if (this.closed) return { ok: false, reason: 'the learner has closed', ticks };
      if (result === undefined) return { ok: false, reason: this.lastReason ?? 'nothing learned', ticks };
      this.actorSteps += steps;
      const trainedOn = {
        interventions: signals.interventions.length,
        preferences: signals.preferences.length,
        ratings: signals.ratings.length,
        operatorTicks: result.operatorTicks,
        fromMemory: true,
      };
      this.accept(result, trainedOn);
      return { ok: true, version: result.snapshot.version, ticks, trainedOn };
    };
    // One piece of training at a time: a retrain waits for a fast round in flight, and holds the next.
    const run = (async () => {
      while (this.running) await this.running;
      // A fast round's candidate comes first: it was asked for before this retrain.
      this.offerHeld();
      if (this.closed) return { ok: false as const, reason: 'the learner has closed', ticks: 0 };
      const outcome = retrain();
      // A failed retrain is the caller's to report (SlowPath: the status and the log); the fast path goes on.
      this.running = outcome
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => (this.running = undefined));
      return outcome;
    })();
    return run;
  }

  private nextVersionName(): string {
    return `${this.options.versionPrefix}${this.versions + 1}`;
  }

  private ask(id: number, message: Extract<ToPolicyWorker, { type: 'round' | 'retrain' }>, transfer: ArrayBuffer[] = []): Promise<RoundCandidate | undefined> {
    const done = new Promise<RoundCandidate | undefined>((resolve, reject) => this.pendingRounds.set(id, { resolve, reject }));
    this.worker.postMessage(message, transfer);
    return done;
  }

  /** A round's or retrain's result becomes the next numbered candidate, saved and offered. */
  private accept(result: RoundCandidate, trainedOn: PolicyCandidate['trainedOn']): void {
    const policy = new LearnedPolicy(result.snapshot);
    this.versions++;
    this.norm = result.snapshot.norm;
    if (result.reward !== undefined) this.reward.load(result.reward);
    this.holdCritics(result.critics);
    this.rewardVersion++;
    this.taughtSpread = result.taughtRewardSpread;
    this.lastError = undefined;
    this.lastReason = undefined;
    const candidate: PolicyCandidate = {
      policy,
      trainedOn,
      ...(result.evaluation ? { evaluation: { verdict: result.evaluation.verdict, reason: result.evaluation.reason } } : {}),
    };
    this.save(result, candidate.trainedOn);
    for (const listener of this.listeners) listener(candidate);
  }

  private holdCritics(weights: Float32Array[][] | undefined): void {
    if (weights === undefined || this.criticInput === undefined) return;
    const settings = { ...DEFAULT_CRITIC_OPTIONS, ...this.options.learner.critic };
    const shape: MlpShape = { inputs: this.criticInput.length, hidden: settings.hidden, layers: settings.layers, outputs: 1 };
    try {
      for (const critic of weights) checkMlpWeights(shape, critic);
    } catch {
      // Critics that do not fit (or hold a value that is not finite) are not shown: the last good ones stay.
      return;
    }
    this.critics = { weights, shape, actionRepeat: settings.actionRepeat };
  }

  /**
   * Carries on from the newest saved version of an earlier session: the worker trains on from its
   * weights, and it is offered as a candidate (auto-promote decides whether it drives at once).
   * Returns its version, and the saved files that could not be used with the reason for each.
   */
  async restore(): Promise<{ restored: string | undefined; refused: string[] }> {
    const where = this.options.checkpoints;
    if (where === undefined || this.closed) return { restored: undefined, refused: [] };
    const { checkpoint, refused } = await newestPolicyCheckpoint(where.folder, {
      encoderVersion: where.encoderVersion,
      embeddingSize: this.options.embeddingSize,
    });
    if (checkpoint === undefined) return { restored: undefined, refused };
    await this.ready;
    const policy = new LearnedPolicy(checkpoint.snapshot);
    this.post({ type: 'restore', snapshot: checkpoint.snapshot, reward: checkpoint.reward, critics: checkpoint.critics });
    this.norm = checkpoint.snapshot.norm;
    if (checkpoint.reward !== undefined) this.reward.load(checkpoint.reward);
    this.holdCritics(checkpoint.critics);
    // Where the restored ensemble was taught is not known here: the next round measures it.
    this.rewardVersion++;
    this.taughtSpread = undefined;
    const numbered = new RegExp(`^${this.options.versionPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\d+)$`).exec(checkpoint.snapshot.version);
    if (numbered) this.versions = Math.max(this.versions, Number(numbered[1]));
    for (const listener of this.listeners) listener({ policy, trainedOn: checkpoint.trainedOn });
    return { restored: checkpoint.snapshot.version, refused };
  }

  /** Saves a candidate in the background, one at a time; a failure is reported, never thrown. */
  private save(result: RoundCandidate, trainedOn: PolicyCandidate['trainedOn']): void {
    const where = this.options.checkpoints;
    if (where === undefined) return;
    this.saving = this.saving
      .then(() =>
        writePolicyCheckpoint(where.folder, {
          snapshot: result.snapshot,
          reward: result.reward,
          critics: result.critics,
          encoderVersion: where.encoderVersion,
          createdAtMs: Date.now(),
          trainedOn,
        }),
      )
      .then(
        () => undefined,
        (error: unknown) => {
          this.lastError = `policy ${result.snapshot.version} was not saved: ${(error as Error).message}`;
        },
      );
  }

  private onWorkerMessage(message: FromPolicyWorker): void {
    if (message.type === 'round-done') {
      if (message.reason !== undefined) this.lastReason = message.reason;
      this.pendingRounds.get(message.id)?.resolve(message.candidate);
      this.pendingRounds.delete(message.id);
    } else if (message.type === 'failed') {
      this.lastError = message.message;
      if (message.id !== undefined) {
        this.pendingRounds.get(message.id)?.reject(new Error(message.message));
        this.pendingRounds.delete(message.id);
      }
    }
  }

  private flush(): void {
    if (this.unsent.length === 0 || this.closed) return;
    this.post({ type: 'ticks', ticks: this.unsent });
    this.unsent = [];
  }

  private post(message: ToPolicyWorker): void {
    this.worker.postMessage(message);
  }
}

function sameValues(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
