// The learning bench drives the product (issue 26): its streams are cores built by the factory `reins
// start` uses; the operator's takeover, answer and rating reach the FeedbackLedger as the cockpit's
// requests; a stream runs on one simulated clock (two runs of a seed give the same weights); and an
// evaluation never reaches a stream's memory. The world model is off in these streams (--no-world-model,
// a `reins start` option): it costs a second a step here and feeds nothing the policy learns from.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseBenchArgs, parseStartArgs } from '../../main/cli/args.ts';
import { runLearningBench, type LearningBenchOutcome } from '../../main/cli/bench/learningBench.ts';
import { evaluate } from '../../main/cli/bench/learningEvaluation.ts';
import { liveJobProcesses } from '../../main/cli/bench/learningJobs.ts';
import { TrainingStream, type StreamSettings } from '../../main/cli/bench/learningStream.ts';
import { learningOptions } from '../../main/cli/bench/runBench.ts';
import { runStart } from '../../main/cli/start.ts';
import { UsageError } from '../../main/cli/usageError.ts';
import type { Request } from '../../main/core/contract.ts';
import type { DriveCommand } from '../../main/core/messages.ts';
import { REPO_ROOT } from '../../main/core/runtime/repoRoot.ts';
import { openCoreSession, type CoreSession } from '../../main/session/coreSession.ts';
import { LearningSession } from '../../main/learning/learningSession.ts';
import { EVALUATION_ARENA_SEEDS } from '../../main/sim/arenaSeeds.ts';
import type { Arena } from '../../main/sim/arena.ts';
import { createOperator } from '../../main/sim/operators/createOperator.ts';
import type { OperatorDecision, OperatorRating, PreferenceAnswer, SimOperator } from '../../main/sim/operators/simOperator.ts';
import type { GroundTruth } from '../../main/sim/simRobot.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

vi.mock('../../main/session/coreSession.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../main/session/coreSession.ts')>();
  return { ...actual, openCoreSession: vi.fn(actual.openCoreSession) };
});

const log = pino({ level: 'silent' });
const START_ARGS = ['--robot', 'sim', '--no-record', '--no-world-model', '--encoders', testEncoderManifest()];

function settings(overrides: Partial<StreamSettings> = {}): StreamSettings {
  return {
    method: 'reins',
    task: 'reach',
    operator: 'expert',
    seed: 1,
    trainingArenas: [100_001, 100_002],
    episodesPerArena: 2,
    demoSimMinutes: 0.5,
    args: (folder) => parseStartArgs([...START_ARGS, '--memory', join(folder, 'memory')]),
    log,
    ...overrides,
  };
}

/**
 * The expert's driving, with a script on top, counted in the ticks it has watched the policy (the
 * robot's own clock starts again in each arena): it takes over once for a second (`holdTicks`, 10) at tick
 * `takeoverAtTick`, rates the policy 'good' once from tick `rateFromTick`, and prefers the left clip.
 */
class ScriptedTeacher implements SimOperator {
  readonly name = 'expert' as const;
  private readonly inner: SimOperator;
  private rated = false;
  private tookOver = 0;
  private watched = 0;

  constructor(
    arena: Arena,
    seed: number,
    private readonly takeoverAtTick: number,
    private readonly rateFromTick: number,
    private readonly holdTicks = 10,
  ) {
    this.inner = createOperator('expert', arena, seed);
  }

  drive(truth: GroundTruth): DriveCommand {
    return this.inner.drive(truth);
  }

  supervise(_truth: GroundTruth, proposed: DriveCommand): OperatorDecision {
    const tick = this.watched++;
    if (tick >= this.takeoverAtTick && tick < this.takeoverAtTick + this.holdTicks) {
      this.tookOver++;
      return { driver: 'operator', command: { linearMps: 0, angularRadps: 0 }, reason: 'no-progress' };
    }
    return { driver: 'policy', command: proposed, reason: undefined };
  }

  prefer(): PreferenceAnswer {
    return 'a';
  }

  rate(): OperatorRating | undefined {
    if (this.rated || this.watched < this.rateFromTick) return undefined;
    this.rated = true;
    return 'good';
  }

