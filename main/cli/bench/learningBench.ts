// `reins bench learning` (issues 8 and 26): does learning from the operator make a policy that drives
// on its own, better than cloning the operator? Each training stream runs the product itself — the core
// as `reins start` composes it, in lockstep on the simulated robot (learningStream.ts) — with a
// scripted operator at the cockpit. Methods:
//   reins — the core as it ships (its learner, questions, slow path, auto-promote on the simulated robot);
//   bc    — the same core with only the training signal changed: cloning of every operator tick
//           (HG-DAgger), and no questions;
//   none  — `reins start`'s first policy, evaluated, never streamed.
// After each budget of simulated minutes the driving version is evaluated on a fixed held-out set per
// task, on a core with no memory and no learner (learningEvaluation.ts). Each operator also drives the
// set alone, so the policy's time-to-goal stands beside its teacher's. Each evaluation, and each stream
// with its evaluations, runs in a process of its own, as many at once as the machine has cores
// (learningJobs.ts, `--jobs`).
import { availableParallelism } from 'node:os';
import pLimit from 'p-limit';
import { parseStartArgs } from '../args.ts';
import type { StartArgs } from '../../session/startArgs.ts';
import { EVALUATION_ARENA_SEEDS } from '../../sim/arenaSeeds.ts';
import { isSimOperatorName, SIM_OPERATORS, type SimOperatorName } from '../../sim/operators/createOperator.ts';
import { isSimTaskName, SIM_TASKS, type SimTaskName } from '../../sim/tasks/taskNames.ts';
import { median, pairedSuccess, pairedTimeToGoal, type EvaluationOutcome, type PairedSuccess } from './learningEvaluation.ts';
import { describeJob, runJobProcess, stopJobProcesses, type LearningJob, type StreamFigures } from './learningJobs.ts';
import type { BenchRow } from './report.ts';
import { learnerOverrides, type PolicyLearnerOptions } from '../../session/learningParts.ts';

export const LEARNING_METHODS = ['reins', 'bc', 'none'] as const;
export type BenchMethod = (typeof LEARNING_METHODS)[number];

/** The bench's selection and settings: plain data, handed to every job's process as it is. */
export interface LearningBenchSettings {
  methods: readonly BenchMethod[];
  tasks: readonly SimTaskName[];
  operators: readonly SimOperatorName[];
  /** Each seed sets the training arenas, start poses, operator noise and initial weights of a stream. */
  seeds: readonly number[];
  /** Simulated minutes of training after which each stream's driving version is evaluated. */
  budgetsSimMinutes: readonly number[];
  evaluationArenas: readonly number[];
  evaluationEpisodesPerArena: number;
  trainingArenasPerSeed: number;
  /** Episodes in one training arena before the robot is carried to the next. */
  episodesPerArena: number;
  /** The operator drives alone (autonomy off) for this long at the start of each stream. */
  demoSimMinutes: number;
  /** `reins start` arguments beyond its defaults, for every core of the run (listed in the hyperparameters). */
  startArgs: readonly string[];
  /** The encoder manifest; undefined: `reins start`'s default. */
  encoders: string | undefined;
  /** Jobs (an evaluation, or a stream with its evaluations) run at once, each in a process of its own. */
  jobs: number;
  /**
   * `--sequence reach,dock`: each stream teaches these tasks in turn in one session, budget by budget
   * (the i-th budget ends the i-th task; the last task goes on), and after each budget the driving version
   * is evaluated on every task taught so far; undefined: one task per stream.
   */
  sequence?: readonly SimTaskName[];
  /** The policy learner's settings for Reins' streams beyond its defaults (`--learner JSON`; listed in the hyperparameters). */
  learner: Partial<PolicyLearnerOptions>;
}

export interface LearningBenchOptions extends LearningBenchSettings {
  /** Told after every evaluated budget, with the figures so far (the bench writes its JSON then). */
  onProgress?: (outcome: LearningBenchOutcome) => void;
}

