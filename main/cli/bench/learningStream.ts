// One training stream of `reins bench learning` (issue 26): the core as `reins start` composes it, in
// lockstep on the simulated robot (session/lockstepCore.ts), with a scripted operator at the cockpit.
// The operator acts only through the cockpit's requests — heartbeat, autonomy, take over, drive, hand
// back, answer, rate, end the episode — as the UI sends them; it reads what the UI shows (the learning
// status, the command the robot is carrying out) and the world it stands in (the ground truth).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Request } from '../../core/contract.ts';
import type { DriveCommand } from '../../core/messages.ts';
import { episodeIdOf } from '../../core/tickReport.ts';
import { openLockstepCore, type LockstepCore } from '../../session/lockstepCore.ts';
import type { StartArgs } from '../../session/startArgs.ts';
import { createSimLink } from '../../sim/lockstepLink.ts';
import { createOperator, type SimOperator, type SimOperatorName } from '../../sim/operators/createOperator.ts';
import type { SegmentTruth } from '../../sim/operators/simOperator.ts';
import { deriveSeed } from '../../sim/random.ts';
import type { GroundTruth } from '../../sim/simRobot.ts';
import type { Arena } from '../../sim/arena.ts';
import type { SimTaskName } from '../../sim/tasks/taskNames.ts';
import type { PolicyLearnerOptions } from '../../session/learningParts.ts';

export type StreamMethod = 'reins' | 'bc';

export interface StreamSettings {
  method: StreamMethod;
  task: SimTaskName;
  operator: SimOperatorName;
  seed: number;
  /** The arenas this stream trains in, in turn. */
  trainingArenas: readonly number[];
  /** Episodes in one arena before the robot is carried to the next. */
  episodesPerArena: number;
  /** The operator drives alone (autonomy off) for this long at the start. */
  demoSimMinutes: number;
  /** `reins start`'s arguments for the stream's core (memory in the stream's temporary folder, no recording). */
  args: (folder: string) => StartArgs;
  log: Logger;
  /** The policy learner's settings beyond its defaults (Reins' streams; `bc` sets its method over them). */
  learner?: Partial<PolicyLearnerOptions>;
  /** Makes the operator for an arena; default: the named operator (tests script their own). */
  makeOperator?: (arena: Arena, seed: number) => SimOperator;
}

/** Simulated time 0 of every stream, on the epoch-ms clock: fixed so that two runs of a seed are the same run. */
export const STREAM_EPOCH_MS = Date.UTC(2026, 0, 1);
const STILL: DriveCommand = { linearMps: 0, angularRadps: 0 };
/**
 * How long after a question appears the operator's answer lands: it watches both clips (2 s each at the
 * picker's 20 ticks) and decides. The expert is quick; the realistic operator takes as long as the
 * clips plus a decision (several seconds for a forced choice between two short videos).
 */
const ANSWER_DELAY_SECS: Readonly<Record<SimOperatorName, number>> = Object.freeze({ expert: 0.2, realistic: 6 });
/** The UI reads the learning status (the open question) this often. */
const STATUS_EVERY_TICKS = 5;
/** Ground truth is kept this long for the questions' segments (the picker asks about the last minutes). */
const TRUTH_KEPT_TICKS = 12_000;

interface TickTruth {
  progress: number;
  collisions: number;
}

export interface StreamCounts {
  ticks: number;
  episodes: number;
  reachedGoal: number;
  collisions: number;
  questionsAsked: number;
  answersGiven: number;
  answersSkipped: number;
  ratingsGiven: number;
  takeoverRequests: number;
  refused: number;
  lastRefusal: string | undefined;
}

export class TrainingStream {
  readonly counts: StreamCounts = {
    ticks: 0,
    episodes: 0,
    reachedGoal: 0,
    collisions: 0,
    questionsAsked: 0,
    answersGiven: 0,
    answersSkipped: 0,
    ratingsGiven: 0,
    takeoverRequests: 0,
    refused: 0,
    lastRefusal: undefined,
  };
  wallMs = 0;
  private operator: SimOperator;
  /** Takeovers of the operators left behind in earlier arenas (each arena has an operator of its own). */
  private earlierTakeovers = { takeovers: 0, followedByCollision: 0 };
  /** Ground truth by tick, oldest first (a Map keeps insertion order): the oldest is dropped past the bound. */
  private readonly truths = new Map<string, TickTruth>();
  /** The task it trains on now (`switchTask` moves it on to another, as one session teaches several in turn). */
  private task: SimTaskName;
  private arenaIndex = 0;
  private episodeInArena = 0;
  private episodeSeedCount = 0;
  private autonomyOn = false;
  private holding = false;
  private pendingAnswer: { questionId: string; dueMs: number; left: SegmentKey; right: SegmentKey } | undefined;
  private seenQuestions = new Set<string>();
  private readonly periodMs: number;
  private collisionsAtStart: number;

