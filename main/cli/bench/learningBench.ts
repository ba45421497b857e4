// `reins bench learning` (issue 8): does learning from the operator make a policy that drives on its
// own? On the simulated robot's reach task in lockstep, the scripted operator plays the human: it
// demonstrates for the first minutes (autonomy off), then watches the policy and takes over when a
// collision is imminent or the robot is stuck, and answers preference questions (10% wrong, answers
// landing 200 ms after the question). Three methods run the same stream:
//   reins — the full learner (weighted behaviour cloning, reward ensemble from interventions and
//           answers, reward-weighted imitation, a term toward the driving version), with questions;
//   bc    — behaviour cloning on the operator's ticks only (HG-DAgger), same network, data and
//           gradient budget, no questions;
//   none  — no learning: the initial policy drives throughout.
// After each training budget (simulated minutes) the driving version is evaluated on held-out seeded
// episodes with nobody to take over; evaluation counts toward no budget.
import type { Driver } from '../../core/tickReport.ts';
import { DEFAULT_TOPIC_MAP } from '../../core/link.ts';
import { twistFromDrive, type DriveCommand } from '../../core/messages.ts';
import { SeededRandom } from '../../core/util/seededRandom.ts';
import { DEFAULT_MANIFEST_PATH, openEncoders, type OnnxPerception } from '../../session/encoders.ts';
import {
  createPolicyLearner,
  createRewardDriftWatch,
  createTickBuffer,
  imaginationSettings,
  policyLearnerSettings,
  retrainPolicy,
  type FeedbackSignals,
  type InterventionSignal,
  type LearnedPolicy,
  type LearningMethod,
  type PolicyLearner,
  type PolicyLearnerOptions,
  type PreferenceSignal,
  type Segment,
  type TickBuffer,
} from '../../session/learningParts.ts';
import { createSynchroniser } from '../../session/loopWiring.ts';
import { createSafetyFilter } from '../../session/safetyParts.ts';
import { selectSessionBackend } from '../../session/worldModelBackend.ts';
import type { PresetName } from '../../session/worldModelParts.ts';
import { createSimLink, type LockstepLink } from '../../sim/lockstepLink.ts';
import { ScriptedOperator } from '../../sim/scriptedOperator.ts';
import { BenchWorldModel } from './benchWorldModel.ts';
import type { BenchRow } from './report.ts';

export const LEARNING_METHODS = ['reins', 'bc', 'none'] as const;
export type BenchMethod = (typeof LEARNING_METHODS)[number];

export interface LearningBenchOptions {
  methods: readonly BenchMethod[];
  /** Simulated minutes of training after which each method is evaluated. */
  budgetsSimMinutes: readonly number[];
  evalEpisodes: number;
  /** The operator drives alone (autonomy off) for this long at the start. */
  demoSimMinutes: number;
  /** A fast-path update (and a new version, promoted automatically) this often. */
  updateEverySimSecs: number;
  actorStepsPerUpdate: number;
  /**
   * The slow path: a fresh learner retrained on the whole stream this often (0: never), with this
   * many actor steps, for `reins` and `bc` alike (the same gradient budget; for `bc` this is
   * HG-DAgger's retraining on the aggregated data).
   */
  slowPathEverySimMins: number;
  slowPathSteps: number;
  /** Reins asks a preference question this often while the policy drives. */
  questionEverySimSecs: number;
  /** Each side of a question, in ticks. */
  questionSegmentTicks: number;
  /** Candidate pairs scored for disagreement per question. */
  questionCandidates: number;
  controlRateHz: number;
  arenaSeed: number;
  trainEpisodeSeed: number;
  evalEpisodeSeed: number;
  seed: number;
  encoders: string;
  /**
   * Reins' world model for imagined rollouts, trained in the stream on the ticks it holds: used only
   * where `learner.imagination.rollouts` turns rollouts on. Steps per fast-path update, and the steps
   * it must have trained before the learner imagines in it.
   */
  worldModelPreset: PresetName;
  worldModelStepsPerUpdate: number;
  worldModelWarmSteps: number;
  /** Learner settings over DEFAULT_POLICY_LEARNER_OPTIONS, for every learning method (for ablations). */
  learner: Partial<Omit<PolicyLearnerOptions, 'method' | 'seed'>>;
}

