// `reins bench SUITE [--json FILE]`.
import type { BenchArgs } from '../main.ts';
import { UsageError } from '../robotSpec.ts';
import { runBridgeBench } from './bridgeBench.ts';
import { machineFacts, writeReport, type BenchRow } from './report.ts';
import { runSimBench } from './simBench.ts';
import { runTickBench } from './tickBench.ts';
import { runUiBench } from './uiBench.ts';

const SUITES: Record<string, () => Promise<BenchRow[]> | BenchRow[]> = {
  tick: () => runTickBench(),
  sim: () => runSimBench(),
  bridge: () => runBridgeBench(),
  ui: () => runUiBench(),
};

export async function runBench(args: BenchArgs): Promise<number> {
  const suite = SUITES[args.suite];
  if (!suite) throw new UsageError(`unknown bench suite "${args.suite}"; suites: ${Object.keys(SUITES).join(', ')}`);
  const results = await suite();
  writeReport({ suite: args.suite, machine: machineFacts(), results }, args.jsonPath);
  return 0;
}
