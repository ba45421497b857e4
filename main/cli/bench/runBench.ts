// `reins bench SUITE [--json FILE]`.
import type { BenchArgs } from '../args.ts';
import { UsageError } from '../usageError.ts';
import { runBridgeBench } from './bridgeBench.ts';
import { runMemoryBench } from './memoryBench.ts';
import { runPerceptionBench } from './perceptionBench.ts';
import { runRecordingBench } from './recordingBench.ts';
import { formatLearningTable, runLearningBench } from './learningBench.ts';
import { machineFacts, writeReport, type BenchRow } from './report.ts';
import { runSimBench } from './simBench.ts';
import { runTickBench } from './tickBench.ts';
import { runUiBench } from './uiBench.ts';
import { runWorldModelBench } from './worldModelBench.ts';

const SUITES: Record<string, (args: BenchArgs) => Promise<BenchRow[]> | BenchRow[]> = {
  tick: (args) => runTickBench({ ...encodersOf(args) }),
  perception: (args) => runPerceptionBench({ ...encodersOf(args) }),
  memory: (args) => runMemoryBench({ ...encodersOf(args) }),
  sim: () => runSimBench(),
  bridge: () => runBridgeBench(),
  ui: () => runUiBench(),
  worldmodel: () => runWorldModelBench(),
  recording: () => runRecordingBench(),
};

/** `--encoders` and `--encoder-threads`, for the suites that run the encoders. */
function encodersOf(args: BenchArgs) {
  return {
    ...(args.encoders === undefined ? {} : { encoders: args.encoders }),
    perception: args.encoderThreads === undefined ? {} : { intraOpThreads: args.encoderThreads },
  };
}

export async function runBench(args: BenchArgs): Promise<number> {
  if (args.suite === 'learning') {
    const outcome = await runLearningBench({ ...(args.encoders === undefined ? {} : { encoders: args.encoders }) });
    writeReport(
      { suite: args.suite, machine: machineFacts(), results: outcome.results, methods: outcome.methods, hyperparameters: outcome.hyperparameters },
      args.jsonPath,
      formatLearningTable(outcome.methods),
    );
    return 0;
  }
  const suite = SUITES[args.suite];
  if (!suite) throw new UsageError(`unknown bench suite "${args.suite}"; suites: ${[...Object.keys(SUITES), 'learning'].join(', ')}`);
  const results = await suite(args);
  writeReport({ suite: args.suite, machine: machineFacts(), results }, args.jsonPath);
  return 0;
}