export const DEFAULT_LEARNING_BENCH_OPTIONS: Readonly<LearningBenchOptions> = Object.freeze({
  methods: LEARNING_METHODS,
  budgetsSimMinutes: [5, 10, 15, 20, 30],
  evalEpisodes: 50,
  demoSimMinutes: 3,
  updateEverySimSecs: 5,
  actorStepsPerUpdate: 30,
  slowPathEverySimMins: 5,
  slowPathSteps: 1500,
  questionEverySimSecs: 15,
  questionSegmentTicks: 20,
  questionCandidates: 8,
  controlRateHz: 10,
  arenaSeed: 1,
  trainEpisodeSeed: 1000,
  evalEpisodeSeed: 900_000,
  seed: 1,
  encoders: DEFAULT_MANIFEST_PATH,
  worldModelPreset: 'wm-xxs',
  worldModelStepsPerUpdate: 4,
  worldModelWarmSteps: 200,
  learner: {},
});

export interface BudgetFigures {
  simMinutes: number;
  wallMinutes: number;
  interventions: number;
  preferenceAnswers: number;
  successRate: number;
  /** Beyond the required fields: what the evaluation episodes ended in. */
  collisions: number;
  timeouts: number;
  policyVersion: string;
  /**
   * `reins` only: the cockpit's "the reward is unknown here" warning (RewardDriftWatch) as it would
   * have shown on the training stream so far: the policy's ticks, those under the warning, and the
   * interventions that came while it was on.
   */
  rewardDrift?: RewardDriftFigures;
}

export interface RewardDriftFigures {
  policyTicks: number;
  warnedTicks: number;
  interventionsWhileWarned: number;
}

export interface MethodFigures {
  name: BenchMethod;
  budgets: BudgetFigures[];
}

export interface LearningBenchOutcome {
  results: BenchRow[];
  methods: MethodFigures[];
  hyperparameters: Record<string, unknown>;
}

const log = (line: string) => process.stderr.write(`${line}\n`);
/** Ticks between a reset and the first frame with every stream: the synchroniser needs one of each. */
const SETTLE_TICKS = 2;
/** The policy's ticks before a takeover that form its side of the intervention's pair. */
const POLICY_SEGMENT_TICKS = 20;
/** The scripted operator answers 200 ms after a question: two ticks at 10 Hz. */
const ANSWER_DELAY_TICKS = 2;

export async function runLearningBench(given: Partial<LearningBenchOptions> = {}): Promise<LearningBenchOutcome> {
  const options = { ...DEFAULT_LEARNING_BENCH_OPTIONS, ...given };
  checkOptions(options);
  const backend = await selectSessionBackend();
  log(`learning: TF.js backend ${backend.backend}`);
  const perception = await openEncoders(options.encoders, {});
  try {
    const methods: MethodFigures[] = [];
    for (const method of options.methods) methods.push(await runMethod(method, options, perception));
    const results: BenchRow[] = methods.flatMap((figures) =>
      figures.budgets.map((budget) => ({
        name: `${figures.name}-success-${budget.simMinutes}min`,
        unit: 'fraction',
        p50: null,
        p95: null,
        p99: null,
        value: budget.successRate,
      })),
    );
    return { results, methods, hyperparameters: hyperparameters(options) };
  } finally {
    await perception.close();
  }
}