export const DEFAULT_LEARNING_BENCH_OPTIONS: Readonly<LearningBenchSettings> = Object.freeze({
  methods: LEARNING_METHODS,
  tasks: SIM_TASKS,
  operators: ['realistic'] as const,
  seeds: [1, 2],
  budgetsSimMinutes: [5, 10, 20],
  evaluationArenas: EVALUATION_ARENA_SEEDS,
  evaluationEpisodesPerArena: 5,
  trainingArenasPerSeed: 5,
  episodesPerArena: 4,
  demoSimMinutes: 3,
  startArgs: [],
  learner: {},
  encoders: undefined,
  // One job a core: a stream's learner keeps one busy and its loop waits on it (docs/learning.md).
  jobs: availableParallelism(),
});

/** A budget's figures: the stream's counts (learningJobs.ts) and its evaluation, paired with the operator alone. */
export interface BudgetFigures extends StreamFigures {
  successRate: number;
  /** Evaluation episodes that ended in a collision, and in the time limit. */
  collisions: number;
  timeouts: number;
  /** Median time-to-goal of the policy and of the operator alone, over the evaluation episodes both finished. */
  timeToGoal: { policySecs: number | undefined; operatorSecs: number | undefined; episodes: number };
}

export interface SeedFigures {
  seed: number;
  budgets: BudgetFigures[];
}

export interface OperatorFigures {
  operator: SimOperatorName;
  seeds: SeedFigures[];
}

export interface TaskFigures {
  task: SimTaskName;
  operators: OperatorFigures[];
}

export interface MethodFigures {
  name: BenchMethod;
  tasks: TaskFigures[];
}

export interface AloneFigures {
  task: SimTaskName;
  operator: SimOperatorName;
  successRate: number;
  medianTimeToGoalSecs: number | undefined;
  collisions: number;
  timeouts: number;
}

/** A policy taught on one task, evaluated on another (Reins' `reach` policy on `dock` and `corridor`). */
export interface CrossTaskFigures {
  from: SimTaskName;
  to: SimTaskName;
  operator: SimOperatorName;
  seed: number;
  simMinutes: number;
  successRate: number;
}

export interface LearningBenchOutcome {
  results: BenchRow[];
  methods: MethodFigures[];
  operatorsAlone: AloneFigures[];
  crossTask: CrossTaskFigures[];
  hyperparameters: Record<string, unknown>;
  /** `--sequence`: each stream's evaluations of the tasks taught so far, and the first task's before/after pairing. */
  sequence?: SequenceFigures[];
  /** Reins against `bc` on the same evaluation episodes, wherever both were evaluated (seeds pooled). */
  comparisons: MethodComparison[];
}

/**
 * Reins' success against `bc`'s at one task, operator and budget, episode by episode on the same
 * evaluation set, every seed both ran pooled (issue 27's test with the expert operator).
 */
export interface MethodComparison extends Omit<PairedSuccess, 'a' | 'b'> {
  task: SimTaskName;
  operator: SimOperatorName;
  simMinutes: number;
  seeds: number[];
  /** Success over the pooled episodes. */
  reins: number;
  bc: number;
  /** The difference (Reins − bc) in Reins' favour or within two standard errors of zero. */
  notWorse: boolean;
}

export interface SequenceFigures {
  method: BenchMethod;
  operator: SimOperatorName;
  seed: number;
  evaluations: Array<{ task: SimTaskName; simMinutes: number; successRate: number }>;
  /**
   * The first task's success right after it was taught and at the end of the sequence, episode by episode
   * on the same set (paired): the mean difference (after − before) and its standard error.
   */
  forgetting?: {
    task: SimTaskName;
    beforeSimMinutes: number;
    afterSimMinutes: number;
    before: number;
    after: number;
    difference: number;
    standardError: number;
    episodes: number;
  };
}