  takeovers() {
    return { takeovers: this.tookOver > 0 ? 1 : 0, followedByCollision: 0 };
  }
}

describe('the learning bench drives the product', () => {
  it('builds its streams through the factory `reins start` uses', { timeout: 120_000 }, async () => {
    const factory = vi.mocked(openCoreSession);
    factory.mockClear();
    const stream = await TrainingStream.open(settings());
    try {
      expect(factory).toHaveBeenCalledTimes(1);
      const benchCore = (await factory.mock.results[0]!.value) as CoreSession;
      expect(benchCore).toBe(stream.lockstep.core);
      expect(benchCore.teaching.session).toBeInstanceOf(LearningSession);
      // The stream keeps reins start's defaults but for what it names: memory in its folder, no recording.
      const streamArgs = factory.mock.calls[0]![0];
      expect(streamArgs.stores).toMatchObject({ record: false, remember: true });
      expect(streamArgs.rateHz).toBe(parseStartArgs(['--robot', 'sim']).rateHz);
      expect(benchCore.teaching.session.status()).toMatchObject({ learning: true, autoPromote: true, slowPath: expect.anything() });
    } finally {
      await stream.close();
    }

    // `reins start` itself, headless on the simulated robot: the same factory, and the same learning path.
    factory.mockClear();
    const listening = process.listenerCount('SIGTERM');
    const started = runStart(parseStartArgs([...START_ARGS, '--no-memory', '--headless', '--port', '0']));
    await vi.waitFor(() => expect(factory).toHaveBeenCalledTimes(1), { timeout: 60_000, interval: 50 });
    const startCore = (await factory.mock.results[0]!.value) as CoreSession;
    expect(startCore.teaching.session).toBeInstanceOf(LearningSession);
    expect(startCore.teaching.session.status()).toMatchObject({ learning: true });
    // Once the core serves, it waits for a stop signal; one shuts it down as Ctrl-C would.
    await vi.waitFor(() => expect(process.listenerCount('SIGTERM')).toBeGreaterThan(listening), { timeout: 30_000, interval: 50 });
    process.emit('SIGTERM');
    expect(await started).toBe(0);
    // The bench's stream module reaches the core only through lockstepCore (the factory's one caller besides start and soak).
    const streamSource = readFileSync(join(REPO_ROOT, 'main/cli/bench/learningStream.ts'), 'utf8');
    expect(streamSource).toContain("from '../../session/lockstepCore.ts'");
    expect(streamSource).not.toMatch(/learning\/(feedbackLedger|questionPicker|policyVersions|slowPath|onlineImprover)/);
  });

  describe('the operator teaches through the cockpit', () => {
    let stream: TrainingStream;
    let teacher: ScriptedTeacher | undefined;
    const requests: Request[] = [];

    beforeAll(async () => {
      stream = await TrainingStream.open(
        settings({
          demoSimMinutes: 0.25,
          makeOperator: (arena, seed) => (teacher ??= new ScriptedTeacher(arena, seed, 50, 150)),
        }),
      );
      const { cockpit } = stream.lockstep.core;
      const handle = cockpit.handle.bind(cockpit);
      cockpit.handle = (request) => {
        requests.push(request);
        return handle(request);
      };
      // Long enough for the first questions (asked every 30 s of the policy's driving once the reward model has learned).
      const answered = () => stream.lockstep.core.teaching.session.ledger.signals().preferences.length > 0;
      for (let minutes = 0.5; minutes <= 3 && !answered(); minutes += 0.25) await stream.runUntil(minutes);
    }, 180_000);

    afterAll(async () => {
      await stream?.close();
    });

    it('a takeover becomes one intervention in the ledger, with the policy’s segment before it', () => {
      const signals = stream.lockstep.core.teaching.session.ledger.signals();
      expect(requests.filter((request) => request.type === 'take-over')).toHaveLength(1);
      expect(requests.filter((request) => request.type === 'hand-back')).toHaveLength(1);
      expect(signals.interventions).toHaveLength(1);
      const [intervention] = signals.interventions;
      expect(intervention!.policySegment).toBeDefined();
      expect(intervention!.operatorSegment.endStep - intervention!.operatorSegment.startStep).toBeGreaterThanOrEqual(5);
    });

    it('an answer becomes a preference in the ledger, about the segments the question showed', () => {
      const answers = requests.filter((request): request is Extract<Request, { type: 'answer' }> => request.type === 'answer');
      expect(answers.length).toBeGreaterThan(0);
      const preferences = stream.lockstep.core.teaching.session.ledger.signals().preferences;
      expect(preferences.length).toBe(answers.filter((answer) => answer.answer !== 'skip').length);
      // The teacher prefers the left clip: the first segment.
      expect(preferences.every((preference) => preference.answer === 'first')).toBe(true);
      expect(stream.counts.questionsAsked).toBeGreaterThanOrEqual(answers.length);
    });

    it('a rating becomes a rating in the ledger, of the policy’s driving at that moment', () => {
      const rates = requests.filter((request) => request.type === 'rate');
      expect(rates).toEqual([expect.objectContaining({ type: 'rate', value: 'good' })]);
      const ratings = stream.lockstep.core.teaching.session.ledger.signals().ratings;
      expect(ratings).toHaveLength(1);
      expect(ratings[0]!.rating).toBe(1);
      expect(stream.counts.refused).toBe(0);
    });
  });

  it('hands back before it ends an episode it is holding, so that no takeover stays latched into the next', { timeout: 120_000 }, async () => {
    // An operator who takes over at once and never lets go: the robot stands still until reach's 30 s run out.
    const stream = await TrainingStream.open(
      settings({ demoSimMinutes: 0.1, makeOperator: (arena, seed) => new ScriptedTeacher(arena, seed, 0, Infinity, Infinity) }),
    );
    try {
      const { cockpit, loop } = stream.lockstep.core;
      const handle = cockpit.handle.bind(cockpit);
      const control: string[] = [];
      const driverAtEnd: string[] = [];
      cockpit.handle = (request) => {
        if (request.type === 'take-over' || request.type === 'hand-back' || request.type === 'end-episode') control.push(request.type);
        if (request.type === 'end-episode') driverAtEnd.push(loop.driver());
        return handle(request);
      };
      await stream.runUntil(0.1 + 0.6);
      const ends = control.flatMap((type, index) => (type === 'end-episode' ? [index] : []));
      expect(control.slice(0, 3)).toEqual(['take-over', 'hand-back', 'end-episode']);
      expect(ends.length).toBeGreaterThanOrEqual(1);
      for (const index of ends) expect(control[index - 1], `request before end-episode #${index}`).toBe('hand-back');
      // The hand-back took effect before the episode ended: the policy, not a latched takeover, drives on.
      expect(driverAtEnd.every((driver) => driver === 'policy')).toBe(true);
      expect(stream.counts.refused).toBe(0);
    } finally {
      await stream.close();
    }
  });

  it('runs on one simulated clock: two one-minute runs of a seed end with the same weights', { timeout: 240_000 }, async () => {
    const run = async () => {
      const stream = await TrainingStream.open(settings());
      try {
        await stream.runUntil(1);
        const driving = stream.drivingPolicy();
        const snapshot = (driving.policy as unknown as { snapshot?: { weights: Float32Array[] } }).snapshot;
        return { version: driving.version, name: driving.name, weights: snapshot?.weights.map((w) => Array.from(w)), steps: stream.learnerSteps().policy };
      } finally {
        await stream.close();
      }
    };
    const first = await run();
    const second = await run();
    expect(first.version).toBeGreaterThan(1);
    expect(first.weights).toBeDefined();
    expect(second).toEqual(first);
  });

  it('evaluates on a core of its own: no evaluation tick reaches the stream’s memory', { timeout: 120_000 }, async () => {
    const stream = await TrainingStream.open(settings({ demoSimMinutes: 0.2 }));
    try {
      await stream.runUntil(0.5);
      await stream.lockstep.core.stores.flushMemory();
      const before = stream.memoryRows();
      expect(before).toBe(stream.counts.ticks);
      const result = await evaluate(
        { task: 'reach', arenas: EVALUATION_ARENA_SEEDS.slice(0, 1), episodesPerArena: 1 },
        { kind: 'policy', policy: stream.drivingPolicy().policy },
        parseStartArgs([...START_ARGS, '--no-memory']),
        log,
      );
      expect(result.episodes).toHaveLength(1);
      await stream.lockstep.core.stores.flushMemory();
      expect(stream.memoryRows()).toBe(before);
    } finally {
      await stream.close();
    }
  });
});