function checkOptions(options: LearningBenchOptions): void {
  const budgets = options.budgetsSimMinutes;
  if (budgets.length === 0 || budgets.some((m, i) => !(m > 0) || (i > 0 && m <= budgets[i - 1]!)))
    throw new RangeError(`budgets must be rising simulated minutes > 0, got ${budgets.join(', ')}`);
  if (!(Number.isInteger(options.evalEpisodes) && options.evalEpisodes >= 1))
    throw new RangeError(`evalEpisodes must be a whole number ≥ 1, got ${options.evalEpisodes}`);
  for (const method of options.methods)
    if (!LEARNING_METHODS.includes(method)) throw new RangeError(`unknown method "${method}"; methods: ${LEARNING_METHODS.join(', ')}`);
}

function hyperparameters(options: LearningBenchOptions): Record<string, unknown> {
  const { method: _method, reward: _reward, imagination, ...rest } = policyLearnerSettings(options.learner);
  const imagined = imaginationSettings(imagination);
  const learner = {
    ...rest,
    imagination:
      imagined.rollouts > 0
        ? {
            ...imagined,
            worldModel: {
              preset: options.worldModelPreset,
              stepsPerUpdate: options.worldModelStepsPerUpdate,
              warmSteps: options.worldModelWarmSteps,
              batch: 16,
              length: 32,
            },
          }
        : 'off',
  };
  return {
    stream: {
      demoSimMinutes: options.demoSimMinutes,
      updateEverySimSecs: options.updateEverySimSecs,
      actorStepsPerUpdate: options.actorStepsPerUpdate,
      slowPathEverySimMins: options.slowPathEverySimMins,
      slowPathSteps: options.slowPathSteps,
      controlRateHz: options.controlRateHz,
      arenaSeed: options.arenaSeed,
      trainEpisodeSeed: options.trainEpisodeSeed,
      evalEpisodeSeed: options.evalEpisodeSeed,
      evalEpisodes: options.evalEpisodes,
    },
    learner,
    reinsOnly: {
      questionEverySimSecs: options.questionEverySimSecs,
      questionSegmentTicks: options.questionSegmentTicks,
      questionCandidates: options.questionCandidates,
      rewardEnsembleMembers: 5,
    },
    bc: 'behaviour cloning (the same squashed-Gaussian negative log-likelihood) on every operator tick with weight 1: the demonstrations and every takeover; the same actor network, optimiser, learning rate, batch of operator ticks and actor steps per update as reins; no reward model, no questions, no reference term',
  };
}

interface TickTruth {
  progress: number;
  collisions: number;
}

/** The training stream of one method: the robot, the operator, the learner and the counts. */
class TrainingStream {
  readonly link: LockstepLink;
  private readonly synchroniser: ReturnType<typeof createSynchroniser>;
  private readonly safety = createSafetyFilter();
  private readonly operator: ScriptedOperator;
  readonly buffer: TickBuffer;
  readonly learner: PolicyLearner | undefined;
  policy: LearnedPolicy;
  private readonly truths: TickTruth[];
  private readonly random: SeededRandom;
  private lastCommand: DriveCommand = { linearMps: 0, angularRadps: 0 };
  private lastDriver: Driver = 'idle';
  private episodeIndex = -1;
  private step = 0;
  private ticks = 0;
  private versionNumber = 1;
  private open: InterventionSignal | undefined;
  private readonly interventionList: InterventionSignal[] = [];
  private readonly preferenceList: PreferenceSignal[] = [];
  private pendingAnswers: Array<{ dueTick: number; signal: PreferenceSignal }> = [];
  private lastQuestionTick = 0;
  private lastUpdateTick = 0;
  private lastRetrainTick = 0;
  private readonly learnerOptions: Partial<PolicyLearnerOptions>;
  private readonly worldModel: BenchWorldModel | undefined;
  private readonly drift = createRewardDriftWatch();
  private taughtSpread: number | undefined;
  readonly driftFigures: RewardDriftFigures = { policyTicks: 0, warnedTicks: 0, interventionsWhileWarned: 0 };
  wallMs = 0;