export async function runLearningBench(given: Partial<LearningBenchOptions> = {}): Promise<LearningBenchOutcome> {
  const options: LearningBenchOptions = { ...DEFAULT_LEARNING_BENCH_OPTIONS, ...given };
  checkLearningOptions(options);
  const { onProgress, ...settings } = options;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const outcome: LearningBenchOutcome = {
    results: [],
    methods: [],
    operatorsAlone: [],
    crossTask: [],
    hyperparameters: hyperparameters(options),
    comparisons: [],
  };
  // Every stream's evaluation at every budget, for the paired comparisons.
  const evaluations = new Map<string, EvaluationOutcome>();
  const evaluated = (job: LearningJob & { kind: 'stream' }, simMinutes: number, result: EvaluationOutcome) => {
    evaluations.set(evaluationKey(job.method, job.task, job.operator, job.seed, simMinutes), result);
    outcome.comparisons = methodComparisons(evaluations, options);
  };
  const progress = () => {
    // Jobs finish in any order; the figures keep the matrix's.
    const taskOrder = (task: SimTaskName) => options.tasks.indexOf(task);
    outcome.operatorsAlone.sort(
      (a, b) => taskOrder(a.task) - taskOrder(b.task) || options.operators.indexOf(a.operator) - options.operators.indexOf(b.operator),
    );
    outcome.crossTask.sort((a, b) => a.seed - b.seed || SIM_TASKS.indexOf(a.to) - SIM_TASKS.indexOf(b.to));
    outcome.results = rowsOf(outcome);
    onProgress?.(outcome);
  };
  const methodFigures = (name: BenchMethod) => {
    let found = outcome.methods.find((method) => method.name === name);
    if (!found) outcome.methods.push((found = { name, tasks: [] }));
    return found;
  };
  const seedFigures = (method: BenchMethod, task: SimTaskName, operator: SimOperatorName, seed: number) => {
    const forMethod = methodFigures(method);
    let forTask = forMethod.tasks.find((entry) => entry.task === task);
    if (!forTask) forMethod.tasks.push((forTask = { task, operators: [] }));
    let forOperator = forTask.operators.find((entry) => entry.operator === operator);
    if (!forOperator) forTask.operators.push((forOperator = { operator, seeds: [] }));
    const figures: SeedFigures = { seed, budgets: [] };
    forOperator.seeds.push(figures);
    return figures;
  };
  const evaluation = (job: LearningJob & { kind: 'alone' | 'none' }) =>
    new Promise<{ evaluation: EvaluationOutcome; wallMinutes: number }>((resolve, reject) => {
      let result: { evaluation: EvaluationOutcome; wallMinutes: number } | undefined;
      runJobProcess(job, settings, (report) => {
        if (report.type !== 'evaluated') throw new Error(`unexpected report "${report.type}"`);
        result = report;
      }).then(() => (result ? resolve(result) : reject(new Error(`${describeJob(job)} ended without its evaluation`))), reject);
    });

  // Every job is a process of its own, `jobs` at once, in the matrix's order; a stream waits for its
  // operator's evaluation alone (its time-to-goal is paired with it).
  const slots = pLimit(options.jobs);
  const work: Array<Promise<unknown>> = [];
  for (const task of options.tasks) {
    const alone = new Map<SimOperatorName, Promise<EvaluationOutcome>>();
    for (const operator of options.operators) {
      const done = slots(() => evaluation({ kind: 'alone', task, operator, seed: options.seeds[0]! })).then(({ evaluation: result, wallMinutes }) => {
        const times = result.episodes.flatMap((episode) => (episode.timeToGoalSecs === undefined ? [] : [episode.timeToGoalSecs]));
        outcome.operatorsAlone.push({
          task,
          operator,
          successRate: result.successRate,
          medianTimeToGoalSecs: median(times),
          collisions: result.collisions,
          timeouts: result.timeouts,
        });
        log(
          `learning: ${operator} operator alone on ${task}: success ${result.successRate.toFixed(2)}, median time-to-goal ${median(times)?.toFixed(1) ?? '–'} s (${wallMinutes.toFixed(2)} wall min)`,
        );
        progress();
        return result;
      });
      alone.set(operator, done);
      work.push(done);
    }
    if (options.methods.includes('none')) {
      // `reins start`'s first policy does not learn and has no seed: one evaluation stands for every stream and budget.
      const figures = options.operators.flatMap((operator) => options.seeds.map((seed) => ({ operator, figures: seedFigures('none', task, operator, seed) })));
      const untrained = slots(() => evaluation({ kind: 'none', task }));
      work.push(
        Promise.all([untrained, ...alone.values()]).then(async ([{ evaluation: result, wallMinutes }]) => {
          for (const { operator, figures: seed } of figures) {
            const byOperator = await alone.get(operator)!;
            for (const simMinutes of options.budgetsSimMinutes) seed.budgets.push(untrainedFigures(simMinutes, result, byOperator));
          }
          log(
            `learning: none on ${task}: success ${result.successRate.toFixed(2)} (${result.collisions} collisions, ${result.timeouts} timeouts; ${wallMinutes.toFixed(2)} wall min)`,
          );
          progress();
        }),
      );
    }
    for (const operator of options.operators)
      for (const seed of options.seeds)
        for (const method of options.methods) {
          if (method === 'none') continue;
          const figures = seedFigures(method, task, operator, seed);
          const job = { kind: 'stream', method, task, operator, seed, ...(options.sequence ? { sequence: options.sequence } : {}) } as const;
          const sequence = options.sequence ? sequenceFigures(outcome, method, operator, seed) : undefined;
          work.push(
            alone.get(operator)!.then((byOperator) => slots(() => runStream(job, settings, byOperator, figures, outcome, progress, log, evaluated, sequence))),
          );
        }
  }
  try {
    await Promise.all(work);
  } catch (error) {
    slots.clearQueue();
    stopJobProcesses();
    throw error;
  }
  outcome.results = rowsOf(outcome);
  return outcome;
}