  private constructor(
    readonly settings: StreamSettings,
    readonly lockstep: LockstepCore,
    private readonly folder: string,
  ) {
    this.task = settings.task;
    this.operator = this.operatorFor(lockstep.link.robot.arena, 0);
    this.periodMs = 1000 / lockstep.core.loop.rateHz;
    this.collisionsAtStart = lockstep.link.robot.groundTruth().collisionCount;
  }

  static async open(settings: StreamSettings): Promise<TrainingStream> {
    if (settings.trainingArenas.length === 0) throw new RangeError('a training stream needs at least one arena');
    const folder = await mkdtemp(join(tmpdir(), `reins-learning-${settings.method}-${settings.task}-`));
    try {
      const link = createSimLink({
        task: settings.task,
        arenaSeed: settings.trainingArenas[0]!,
        episodeSeed: deriveSeed('stream-episode', settings.seed, 0),
        autoReset: false,
        epochMs: STREAM_EPOCH_MS,
      });
      const lockstep = await openLockstepCore({
        args: settings.args(folder),
        link,
        dataFolder: join(folder, 'data'),
        log: settings.log,
        // `bc` differs from Reins in its training signal only: the same core, actor, steps and slow path.
        ...(settings.method === 'bc' ? { learner: { method: 'bc' as const } } : settings.learner ? { learner: settings.learner } : {}),
      });
      const stream = new TrainingStream(settings, lockstep, folder);
      stream.request({ type: 'heartbeat', sentAtMs: lockstep.now() });
      stream.request({ type: 'set-autonomy', enabled: false });
      // HG-DAgger asks nothing: the operator turns the questions off, as the cockpit lets anyone do.
      if (settings.method === 'bc') stream.request({ type: 'set-question-pace', everySecs: null });
      return stream;
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      throw error;
    }
  }

  get simSecs(): number {
    return (this.counts.ticks * this.periodMs) / 1000;
  }

  /** The policy driving now, for evaluation on a core of its own. */
  drivingPolicy() {
    const driving = this.lockstep.core.teaching.session.versions.driving();
    return { version: driving.number, name: driving.name, policy: driving.policy };
  }

  /** Candidate versions so far (v1 not counted), and those the promotion gate kept from driving. */
  candidates(): { offered: number; refused: number } {
    const all = this.lockstep.core.teaching.session.versions.all().slice(1);
    return { offered: all.length, refused: all.filter((version) => version.evaluation !== undefined && version.evaluation.verdict !== 'promote').length };
  }

  /** The feedback the core has taken (the cockpit's counts). */
  feedback() {
    return this.lockstep.core.teaching.session.status().counts;
  }

  takeovers() {
    const current = this.operator.takeovers();
    return {
      takeovers: this.earlierTakeovers.takeovers + current.takeovers,
      followedByCollision: this.earlierTakeovers.followedByCollision + current.followedByCollision,
    };
  }

  learnerSteps() {
    return this.lockstep.core.learnerSteps();
  }

  /** The stream's own rows in memory so far (every tick it lived is one). */
  memoryRows(): number {
    return this.lockstep.core.stores.memory?.writtenTicks() ?? 0;
  }

  /**
   * Carries the robot to the first training arena of `task` and teaches that from now on: the episode
   * under way is ended as failed (the operator moves on), the learner and its memory go on.
   */
  switchTask(task: SimTaskName): void {
    if (task === this.task) return;
    const { link } = this.lockstep;
    if (this.holding) this.request({ type: 'hand-back' });
    this.holding = false;
    this.request({ type: 'end-episode', outcome: 'failed' });
    this.counts.collisions += link.robot.groundTruth().collisionCount - this.collisionsAtStart;
    this.task = task;
    this.arenaIndex = 0;
    this.episodeInArena = 0;
    const episodeSeed = deriveSeed('stream-episode', this.settings.seed, ++this.episodeSeedCount);
    const carried = createSimLink({ task, arenaSeed: this.settings.trainingArenas[0]!, episodeSeed, autoReset: false, epochMs: 0 });
    link.relocate(carried.robot);
    this.collisionsAtStart = link.robot.groundTruth().collisionCount;
    this.earlierTakeovers = this.takeovers();
    this.operator = this.operatorFor(link.robot.arena, 0);
  }