  constructor(
    readonly method: BenchMethod,
    private readonly options: LearningBenchOptions,
    private readonly perception: OnnxPerception,
  ) {
    this.link = createSimLink({ arenaSeed: options.arenaSeed, episodeSeed: options.trainEpisodeSeed, epochMs: 0, autoReset: true });
    this.synchroniser = createSynchroniser(this.link);
    this.operator = new ScriptedOperator(this.link.robot.arena, { seed: options.seed });
    const capacity = Math.ceil(Math.max(...options.budgetsSimMinutes) * 60 * options.controlRateHz) + 100;
    this.buffer = createTickBuffer(capacity, perception.embeddingSize);
    this.truths = new Array<TickTruth>(capacity);
    this.random = new SeededRandom(options.seed * 31 + 7);
    const learnerMethod: LearningMethod = method === 'bc' ? 'bc' : 'reins';
    this.learnerOptions = { ...options.learner, method: learnerMethod, seed: options.seed };
    const learner = createPolicyLearner(this.buffer, this.learnerOptions);
    // `none` keeps the learner only for its untrained version 1, the same initial actor the others start from.
    this.policy = learner.candidate('v1');
    this.learner = method === 'none' ? undefined : learner;
    if (method === 'none') learner.dispose();
    const imagines = method === 'reins' && (options.learner.imagination?.rollouts ?? 0) > 0;
    this.worldModel = imagines
      ? new BenchWorldModel(perception.embeddingSize, { preset: options.worldModelPreset, batch: 16, length: 32, seed: options.seed })
      : undefined;
  }

  /** The world model once it has trained enough to imagine in, else undefined. */
  private trainWorldModel(): BenchWorldModel['rssm'] | undefined {
    const model = this.worldModel;
    if (model === undefined) return undefined;
    model.train(this.buffer, this.options.worldModelStepsPerUpdate);
    return model.steps >= this.options.worldModelWarmSteps ? model.rssm : undefined;
  }

  get simSecs(): number {
    return this.ticks / this.options.controlRateHz;
  }

  get interventions(): number {
    return this.interventionList.length;
  }

  get preferenceAnswers(): number {
    return this.preferenceList.length;
  }

  signals(): FeedbackSignals {
    return { interventions: this.interventionList, preferences: this.preferenceList, ratings: [] };
  }

  /** Runs the stream until `simMinutes` of it have passed. */
  async runUntil(simMinutes: number): Promise<void> {
    const startedMs = performance.now();
    const endTick = Math.round(simMinutes * 60 * this.options.controlRateHz);
    while (this.ticks < endTick) await this.tick();
    this.wallMs += performance.now() - startedMs;
  }

  close(): Promise<void> {
    this.synchroniser.close();
    this.learner?.dispose();
    this.worldModel?.dispose();
    return this.link.close();
  }