/** One training stream in its own process: each budget's figures paired with the operator alone, as they come. */
function runStream(
  job: LearningJob & { kind: 'stream' },
  settings: LearningBenchSettings,
  alone: EvaluationOutcome,
  figures: SeedFigures,
  outcome: LearningBenchOutcome,
  progress: () => void,
  log: (line: string) => void,
  evaluated: (job: LearningJob & { kind: 'stream' }, simMinutes: number, evaluation: EvaluationOutcome) => void,
  sequence?: SequenceFigures,
): Promise<void> {
  const { method, task, operator, seed } = job;
  const sequenceEpisodes = new Map<string, EvaluationOutcome>();
  return runJobProcess(job, settings, (report) => {
    if (report.type === 'sequence-evaluation' && sequence) {
      sequence.evaluations.push({ task: report.task, simMinutes: report.simMinutes, successRate: report.evaluation.successRate });
      sequenceEpisodes.set(`${report.task}@${report.simMinutes}`, report.evaluation);
      sequence.forgetting = forgettingOf(sequence, sequenceEpisodes, settings);
      log(
        `learning: ${method} ${job.sequence!.join(' then ')}, seed ${seed}, at ${report.simMinutes} sim min: ${report.task} success ${report.evaluation.successRate.toFixed(2)}`,
      );
      progress();
      return;
    }
    if (report.type === 'budget') {
      const { evaluation, simMinutes, wallMinutes, ...counts } = report.budget;
      const budget: BudgetFigures = {
        simMinutes,
        wallMinutes,
        successRate: evaluation.successRate,
        collisions: evaluation.collisions,
        timeouts: evaluation.timeouts,
        timeToGoal: pairedTimeToGoal(evaluation.episodes, alone.episodes),
        ...counts,
      };
      figures.budgets.push(budget);
      evaluated(job, simMinutes, evaluation);
      log(
        `learning: ${method} ${task} ${operator} seed ${seed} at ${simMinutes} sim min: success ${budget.successRate.toFixed(2)} (${budget.collisions} collisions, ${budget.timeouts} timeouts), ` +
          `${budget.interventions} interventions, ${budget.answers} answers of ${budget.questionsAsked} asked, ${budget.ratings} ratings, ` +
          `time-to-goal ${budget.timeToGoal.policySecs?.toFixed(1) ?? '–'} s against the operator's ${budget.timeToGoal.operatorSecs?.toFixed(1) ?? '–'} s (${budget.timeToGoal.episodes} episodes), ` +
          `${budget.wallMinutes.toFixed(2)} wall min, ${budget.learnerSteps.policy} policy / ${budget.learnerSteps.worldModel} world-model steps, ${budget.policyVersion}${budget.candidatesRefused ? `, ${budget.candidatesRefused} of ${budget.candidates} candidates refused` : ''}`,
      );
    } else if (report.type === 'cross-task') {
      outcome.crossTask.push({ from: task, to: report.to, operator, seed, simMinutes: report.simMinutes, successRate: report.successRate });
      log(`learning: reins' ${report.simMinutes}-minute ${task} policy (seed ${seed}) on ${report.to}: success ${report.successRate.toFixed(2)}`);
    } else throw new Error(`unexpected report "${report.type}"`);
    progress();
  });
}

