// The live learner behind the learning session (DESIGN §3's fast path): it keeps the recent ticks,
// and every few seconds, when there is something new to learn from (operator ticks, feedback), runs
// a round of training — the reward ensemble and the actor — in slices of a gradient step or two,
// yielding to the event loop between slices so that operator input and ticks go first. Each round
// ends in a numbered candidate policy. The slow path (retraining from the whole memory) is not here.
import { NO_FEEDBACK, type FeedbackSignals, type Segment } from './feedbackTypes.ts';
import { PolicyLearner, type PolicyLearnerOptions } from './policyLearner.ts';
import type { LearningTick, PolicyCandidate, PolicyImprover } from './policyImprover.ts';
import { TickBuffer } from './tickBuffer.ts';

export interface OnlineImproverOptions {
  embeddingSize: number;
  /** [max forward m/s, max turn rad/s]: what the actor's ±1 means (the safety filter's limits). */
  limits: readonly [number, number];
  /** How often a round may start when there is something new. */
  updateEverySecs: number;
  stepsPerUpdate: number;
  /** Gradient steps per slice between yields to the event loop. */
  stepsPerSlice: number;
  /** Ticks kept for learning (the newest). */
  capacityTicks: number;
  /** Version names are `${prefix}${n}`. */
  versionPrefix: string;
  learner: Partial<PolicyLearnerOptions>;
}

export const DEFAULT_ONLINE_IMPROVER_OPTIONS: Omit<OnlineImproverOptions, 'embeddingSize' | 'limits'> = Object.freeze({
  updateEverySecs: 5,
  stepsPerUpdate: 30,
  stepsPerSlice: 1,
  capacityTicks: 18_000,
  versionPrefix: 'learned-',
  learner: {},
});

export class OnlineImprover implements PolicyImprover {
  readonly options: OnlineImproverOptions;
  private readonly buffer: TickBuffer;
  private readonly learner: PolicyLearner;
  private readonly listeners = new Set<(candidate: PolicyCandidate) => void>();
  private signals: FeedbackSignals = NO_FEEDBACK;
  private somethingNew = false;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private versions = 0;
  private closed = false;
  /** The last round's failure, if it failed; the next round tries again. */
  lastError: string | undefined;

  constructor(options: Pick<OnlineImproverOptions, 'embeddingSize' | 'limits'> & Partial<OnlineImproverOptions>) {
    this.options = { ...DEFAULT_ONLINE_IMPROVER_OPTIONS, ...options };
    if (!(this.options.updateEverySecs > 0)) throw new RangeError(`updateEverySecs must be > 0, got ${this.options.updateEverySecs}`);
    if (!(Number.isInteger(this.options.stepsPerUpdate) && this.options.stepsPerUpdate >= 1)) throw new RangeError(`stepsPerUpdate must be a whole number ≥ 1, got ${this.options.stepsPerUpdate}`);
    this.buffer = new TickBuffer(this.options.capacityTicks, this.options.embeddingSize);
    this.learner = new PolicyLearner(this.buffer, { ...this.options.learner, limits: this.options.limits });
    this.timer = setInterval(() => void this.update(), this.options.updateEverySecs * 1000);
    this.timer.unref();
  }

  observe(tick: LearningTick): void {
    if (this.closed || (tick.driver !== 'operator' && tick.driver !== 'policy')) return;
    if (tick.embedding.length !== this.options.embeddingSize || !tick.embedding.every(Number.isFinite)) return;
    this.buffer.add({ episodeId: tick.episodeId, step: tick.step, embedding: tick.embedding, action: tick.action, driver: tick.driver });
    if (tick.driver === 'operator') this.somethingNew = true;
  }

  disagreement(a: Segment, b: Segment): number | undefined {
    return this.learner.disagreement(a, b);
  }

  rewardEstimate(embedding: Float32Array): number | undefined {
    if (embedding.length !== this.options.embeddingSize || !embedding.every(Number.isFinite)) return undefined;
    const estimate = this.learner.rewardEstimates(embedding, 1)?.[0];
    return estimate !== undefined && Number.isFinite(estimate) ? estimate : undefined;
  }

  feedbackChanged(signals: FeedbackSignals): void {
    this.signals = signals;
    this.somethingNew = true;
  }

  onCandidate(listener: (candidate: PolicyCandidate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs a round now if there is something new and none is running; resolves when it has ended. */
  update(): Promise<void> {
    if (this.closed || this.running || !this.somethingNew) return this.running ?? Promise.resolve();
    this.somethingNew = false;
    this.running = this.round()
      .catch((error: unknown) => {
        this.lastError = (error as Error).message;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
    this.learner.dispose();
  }

  private async round(): Promise<void> {
    const signals = this.signals;
    const round = this.learner.begin(signals);
    if (round === undefined) {
      // Too few ticks to learn from yet: try again next time.
      this.somethingNew = true;
      return;
    }
    try {
      while (round.report.actorSteps < this.options.stepsPerUpdate && !this.closed) {
        const before = round.report.actorSteps;
        round.steps(Math.min(this.options.stepsPerSlice, this.options.stepsPerUpdate - round.report.actorSteps));
        if (round.report.actorSteps === before) break;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      round.end();
    }
    if (this.closed || round.report.actorSteps === 0) return;
    this.lastError = undefined;
    const policy = this.learner.candidate(`${this.options.versionPrefix}${++this.versions}`);
    const candidate: PolicyCandidate = {
      policy,
      trainedOn: { interventions: signals.interventions.length, preferences: signals.preferences.length, ratings: signals.ratings.length, operatorTicks: round.report.operatorTicks },
    };
    for (const listener of this.listeners) listener(candidate);
  }
}
