// `reins bench SUITE [--json FILE]`.
import type { BenchArgs } from '../args.ts';
import { UsageError } from '../usageError.ts';
import { runBridgeBench } from './bridgeBench.ts';
import { memoryBenchScale, MIN_MEMORY_BENCH_ROWS, runMemoryBench, type MemoryBenchOptions } from './memoryBench.ts';
import { runMemoryUpkeepBench } from './memoryUpkeepBench.ts';
import { runPerceptionBench } from './perceptionBench.ts';
import { runRecordingBench } from './recordingBench.ts';
import {
  checkLearningOptions,
  DEFAULT_LEARNING_BENCH_OPTIONS,
  formatLearningTable,
  runLearningBench,
  type LearningBenchOptions,
  type LearningBenchOutcome,
  type LearningBenchSettings,
} from './learningBench.ts';
import { machineFacts, writeJson, writeReport, type BenchRow } from './report.ts';
import { runSimBench } from './simBench.ts';
import { runCriticBench } from './criticBench.ts';
import { runTickBench } from './tickBench.ts';
import { runUiBench } from './uiBench.ts';
import { runWorldModelBench } from './worldModelBench.ts';

/** `reins bench critic` records one stream by default: reins, realistic, reach, seed 1, 10 simulated minutes. */
const CRITIC_BENCH_DEFAULTS: LearningBenchSettings = {
  ...DEFAULT_LEARNING_BENCH_OPTIONS,
  methods: ['reins'],
  tasks: ['reach'],
  seeds: [1],
  budgetsSimMinutes: [10],
};

const SUITES: Record<string, (args: BenchArgs) => Promise<BenchRow[]> | BenchRow[]> = {
  tick: (args) => runTickBench({ ...encodersOf(args) }),
  perception: (args) => runPerceptionBench({ ...encodersOf(args) }),
  memory: (args) => runMemoryBench({ ...encodersOf(args), ...memoryOptions(args) }),
  'memory-upkeep': () => runMemoryUpkeepBench(),
  sim: () => runSimBench(),
  bridge: () => runBridgeBench(),
  ui: () => runUiBench(),
  worldmodel: (args) => runWorldModelBench(args.worldModel),
  recording: () => runRecordingBench(),
};

/** `--encoders` and `--encoder-threads`, for the suites that run the encoders. */
function encodersOf(args: BenchArgs) {
  return {
    ...(args.encoders === undefined ? {} : { encoders: args.encoders }),
    perception: args.encoderThreads === undefined ? {} : { intraOpThreads: args.encoderThreads },
  };
}

/** `--rows` and `--under-load`, checked before the long part starts. */
function memoryOptions(args: BenchArgs): Partial<MemoryBenchOptions> {
  const { rows, underLoad } = args.memory;
  if (rows !== undefined && rows < MIN_MEMORY_BENCH_ROWS) throw new UsageError(`--rows must be at least ${MIN_MEMORY_BENCH_ROWS}, got ${rows}`);
  return { ...(rows === undefined ? {} : memoryBenchScale(rows)), ...(underLoad === undefined ? {} : { underLoad }) };
}

export async function runBench(args: BenchArgs): Promise<number> {
  if (args.suite === 'learning') {
    const machine = machineFacts();
    const report = (outcome: LearningBenchOutcome) => ({ suite: args.suite, machine, ...outcome });
    const options = learningOptions(args);
    let outcome: LearningBenchOutcome;
    try {
      outcome = await runLearningBench({
        ...options,
        // Written as each budget finishes: a long run that is stopped still leaves its figures.
        onProgress: (sofar) => writeJson(report(sofar), args.jsonPath),
      });
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(error.message);
      throw error;
    }
    writeReport(report(outcome), args.jsonPath, formatLearningTable(outcome));
    return 0;
  }
  if (args.suite === 'critic') {
    const options = learningOptions(args, CRITIC_BENCH_DEFAULTS);
    try {
      const { rows, figures, stream } = await runCriticBench({ settings: options, saveTo: args.learning.saveTo, readFrom: args.learning.readFrom });
      writeReport({ suite: args.suite, machine: machineFacts(), results: rows, stream, figures }, args.jsonPath);
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(error.message);
      throw error;
    }
    return 0;
  }
  const suite = SUITES[args.suite];
  if (!suite) throw new UsageError(`unknown bench suite "${args.suite}"; suites: ${[...Object.keys(SUITES), 'learning', 'critic'].join(', ')}`);
  const results = await suite(args);
  writeReport({ suite: args.suite, machine: machineFacts(), results }, args.jsonPath);
  return 0;
}

/** `--eval-episodes N` as episodes in each of the held-out arenas: N must share them out evenly. */
function episodesPerArena(episodes: number, arenas: number): number {
  if (episodes < arenas || episodes % arenas !== 0)
    throw new UsageError(`--eval-episodes must be a multiple of the ${arenas} held-out arenas (e.g. ${arenas * 20} for the paired test), got ${episodes}`);
  return episodes / arenas;
}

/** The learning bench's selection over its default matrix, checked before anything runs (a bad name or number is a UsageError). */
export function learningOptions(args: BenchArgs, defaults: LearningBenchSettings = DEFAULT_LEARNING_BENCH_OPTIONS): LearningBenchSettings {
  const { learning } = args;
  const options = {
    ...defaults,
    ...(learning.methods ? { methods: learning.methods as LearningBenchOptions['methods'] } : {}),
    ...(learning.tasks ? { tasks: learning.tasks as LearningBenchOptions['tasks'] } : {}),
    ...(learning.operators ? { operators: learning.operators as LearningBenchOptions['operators'] } : {}),
    ...(learning.seeds ? { seeds: learning.seeds } : {}),
    ...(learning.budgets ? { budgetsSimMinutes: learning.budgets } : {}),
    ...(learning.jobs ? { jobs: learning.jobs } : {}),
    ...(args.encoders === undefined ? {} : { encoders: args.encoders }),
    startArgs: learning.startArgs,
    ...(learning.learner ? { learner: learning.learner as LearningBenchSettings['learner'] } : {}),
    // A sequence starts every stream on its first task; each task is judged on 200 episodes (10 arenas × 20), the paired test's set.
    ...(learning.sequence
      ? {
          sequence: learning.sequence as LearningBenchSettings['tasks'],
          tasks: learning.sequence.slice(0, 1) as LearningBenchSettings['tasks'],
          evaluationEpisodesPerArena: 20,
        }
      : {}),
    ...(learning.evalEpisodes === undefined ? {} : { evaluationEpisodesPerArena: episodesPerArena(learning.evalEpisodes, defaults.evaluationArenas.length) }),
  };
  try {
    checkLearningOptions(options);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
  return options;
}