function untrainedFigures(simMinutes: number, result: EvaluationOutcome, alone: EvaluationOutcome): BudgetFigures {
  return {
    simMinutes,
    wallMinutes: 0,
    successRate: result.successRate,
    collisions: result.collisions,
    timeouts: result.timeouts,
    timeToGoal: pairedTimeToGoal(result.episodes, alone.episodes),
    interventions: 0,
    answers: 0,
    ratings: 0,
    questionsAsked: 0,
    answersSkipped: 0,
    takeovers: 0,
    takeoversFollowedByCollision: 0,
    trainingCollisions: 0,
    trainingEpisodes: 0,
    learnerSteps: { policy: 0, worldModel: 0 },
    policyVersion: 'v1 (reins start’s first policy)',
    refused: 0,
  };
}

/** `reins start`'s arguments for a stream's core (memory in its folder, no recording) or, without a folder, for an evaluation core (no memory). */
export function startArgsFor(options: LearningBenchSettings, folder: string | undefined): StartArgs {
  return parseStartArgs([
    '--robot',
    'sim',
    '--no-record',
    ...(folder === undefined ? ['--no-memory'] : ['--memory', `${folder}/memory`]),
    ...(options.encoders === undefined ? [] : ['--encoders', options.encoders]),
    ...options.startArgs,
  ]);
}

