// The world-model learner as the main thread holds it: a worker thread that trains beside the control
// loop (DESIGN §2–3). The control loop tells it when memory received ticks and takes its newest
// weights between ticks; the UI reads `status()`. A crash of the worker becomes a failed status and a
// `problem` event, never an exception in the main process.
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import {
  describeInvalid,
  fromLearnerSchema,
  learnerOptionsSchema,
  type FromLearner,
  type LearnerCheckpointSaved,
  type LearnerOptionsInput,
  type LearnerReady,
  type LearnerStopped,
  type LearnerTrained,
  type LearnerWaiting,
  type LearnerWeights,
  type ToLearner,
} from './learnerProtocol.ts';

export type LearnerState = 'starting' | 'training' | 'waiting' | 'paused' | 'stopping' | 'stopped' | 'failed';

export interface LearnerStatus {
  state: LearnerState;
  /** Why training is held, while `state` is 'waiting' or 'paused'. */
  waitingFor: LearnerWaiting['reason'] | undefined;
  /** Backend, parameter count and what was resumed or refused; undefined until the worker is ready. */
  ready: LearnerReady | undefined;
  /** The newest step's figures. */
  lastTrained: LearnerTrained | undefined;
  /** The newest weights the worker published (taken or not). */
  weightsVersion: string | undefined;
  lastCheckpoint: Omit<LearnerCheckpointSaved, 'type'> | undefined;
  lastError: string | undefined;
  errorCount: number;
}

export interface LearnerEvents {
  ready: [LearnerReady];
  trained: [LearnerTrained];
  waiting: [LearnerWaiting];
  weights: [LearnerWeights];
  checkpointSaved: [LearnerCheckpointSaved];
  /** A message for the operator: the worker reported an error, or the worker itself failed. */
  problem: [string];
}

/** Registers tsx in the worker before it loads the TypeScript body (see the bootstrap's comment). */
const WORKER_BOOTSTRAP = new URL('./learnerWorkerBootstrap.mjs', import.meta.url);

export class Learner extends EventEmitter<LearnerEvents> {
  private readonly current: LearnerStatus = {
    state: 'starting',
    waitingFor: undefined,
    ready: undefined,
    lastTrained: undefined,
    weightsVersion: undefined,
    lastCheckpoint: undefined,
    lastError: undefined,
    errorCount: 0,
  };
  private untaken: LearnerWeights | undefined;
  private ended = false;
  private stopping: Promise<LearnerStopped | undefined> | undefined;
  private syncCount = 0;
  private readonly syncWaiters = new Map<number, () => void>();
  private readonly readySettled: Promise<LearnerReady | undefined>;
  private settleReady: (ready: LearnerReady | undefined) => void = () => undefined;
  private settleStopped: (stopped: LearnerStopped | undefined) => void = () => undefined;
  private readonly stoppedSettled: Promise<LearnerStopped | undefined>;

  private constructor(private readonly worker: Worker) {
    super();
    this.readySettled = new Promise((resolve) => (this.settleReady = resolve));
    this.stoppedSettled = new Promise((resolve) => (this.settleStopped = resolve));
    worker.on('message', (raw: unknown) => this.receive(raw));
    worker.on('messageerror', (error) => this.report(`learner: a message from the worker could not be read: ${error.message}`));
    worker.on('error', (error) => this.fail(`learner worker crashed: ${error.message}`));
    worker.on('exit', (code) => {
      if (!this.ended && this.current.state !== 'stopping') this.fail(`learner worker exited unexpectedly (code ${code})`);
      this.end(undefined);
    });
  }

  /** Spawns the worker and starts it; throws a RangeError at once when the options are invalid. */
  static start(options: LearnerOptionsInput): Learner {
    const parsed = learnerOptionsSchema.safeParse(options);
    if (!parsed.success) throw new RangeError(describeInvalid('learner options are invalid', parsed.error));
    const learner = new Learner(new Worker(WORKER_BOOTSTRAP));
    learner.send({ type: 'start', options: parsed.data });
    return learner;
  }

  status(): LearnerStatus {
    return { ...this.current };
  }