  private async tick(): Promise<void> {
    const { link, options } = this;
    link.advance(1 / options.controlRateHz);
    this.ticks++;
    const truth = link.robot.groundTruth();
    if (truth.episode.index !== this.episodeIndex) {
      this.episodeIndex = truth.episode.index;
      this.step = 0;
      this.closeIntervention();
    }
    const frame = this.synchroniser.frame(link.clockMs());
    if (frame.missing.some((role) => role !== 'odom')) {
      // Just after a reset: not every stream has published yet. Nobody drives.
      this.lastCommand = this.safety.filter({ linearMps: 0, angularRadps: 0 }, link.clockMs());
      link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(this.lastCommand));
      return;
    }
    const embedding = await this.perception.encode(frame, this.lastCommand);
    const demonstrating = this.simSecs <= options.demoSimMinutes * 60;
    let driver: Driver;
    let command: DriveCommand;
    if (demonstrating) {
      driver = 'operator';
      command = this.operator.drive(truth);
    } else {
      const proposed = this.policy.act({ embedding, frame });
      const decision = this.operator.supervise(truth, proposed);
      driver = decision.driver;
      command = decision.command;
    }
    this.lastCommand = this.safety.filter(command, link.clockMs());
    link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(this.lastCommand));

    const episodeId = `train-${this.episodeIndex}`;
    const step = this.step++;
    const slot = this.buffer.total % this.buffer.capacity;
    this.buffer.add({ episodeId, step, embedding: embedding.values, action: this.lastCommand, driver });
    this.truths[slot] = { progress: truth.episode.progress, collisions: truth.collisionCount };
    const warnedBefore = this.drift.state()?.drifting === true;
    const interventionsBefore = this.interventionList.length;
    this.trackIntervention(driver, episodeId, step);
    if (this.interventionList.length > interventionsBefore && warnedBefore) this.driftFigures.interventionsWhileWarned++;
    this.noteDrift(driver, embedding.values);
    this.lastDriver = driver;

    this.deliverAnswers();
    if (this.learner === undefined) return;
    if (this.method === 'reins' && driver === 'policy' && this.ticks - this.lastQuestionTick >= options.questionEverySimSecs * options.controlRateHz) {
      if (this.ask()) this.lastQuestionTick = this.ticks;
    }
    if (this.ticks - this.lastUpdateTick >= options.updateEverySimSecs * options.controlRateHz) {
      this.lastUpdateTick = this.ticks;
      this.learner.useWorldModel(this.trainWorldModel());
      const report = this.learner.train(options.actorStepsPerUpdate, this.signals());
      if (report.actorSteps > 0) {
        // Auto-promote, as the simulated robot's default: the new version drives from the next tick.
        this.policy.dispose();
        this.policy = this.learner.candidate(`v${++this.versionNumber}`);
        this.measureTaughtSpread();
      }
    }
    const retrainEvery = options.slowPathEverySimMins * 60 * options.controlRateHz;
    if (retrainEvery > 0 && this.ticks - this.lastRetrainTick >= retrainEvery) {
      this.lastRetrainTick = this.ticks;
      const retrained = retrainPolicy(
        this.buffer,
        this.learnerOptions,
        this.signals(),
        options.slowPathSteps,
        `v${this.versionNumber + 1}`,
        this.worldModel && this.worldModel.steps >= options.worldModelWarmSteps ? this.worldModel.rssm : undefined,
      );
      if (retrained.ok) {
        // As live: the retrained version drives, and the fast path carries on from its weights.
        this.learner.restore(retrained.snapshot, retrained.reward);
        this.policy.dispose();
        this.policy = this.learner.candidate(`v${++this.versionNumber}`);
        this.measureTaughtSpread();
      }
    }
  }

  /** As the live core does after each round (reins only: bc has no reward model). */
  private measureTaughtSpread(): void {
    if (this.method === 'reins') this.taughtSpread = this.learner?.taughtRewardSpread(this.signals());
  }

  /** The drift warning as the cockpit would run it on this tick: scored only while the policy drives. */
  private noteDrift(driver: Driver, embedding: Float32Array): void {
    if (this.method !== 'reins' || this.learner === undefined) return;
    const spread = driver === 'policy' && this.taughtSpread !== undefined ? this.learner.rewardStatistics(embedding, 1)?.spread[0] : undefined;
    this.drift.noteTick({ driver, timeMs: (this.ticks * 1000) / this.options.controlRateHz, spread, taughtSpread: this.taughtSpread });
    if (driver !== 'policy') return;
    this.driftFigures.policyTicks++;
    if (this.drift.state()?.drifting === true) this.driftFigures.warnedTicks++;
  }

  /** One takeover, once: opened when the operator takes the wheel from the policy, closed on hand-back. */
  private trackIntervention(driver: Driver, episodeId: string, step: number): void {
    if (driver === 'operator' && this.lastDriver === 'policy' && this.open === undefined) {
      let start = step;
      while (start > 0 && step - start < POLICY_SEGMENT_TICKS) {
        const slot = this.buffer.slotOf(episodeId, start - 1);
        if (slot === undefined || this.buffer.drivers[slot] !== 'policy') break;
        start--;
      }
      this.open = {
        id: `intervention-${this.interventionList.length + 1}`,
        atStep: step,
        episodeId,
        policySegment: start < step ? { episodeId, startStep: start, endStep: step - 1 } : undefined,
        operatorSegment: { episodeId, startStep: step, endStep: step },
      };
      this.interventionList.push(this.open);
    } else if (this.open !== undefined) {
      if (driver === 'operator' && this.open.episodeId === episodeId) this.open.operatorSegment.endStep = step;
      else this.closeIntervention();
    }
  }

  private closeIntervention(): void {
    this.open = undefined;
  }

  /** Picks the pair of recent policy segments the reward ensemble disagrees about most, and asks. */
  private ask(): boolean {
    const learner = this.learner!;
    const length = this.options.questionSegmentTicks;
    const policySlots = this.buffer.slotsWhere((driver) => driver === 'policy');
    const recent = policySlots.slice(-this.options.controlRateHz * 600);
    if (recent.length < length * 4) return false;
    let best: { a: Segment; b: Segment; disagreement: number } | undefined;
    for (let i = 0; i < this.options.questionCandidates; i++) {
      const a = this.segmentEndingAt(recent[Math.floor(this.random.next() * recent.length)]!, length);
      const b = this.segmentEndingAt(recent[Math.floor(this.random.next() * recent.length)]!, length);
      if (a === undefined || b === undefined || (a.episodeId === b.episodeId && a.startStep <= b.endStep && b.startStep <= a.endStep)) continue;
      const disagreement = learner.disagreement(a, b) ?? 0;
      if (best === undefined || disagreement > best.disagreement) best = { a, b, disagreement };
    }
    if (best === undefined) return false;
    const truthOf = (segment: Segment) => {
      const slots = this.buffer.segmentSlots(segment)!;
      const first = this.truths[slots[0]!]!;
      const last = this.truths[slots[slots.length - 1]!]!;
      return { startProgress: first.progress, endProgress: last.progress, collided: last.collisions > first.collisions };
    };
    const answer = this.operator.prefer(truthOf(best.a), truthOf(best.b));
    const signal: PreferenceSignal = { id: `question-${this.ticks}`, first: best.a, second: best.b, answer: answer === 'a' ? 'first' : 'second' };
    this.pendingAnswers.push({ dueTick: this.ticks + ANSWER_DELAY_TICKS, signal });
    return true;
  }

  /** A policy-driven segment of `length` ticks ending at a slot, within one episode; undefined if there is none. */
  private segmentEndingAt(slot: number, length: number): Segment | undefined {
    const episodeId = this.buffer.episodeIds[slot]!;
    const endStep = this.buffer.steps[slot]!;
    const segment = { episodeId, startStep: endStep - length + 1, endStep };
    if (segment.startStep < 0) return undefined;
    const slots = this.buffer.segmentSlots(segment);
    if (slots === undefined || slots.some((s) => this.buffer.drivers[s] !== 'policy')) return undefined;
    return segment;
  }

  private deliverAnswers(): void {
    const due = this.pendingAnswers.filter((pending) => pending.dueTick <= this.ticks);
    if (due.length === 0) return;
    this.pendingAnswers = this.pendingAnswers.filter((pending) => pending.dueTick > this.ticks);
    for (const { signal } of due) this.preferenceList.push(signal);
  }
}