export function checkLearningOptions(options: LearningBenchSettings): void {
  const list = (values: readonly unknown[]) => values.map(String).join(', ');
  for (const method of options.methods)
    if (!LEARNING_METHODS.includes(method)) throw new RangeError(`unknown method "${method}"; methods: ${LEARNING_METHODS.join(', ')}`);
  for (const task of options.tasks) if (!isSimTaskName(task)) throw new RangeError(`unknown task "${task}"; tasks: ${SIM_TASKS.join(', ')}`);
  for (const operator of options.operators)
    if (!isSimOperatorName(operator)) throw new RangeError(`unknown operator "${operator}"; operators: ${SIM_OPERATORS.join(', ')}`);
  if (options.methods.length === 0 || options.tasks.length === 0 || options.operators.length === 0)
    throw new RangeError('the bench needs at least one method, task and operator');
  if (options.seeds.length === 0 || options.seeds.some((seed) => !(Number.isInteger(seed) && seed >= 1)))
    throw new RangeError(`seeds must be whole numbers ≥ 1, got ${list(options.seeds)}`);
  const budgets = options.budgetsSimMinutes;
  if (budgets.length === 0 || budgets.some((m, i) => !(Number.isFinite(m) && m > 0) || (i > 0 && m <= budgets[i - 1]!)))
    throw new RangeError(`budgets must be rising simulated minutes > 0, got ${list(budgets)}`);
  if (!(budgets[0]! > options.demoSimMinutes))
    throw new RangeError(`the first budget (${budgets[0]} sim min) must come after the operator's demonstration (${options.demoSimMinutes} sim min)`);
  for (const [name, value] of [
    ['evaluationEpisodesPerArena', options.evaluationEpisodesPerArena],
    ['trainingArenasPerSeed', options.trainingArenasPerSeed],
    ['episodesPerArena', options.episodesPerArena],
    ['jobs', options.jobs],
  ] as const) {
    if (!(Number.isInteger(value) && value >= 1)) throw new RangeError(`${name} must be a whole number ≥ 1, got ${value}`);
  }
  if (options.evaluationArenas.length === 0) throw new RangeError('the evaluation needs at least one arena');
  learnerOverrides(options.learner as Record<string, unknown>);
  const sequence = options.sequence;
  if (sequence !== undefined) {
    for (const task of sequence) if (!isSimTaskName(task)) throw new RangeError(`unknown task "${task}" in the sequence; tasks: ${SIM_TASKS.join(', ')}`);
    if (sequence.length < 2 || new Set(sequence).size !== sequence.length)
      throw new RangeError(`a sequence names at least two different tasks, got ${list(sequence)}`);
    if (budgets.length < sequence.length)
      throw new RangeError(`a sequence of ${sequence.length} tasks needs a budget for each (the i-th budget ends the i-th task), got ${list(budgets)}`);
    if (options.tasks.length !== 1 || options.tasks[0] !== sequence[0])
      throw new RangeError(`with a sequence the streams start on its first task (${sequence[0]}), not ${list(options.tasks)}`);
  }
}

function hyperparameters(options: LearningBenchSettings): Record<string, unknown> {
  const streamArgs = startArgsFor(options, '<stream folder>');
  return {
    matrix: {
      methods: options.methods,
      tasks: options.tasks,
      operators: options.operators,
      seeds: options.seeds,
      budgetsSimMinutes: options.budgetsSimMinutes,
    },
    jobs: {
      atOnce: options.jobs,
      how: 'each evaluation, and each stream with its evaluations, in a process of its own (learningJobs.ts); a stream’s figures do not depend on how many run at once, its wall minutes do',
    },
    streams: {
      core: 'openCoreSession (reins start’s composition) in lockstep: session/lockstepCore.ts',
      startArgs: ['--robot', 'sim', '--no-record', '--memory', '<stream folder>/memory', ...options.startArgs],
      rateHz: streamArgs.rateHz,
      worldModel: streamArgs.worldModel.preset === undefined ? 'off' : streamArgs.worldModel,
      openblasCore: process.env.OPENBLAS_CORETYPE ?? 'OpenBLAS’s own choice (openblasCore.ts named none)',
      encoders: streamArgs.encoders ?? 'reins start’s default manifest',
      autoPromote: 'on (the simulated robot)',
      demoSimMinutes: options.demoSimMinutes,
      trainingArenasPerSeed: options.trainingArenasPerSeed,
      episodesPerArena: options.episodesPerArena,
      learner: { ...options.learner },
      ...(options.sequence
        ? {
            sequence: {
              tasks: options.sequence,
              how: 'the i-th budget ends the i-th task; after each, the driving version is evaluated on every task taught so far',
            },
          }
        : {}),
      bc: 'the same core, actor, steps and slow path with the learner’s method set to bc (cloning of every operator tick, HG-DAgger); the operator turns questions off',
    },
    evaluation: {
      core: 'no memory, no learner: session/evaluationCore.ts',
      arenas: options.evaluationArenas,
      episodesPerArena: options.evaluationEpisodesPerArena,
    },
  };
}