  /** Runs the stream until `simMinutes` of it have passed. */
  async runUntil(simMinutes: number): Promise<void> {
    const startedMs = performance.now();
    const endTick = Math.round((simMinutes * 60_000) / this.periodMs);
    while (this.counts.ticks < endTick) await this.tick();
    this.wallMs += performance.now() - startedMs;
  }

  async close(): Promise<void> {
    try {
      const failed = await this.lockstep.close();
      if (failed > 0) throw new Error(`${failed} part(s) of the stream's core failed to close`);
    } finally {
      await rm(this.folder, { recursive: true, force: true });
    }
  }

  private async tick(): Promise<void> {
    const { link } = this.lockstep;
    const nowMs = this.lockstep.now();
    let truth = link.robot.groundTruth();
    if (truth.episode.status !== 'running') truth = this.nextEpisode(truth);
    this.request({ type: 'heartbeat', sentAtMs: nowMs });
    if (this.simSecs < this.settings.demoSimMinutes * 60) {
      this.request({ type: 'drive', ...this.operator.drive(truth) });
    } else {
      if (!this.autonomyOn) {
        this.request({ type: 'set-autonomy', enabled: true });
        this.autonomyOn = true;
      }
      this.supervise(truth);
    }
    if (this.counts.ticks % STATUS_EVERY_TICKS === 0) this.lookAtQuestion(nowMs);
    this.answerIfDue(nowMs);
    const report = await this.lockstep.step();
    this.counts.ticks++;
    const after = link.robot.groundTruth();
    this.keepTruth(episodeIdOf(this.lockstep.core.stores.episodeId, report.episode.index), report.episode.step, after);
  }

  /** The episode ended: the operator says how, and puts the robot back (in the next arena when it is time). */
  private nextEpisode(ended: GroundTruth): GroundTruth {
    const { link } = this.lockstep;
    const succeeded = ended.episode.status === 'succeeded';
    // The operator sees how the episode ended (a collision shows in the truth after it) before the robot is put back.
    if (this.autonomyOn) this.operator.supervise(ended, STILL);
    // An operator holding the controls lets go before putting the robot back: the takeover is latched
    // until handed back, and a robot left taken over would stand still under a released stick.
    if (this.holding) this.request({ type: 'hand-back' });
    this.holding = false;
    this.request({ type: 'end-episode', outcome: succeeded ? 'reached-goal' : 'failed' });
    this.counts.episodes++;
    if (succeeded) this.counts.reachedGoal++;
    const episodeSeed = deriveSeed('stream-episode', this.settings.seed, ++this.episodeSeedCount);
    if (++this.episodeInArena >= this.settings.episodesPerArena && this.settings.trainingArenas.length > 1) {
      this.episodeInArena = 0;
      this.arenaIndex = (this.arenaIndex + 1) % this.settings.trainingArenas.length;
      const arenaSeed = this.settings.trainingArenas[this.arenaIndex]!;
      const carried = createSimLink({ task: this.task, arenaSeed, episodeSeed, autoReset: false, epochMs: 0 });
      this.counts.collisions += ended.collisionCount - this.collisionsAtStart;
      link.relocate(carried.robot);
      this.collisionsAtStart = link.robot.groundTruth().collisionCount;
      this.earlierTakeovers = this.takeovers();
      this.operator = this.operatorFor(link.robot.arena, this.arenaIndex);
    } else {
      link.robot.resetEpisode(episodeSeed);
    }
    return link.robot.groundTruth();
  }

  private operatorFor(arena: Arena, arenaIndex: number): SimOperator {
    const seed = deriveSeed('stream-operator', this.settings.seed, arenaIndex);
    return this.settings.makeOperator ? this.settings.makeOperator(arena, seed) : createOperator(this.settings.operator, arena, seed);
  }