async function runMethod(method: BenchMethod, options: LearningBenchOptions, perception: OnnxPerception): Promise<MethodFigures> {
  const stream = new TrainingStream(method, options, perception);
  const budgets: BudgetFigures[] = [];
  let lastEvaluated: { version: string; outcome: EvaluationOutcome } | undefined;
  try {
    for (const simMinutes of options.budgetsSimMinutes) {
      await stream.runUntil(simMinutes);
      // `none` never changes its policy: its one evaluation stands for every budget.
      const outcome = lastEvaluated?.version === stream.policy.version ? lastEvaluated.outcome : await evaluate(stream.policy, options, perception);
      lastEvaluated = { version: stream.policy.version, outcome };
      const figures: BudgetFigures = {
        simMinutes,
        wallMinutes: stream.wallMs / 60_000,
        interventions: stream.interventions,
        preferenceAnswers: stream.preferenceAnswers,
        successRate: outcome.succeeded / options.evalEpisodes,
        collisions: outcome.collisions,
        timeouts: outcome.timeouts,
        policyVersion: stream.policy.version,
        ...(method === 'reins' ? { rewardDrift: { ...stream.driftFigures } } : {}),
      };
      budgets.push(figures);
      const drift = figures.rewardDrift;
      log(
        `learning: ${method} at ${simMinutes} sim min: success ${figures.successRate.toFixed(2)} (${outcome.collisions} collisions, ${outcome.timeouts} timeouts), ${figures.interventions} interventions, ${figures.preferenceAnswers} answers, ${figures.wallMinutes.toFixed(2)} wall min, ${figures.policyVersion}` +
          (drift
            ? `; reward-drift warning on ${drift.warnedTicks} of ${drift.policyTicks} policy ticks, ${drift.interventionsWhileWarned} interventions while on`
            : ''),
      );
    }
  } finally {
    await stream.close();
  }
  return { name: method, budgets };
}