describe('the bench runs its jobs in processes of their own, as many at once as asked', () => {
  const tiny = {
    methods: ['reins', 'bc', 'none'],
    tasks: ['reach'],
    operators: ['expert'],
    seeds: [1],
    budgetsSimMinutes: [0.75],
    demoSimMinutes: 0.5,
    evaluationArenas: EVALUATION_ARENA_SEEDS.slice(0, 1),
    evaluationEpisodesPerArena: 2,
    trainingArenasPerSeed: 1,
    episodesPerArena: 2,
    startArgs: ['--no-world-model'],
    encoders: testEncoderManifest(),
    jobs: 2,
  } as const;

  it('fills the matrix in its order, whichever job ends first, and writes it as each budget ends', { timeout: 240_000 }, async () => {
    const written: LearningBenchOutcome[] = [];
    const outcome = await runLearningBench({ ...tiny, onProgress: (sofar) => written.push(structuredClone(sofar)) });
    expect(outcome.methods.map((method) => method.name)).toEqual(['none', 'reins', 'bc']);
    for (const method of outcome.methods) {
      const [seed] = method.tasks[0]!.operators[0]!.seeds;
      expect(seed!.budgets.map((budget) => budget.simMinutes)).toEqual([0.75]);
      expect(seed!.budgets[0]!.timeToGoal.episodes).toBeLessThanOrEqual(2);
    }
    const reins = outcome.methods[1]!.tasks[0]!.operators[0]!.seeds[0]!.budgets[0]!;
    expect(reins.learnerSteps.policy).toBeGreaterThan(0);
    expect(reins.wallMinutes).toBeGreaterThan(0);
    expect(outcome.operatorsAlone).toEqual([expect.objectContaining({ task: 'reach', operator: 'expert' })]);
    expect(outcome.crossTask.map((cross) => cross.to)).toEqual(['dock', 'corridor']);
    expect(outcome.hyperparameters).toMatchObject({ jobs: { atOnce: 2 } });
    // Reins and bc paired on the same two evaluation episodes.
    const bc = outcome.methods[2]!.tasks[0]!.operators[0]!.seeds[0]!.budgets[0]!;
    expect(outcome.comparisons).toEqual([
      expect.objectContaining({ task: 'reach', operator: 'expert', simMinutes: 0.75, seeds: [1], episodes: 2, reins: reins.successRate, bc: bc.successRate }),
    ]);
    expect(outcome.comparisons[0]!.difference).toBeCloseTo(reins.successRate - bc.successRate, 9);
    expect(outcome.results.map((row) => row.name)).toContain('reins-minus-bc-reach-expert-success-0.75min');
    // Written after the operator alone, none, each stream's budget and each cross-task evaluation.
    expect(written).toHaveLength(6);
    expect(written.at(-1)!.results).toEqual(outcome.results);
    expect(liveJobProcesses()).toBe(0);
  });

  it(
    'teaches a sequence of tasks in one stream with the off-policy critics on, evaluating every task taught so far after each budget',
    { timeout: 240_000 },
    async () => {
      const outcome = await runLearningBench({
        ...tiny,
        methods: ['reins'],
        sequence: ['reach', 'dock'],
        budgetsSimMinutes: [0.75, 1],
        learner: { critic: { critics: 2, hidden: 32, warmupUpdates: 0, updatesPerTransition: 0.05, batch: 32 } },
      });
      const [sequence] = outcome.sequence!;
      expect(sequence!.evaluations.map(({ task, simMinutes }) => `${task}@${simMinutes}`)).toEqual(['reach@0.75', 'reach@1', 'dock@1']);
      expect(sequence!.forgetting).toMatchObject({ task: 'reach', beforeSimMinutes: 0.75, afterSimMinutes: 1, episodes: 2 });
      expect(Number.isFinite(sequence!.forgetting!.standardError)).toBe(true);
      const budgets = outcome.methods[0]!.tasks[0]!.operators[0]!.seeds[0]!.budgets;
      expect(budgets.map((budget) => budget.simMinutes)).toEqual([0.75, 1]);
      expect(budgets.at(-1)!.learnerSteps.policy).toBeGreaterThan(0);
      expect(budgets.at(-1)!.candidates).toBeGreaterThan(0);
      expect(outcome.crossTask).toEqual([]);
      expect(outcome.hyperparameters).toMatchObject({ streams: { learner: { critic: { critics: 2 } }, sequence: { tasks: ['reach', 'dock'] } } });
    },
  );

  it('fails naming the job that failed, and leaves no job running', { timeout: 120_000 }, async () => {
    const run = runLearningBench({ ...tiny, encoders: '/nonexistent/encoders.json' });
    await expect(run).rejects.toThrow(/(the expert operator alone|none) on reach failed: .*nonexistent/s);
    await vi.waitFor(() => expect(liveJobProcesses()).toBe(0), { timeout: 30_000, interval: 50 });
  });
});