  /** Watching the policy: take over when the operator would, drive while holding, hand back, rate now and then. */
  private supervise(truth: GroundTruth): void {
    const loop = this.lockstep.core.loop;
    // What the robot is doing, as the cockpit shows it: the policy's command in effect while it drives.
    const proposed = loop.driver() === 'policy' ? (loop.lastSent()?.command ?? STILL) : STILL;
    const decision = this.operator.supervise(truth, proposed);
    if (decision.driver === 'operator') {
      if (!this.holding) {
        this.request({ type: 'take-over' });
        this.counts.takeoverRequests++;
        this.holding = true;
      }
      this.request({ type: 'drive', linearMps: decision.command.linearMps, angularRadps: decision.command.angularRadps });
      return;
    }
    if (this.holding) {
      this.request({ type: 'hand-back' });
      this.holding = false;
    }
    if (loop.driver() !== 'policy') return;
    const rating = this.operator.rate(truth);
    if (rating !== undefined) {
      this.request({ type: 'rate', value: rating });
      this.counts.ratingsGiven++;
    }
  }

  /** The cockpit's learning status, as the UI shows it: a new question is noted, to be answered after watching its clips. */
  private lookAtQuestion(nowMs: number): void {
    if (this.settings.method === 'bc') return;
    const question = this.lockstep.core.teaching.session.status().question;
    if (question === undefined || this.seenQuestions.has(question.id)) return;
    this.seenQuestions.add(question.id);
    this.counts.questionsAsked++;
    this.pendingAnswer = {
      questionId: question.id,
      dueMs: nowMs + ANSWER_DELAY_SECS[this.settings.operator] * 1000,
      left: { episodeId: question.left.episodeId, startStep: question.left.startStep, endStep: question.left.endStep },
      right: { episodeId: question.right.episodeId, startStep: question.right.startStep, endStep: question.right.endStep },
    };
  }

  private answerIfDue(nowMs: number): void {
    const pending = this.pendingAnswer;
    if (pending === undefined || nowMs < pending.dueMs) return;
    this.pendingAnswer = undefined;
    const left = this.segmentTruth(pending.left);
    const right = this.segmentTruth(pending.right);
    // A segment the operator never saw (older than what it remembers) cannot be judged: skipped.
    const choice = left === undefined || right === undefined ? 'skip' : this.operator.prefer(left, right);
    const answer = choice === 'a' ? 'left' : choice === 'b' ? 'right' : 'skip';
    if (this.request({ type: 'answer', questionId: pending.questionId, answer })) {
      if (answer === 'skip') this.counts.answersSkipped++;
      else this.counts.answersGiven++;
    }
  }

  private segmentTruth(segment: SegmentKey): SegmentTruth | undefined {
    const first = this.truths.get(truthKey(segment.episodeId, segment.startStep));
    const last = this.truths.get(truthKey(segment.episodeId, segment.endStep));
    if (first === undefined || last === undefined) return undefined;
    return { startProgress: first.progress, endProgress: last.progress, collided: last.collisions > first.collisions };
  }

  private keepTruth(episodeId: string, step: number, truth: GroundTruth): void {
    const key = truthKey(episodeId, step);
    this.truths.set(key, { progress: truth.episode.progress, collisions: truth.collisionCount });
    if (this.truths.size > TRUTH_KEPT_TICKS) this.truths.delete(this.truths.keys().next().value!);
  }

  /** A request as the UI sends it; a refusal is counted (none is expected) and reported. */
  private request(request: DistributiveOmit<Request, 'id'>): boolean {
    const result = this.lockstep.core.cockpit.handle({ ...request, id: `bench-${this.counts.ticks}` } as Request);
    if (result.ok) return true;
    this.counts.refused++;
    this.counts.lastRefusal = `${request.type}: ${result.error.message}`;
    return false;
  }

  /** Collisions in the stream so far (ground truth). */
  collisionsSoFar(): number {
    return this.counts.collisions + this.lockstep.link.robot.groundTruth().collisionCount - this.collisionsAtStart;
  }
}

interface SegmentKey {
  episodeId: string;
  startStep: number;
  endStep: number;
}

/** A request as the UI builds it, before the id: `Omit` spread over each kind of request. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function truthKey(episodeId: string, step: number): string {
  return `${episodeId}|${step}`;
}