interface EvaluationOutcome {
  succeeded: number;
  collisions: number;
  timeouts: number;
}

/** The policy alone on held-out episodes: nobody takes over, and nothing learns. */
async function evaluate(policy: LearnedPolicy, options: LearningBenchOptions, perception: OnnxPerception): Promise<EvaluationOutcome> {
  const outcome: EvaluationOutcome = { succeeded: 0, collisions: 0, timeouts: 0 };
  for (let episode = 0; episode < options.evalEpisodes; episode++) {
    const link = createSimLink({ arenaSeed: options.arenaSeed, episodeSeed: options.evalEpisodeSeed + episode, epochMs: 0, autoReset: false });
    const synchroniser = createSynchroniser(link);
    const safety = createSafetyFilter();
    let last: DriveCommand = { linearMps: 0, angularRadps: 0 };
    try {
      for (let i = 0; i < SETTLE_TICKS; i++) link.advance(1 / options.controlRateHz);
      while (link.robot.groundTruth().episode.status === 'running') {
        const frame = synchroniser.frame(link.clockMs());
        const embedding = await perception.encode(frame, last);
        last = safety.filter(policy.act({ embedding, frame }), link.clockMs());
        link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(last));
        link.advance(1 / options.controlRateHz);
      }
      const ended = link.robot.groundTruth().episode;
      if (ended.status === 'succeeded') outcome.succeeded++;
      else if (ended.reason === 'collision') outcome.collisions++;
      else outcome.timeouts++;
    } finally {
      synchroniser.close();
      await link.close();
    }
  }
  return outcome;
}

/** The methods' figures as a table: one line per method and budget. */
export function formatLearningTable(methods: readonly MethodFigures[]): string {
  const header = ['method', 'sim min', 'wall min', 'interventions', 'answers', 'success', 'collisions', 'timeouts', 'version'];
  const rows = methods.flatMap((method) =>
    method.budgets.map((b) => [
      method.name,
      String(b.simMinutes),
      b.wallMinutes.toFixed(2),
      String(b.interventions),
      String(b.preferenceAnswers),
      b.successRate.toFixed(2),
      String(b.collisions),
      String(b.timeouts),
      b.policyVersion,
    ]),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