function evaluationKey(method: BenchMethod, task: SimTaskName, operator: SimOperatorName, seed: number, simMinutes: number): string {
  return `${method}|${task}|${operator}|${seed}|${simMinutes}`;
}

/** Reins against `bc` wherever both were evaluated at the same task, operator, seed and budget; the seeds pooled. */
function methodComparisons(evaluations: ReadonlyMap<string, EvaluationOutcome>, settings: LearningBenchSettings): MethodComparison[] {
  const comparisons: MethodComparison[] = [];
  for (const task of settings.tasks)
    for (const operator of settings.operators)
      for (const simMinutes of settings.budgetsSimMinutes) {
        const pairs = settings.seeds.flatMap((seed) => {
          const reins = evaluations.get(evaluationKey('reins', task, operator, seed, simMinutes));
          const bc = evaluations.get(evaluationKey('bc', task, operator, seed, simMinutes));
          return reins && bc ? [{ seed, sets: [reins, bc] as const }] : [];
        });
        if (pairs.length === 0) continue;
        const { a: reins, b: bc, ...paired } = pairedSuccess(pairs.map((pair) => pair.sets));
        comparisons.push({
          task,
          operator,
          simMinutes,
          seeds: pairs.map((pair) => pair.seed),
          reins,
          bc,
          ...paired,
          notWorse: paired.difference >= -2 * paired.standardError,
        });
      }
  return comparisons;
}

/** DESIGN §1's rows: success per method, task, operator and budget (mean over seeds), each operator alone, and Reins less `bc` where paired. */
function rowsOf(outcome: LearningBenchOutcome): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const method of outcome.methods)
    for (const task of method.tasks)
      for (const operator of task.operators) {
        const simMinutes = [...new Set(operator.seeds.flatMap((seed) => seed.budgets.map((budget) => budget.simMinutes)))];
        for (const minutes of simMinutes) {
          const values = operator.seeds.flatMap((seed) => seed.budgets.filter((budget) => budget.simMinutes === minutes).map((budget) => budget.successRate));
          rows.push({
            name: `${method.name}-${task.task}-${operator.operator}-success-${minutes}min`,
            unit: 'fraction',
            p50: null,
            p95: null,
            p99: null,
            value: mean(values),
          });
        }
      }
  for (const alone of outcome.operatorsAlone)
    rows.push({ name: `${alone.operator}-alone-${alone.task}-success`, unit: 'fraction', p50: null, p95: null, p99: null, value: alone.successRate });
  for (const comparison of outcome.comparisons)
    rows.push({
      name: `reins-minus-bc-${comparison.task}-${comparison.operator}-success-${comparison.simMinutes}min`,
      unit: 'fraction',
      p50: null,
      p95: null,
      p99: null,
      value: comparison.difference,
    });
  return rows;
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}

function spread(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const average = mean(values);
  return Math.sqrt(values.reduce((sum, value) => sum + (value - average) ** 2, 0) / (values.length - 1));
}

function minutesSince(startedMs: number): string {
  return ((performance.now() - startedMs) / 60_000).toFixed(2);
}