describe('reins bench learning refuses bad options, naming them', () => {
  const options = (...args: string[]) => learningOptions(parseBenchArgs(['learning', ...args]));

  it.each([
    [['--task', 'nope'], /unknown task "nope"/],
    [['--seeds', '0'], /--seeds .*"0"/],
    [['--budgets', '5,x'], /--budgets .*"x"/],
    [['--operator', 'robot'], /unknown operator "robot"/],
    [['--methods', 'reins,magic'], /unknown method "magic"/],
    [['--budgets', '10,5'], /--budgets must rise/],
    [['--jobs', '0'], /--jobs .*"0"/],
    [['--jobs', '1.5'], /--jobs .*"1.5"/],
    [['--learner', '{"critic":'], /--learner takes a JSON object/],
    [['--learner', '[1]'], /--learner takes a JSON object/],
    [['--learner', '{"critc":{}}'], /unknown setting "critc"/],
    [['--learner', '{"critic":{"critics":1}}'], /at least 2 critics/],
    [['--sequence', 'reach'], /at least two different tasks/],
    [['--sequence', 'reach,nope', '--budgets', '5,10'], /unknown task "nope" in the sequence/],
    [['--sequence', 'reach,dock', '--budgets', '10'], /needs a budget for each/],
    [['--eval-episodes', '25'], /--eval-episodes must be a multiple of the 10 held-out arenas/],
    [['--eval-episodes', '0'], /--eval-episodes .*"0"/],
  ])('%j', (args, message) => {
    expect(() => options(...args)).toThrow(UsageError);
    expect(() => options(...args)).toThrow(message);
  });

  it('keeps the learning options to the learning bench, and takes a good selection', () => {
    expect(() => parseBenchArgs(['tick', '--task', 'dock'])).toThrow(/--task apply only to reins bench learning/);
    expect(() => parseBenchArgs(['learning', '--save', 'x.v8'])).toThrow(/--save and --from apply only to reins bench critic and worldmodel/);
    expect(options('--learner', '{"critic":{"critics":2}}').learner).toEqual({ critic: { critics: 2 } });
    expect(options('--operator', 'expert', '--eval-episodes', '200').evaluationEpisodesPerArena).toBe(20);
    expect(() => parseBenchArgs(['memory', '--eval-episodes', '200'])).toThrow(/--eval-episodes apply only to reins bench learning/);
    expect(options('--task', 'dock,corridor', '--seeds', '3', '--budgets', '5,7.5', '--jobs', '3')).toMatchObject({
      tasks: ['dock', 'corridor'],
      seeds: [3],
      budgetsSimMinutes: [5, 7.5],
      operators: ['realistic'],
      jobs: 3,
    });
    expect(options().jobs).toBe(availableParallelism());
  });
});