  /** The worker's `ready` report; rejects when the worker failed before it was ready. */
  async ready(): Promise<LearnerReady> {
    const ready = await this.readySettled;
    if (ready === undefined) throw new Error(this.current.lastError ?? 'learner stopped before it was ready');
    return ready;
  }

  /** The newest weights not yet taken, for the control loop to load between ticks; older ones are skipped. */
  takeWeights(): LearnerWeights | undefined {
    const weights = this.untaken;
    this.untaken = undefined;
    return weights;
  }

  /** Memory's writer flushed `count` new ticks of the learner's tick space. */
  noteTicksWritten(count: number): void {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`ticks written must be a whole number ≥ 0, got ${count}`);
    if (count > 0) this.send({ type: 'ticksWritten', count });
  }

  pause(): void {
    this.send({ type: 'pause' });
  }

  /**
   * Resolves once the learner has taken every step its replay budget allows for the ticks noted so far
   * (or has stopped or failed): a lockstep core awaits it before simulated time moves on.
   */
  caughtUp(): Promise<void> {
    if (this.ended || this.stopping !== undefined) return Promise.resolve();
    const id = ++this.syncCount;
    const caught = new Promise<void>((resolve) => this.syncWaiters.set(id, resolve));
    this.send({ type: 'sync', id });
    return caught;
  }

  resume(): void {
    this.send({ type: 'resume' });
  }

  /** Waits for the final checkpoint, then ends the worker; undefined when the worker had already failed. */
  stop(): Promise<LearnerStopped | undefined> {
    this.stopping ??= (async () => {
      if (!this.ended) {
        this.current.state = 'stopping';
        this.worker.postMessage({ type: 'stop' } satisfies ToLearner);
      }
      const stopped = await this.stoppedSettled;
      await this.worker.terminate();
      if (this.current.state !== 'failed') this.current.state = 'stopped';
      return stopped;
    })();
    return this.stopping;
  }

  private send(message: ToLearner): void {
    if (!this.ended && this.stopping === undefined) this.worker.postMessage(message);
  }

  private receive(raw: unknown): void {
    const parsed = fromLearnerSchema.safeParse(raw);
    if (!parsed.success) return this.report(describeInvalid('learner: a message from the worker is invalid', parsed.error));
    const message: FromLearner = parsed.data;
    const status = this.current;
    const running = status.state !== 'stopping';
    switch (message.type) {
      case 'ready':
        status.ready = message;
        this.settleReady(message);
        return void this.emit('ready', message);
      case 'trained':
        status.lastTrained = message;
        if (running) Object.assign(status, { state: 'training', waitingFor: undefined });
        return void this.emit('trained', message);
      case 'caughtUp':
        this.syncWaiters.get(message.id)?.();
        this.syncWaiters.delete(message.id);
        return;
      case 'waiting':
        if (running) Object.assign(status, { state: message.reason === 'paused' ? 'paused' : 'waiting', waitingFor: message.reason });
        return void this.emit('waiting', message);
      case 'weights':
        status.weightsVersion = message.version;
        this.untaken = message;
        return void this.emit('weights', message);
      case 'checkpointSaved':
        status.lastCheckpoint = { version: message.version, path: message.path, step: message.step };
        return void this.emit('checkpointSaved', message);
      case 'error':
        return message.fatal ? this.fail(message.message) : this.report(message.message);
      case 'stopped':
        return this.end(message);
    }
  }

  private report(message: string): void {
    this.current.lastError = message;
    this.current.errorCount++;
    this.emit('problem', message);
  }

  private fail(message: string): void {
    if (this.current.state === 'failed') return;
    this.report(message);
    this.current.state = 'failed';
    this.end(undefined);
    // A failed worker may still hold memory and threads; nothing it says now is trusted.
    void this.worker.terminate();
  }

  private end(stopped: LearnerStopped | undefined): void {
    this.ended = true;
    for (const resolve of this.syncWaiters.values()) resolve();
    this.syncWaiters.clear();
    this.settleReady(undefined);
    this.settleStopped(stopped);
  }
}