/** The figures as a table: per method, task, operator and budget, mean ± spread over seeds. */
export function formatLearningTable(
  outcome: Pick<LearningBenchOutcome, 'methods' | 'operatorsAlone' | 'crossTask'> & Partial<Pick<LearningBenchOutcome, 'comparisons'>>,
): string {
  const header = [
    'method',
    'task',
    'operator',
    'sim min',
    'seeds',
    'success',
    'interventions',
    'answers',
    'collisions',
    'timeouts',
    'ttg policy/op s',
    'wall min',
  ];
  const rows: string[][] = [];
  for (const method of outcome.methods)
    for (const task of method.tasks)
      for (const operator of task.operators) {
        const minutes = [...new Set(operator.seeds.flatMap((seed) => seed.budgets.map((budget) => budget.simMinutes)))];
        for (const simMinutes of minutes) {
          const budgets = operator.seeds.flatMap((seed) => seed.budgets.filter((budget) => budget.simMinutes === simMinutes));
          const of = (pick: (budget: BudgetFigures) => number) => budgets.map(pick);
          const success = of((budget) => budget.successRate);
          const policyTimes = budgets.flatMap((budget) => (budget.timeToGoal.policySecs === undefined ? [] : [budget.timeToGoal.policySecs]));
          const operatorTimes = budgets.flatMap((budget) => (budget.timeToGoal.operatorSecs === undefined ? [] : [budget.timeToGoal.operatorSecs]));
          rows.push([
            method.name,
            task.task,
            operator.operator,
            String(simMinutes),
            String(budgets.length),
            `${mean(success).toFixed(2)} ± ${spread(success).toFixed(2)}`,
            mean(of((budget) => budget.interventions)).toFixed(1),
            mean(of((budget) => budget.answers)).toFixed(1),
            mean(of((budget) => budget.collisions)).toFixed(1),
            mean(of((budget) => budget.timeouts)).toFixed(1),
            `${policyTimes.length ? mean(policyTimes).toFixed(1) : '–'}/${operatorTimes.length ? mean(operatorTimes).toFixed(1) : '–'}`,
            mean(of((budget) => budget.wallMinutes)).toFixed(2),
          ]);
        }
      }
  for (const alone of outcome.operatorsAlone)
    rows.push([
      `${alone.operator} alone`,
      alone.task,
      alone.operator,
      '–',
      '1',
      alone.successRate.toFixed(2),
      '–',
      '–',
      String(alone.collisions),
      String(alone.timeouts),
      `–/${alone.medianTimeToGoalSecs?.toFixed(1) ?? '–'}`,
      '–',
    ]);
  for (const cross of outcome.crossTask)
    rows.push([
      `reins ${cross.from}→${cross.to}`,
      cross.to,
      cross.operator,
      String(cross.simMinutes),
      `seed ${cross.seed}`,
      cross.successRate.toFixed(2),
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
    ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const compared = (outcome.comparisons ?? []).map(
    (c) =>
      `reins − bc, ${c.task}, ${c.operator} operator, ${c.simMinutes} sim min, seeds ${c.seeds.join(', ')}: ${c.reins.toFixed(3)} against ${c.bc.toFixed(3)}, ` +
      `paired difference ${c.difference >= 0 ? '+' : ''}${c.difference.toFixed(3)} ± ${c.standardError.toFixed(3)} (${c.episodes} episodes): ${c.notWorse ? 'not worse' : 'worse'}`,
  );
  return [line(header), ...rows.map(line), ...(compared.length ? ['', ...compared] : [])].join('\n');
}

function sequenceFigures(outcome: LearningBenchOutcome, method: BenchMethod, operator: SimOperatorName, seed: number): SequenceFigures {
  const figures: SequenceFigures = { method, operator, seed, evaluations: [] };
  (outcome.sequence ??= []).push(figures);
  return figures;
}

/**
 * The sequence's first task right after its own budget and at the latest budget, paired episode by
 * episode on the same evaluation set: success after − before, mean and standard error.
 */
function forgettingOf(figures: SequenceFigures, episodes: Map<string, EvaluationOutcome>, settings: LearningBenchSettings): SequenceFigures['forgetting'] {
  const task = settings.sequence![0]!;
  const beforeSimMinutes = settings.budgetsSimMinutes[0]!;
  const afterSimMinutes = Math.max(...figures.evaluations.filter((entry) => entry.task === task).map((entry) => entry.simMinutes));
  const before = episodes.get(`${task}@${beforeSimMinutes}`);
  const after = episodes.get(`${task}@${afterSimMinutes}`);
  if (before === undefined || after === undefined || afterSimMinutes === beforeSimMinutes) return undefined;
  const { a, b, ...paired } = pairedSuccess([[after, before]]);
  return { task, beforeSimMinutes, afterSimMinutes, before: b, after: a, ...paired };
}
