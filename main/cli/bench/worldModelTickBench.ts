// `reins bench worldmodel`, row tick-with-learner: the control tick — encoders, the world model's
// filter, policy, safety — paced at the control rate on the wall clock, while the learner trains the
// default live preset at its default replay ratio in its worker thread, on the memory the loop writes.
// The process is kept for the loop as a session keeps it (session/loopFirst.ts: helper threads behind
// the loop's, the C heap trimmed between ticks); without that, LanceDB's and V8's helper threads
// competed with the loop as equals and the row's p99 read 16 ms where a session's loop sees 8–9.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { percentiles } from '../../core/util/latencyWindow.ts';
import { openEncoders } from '../../session/encoders.ts';
import { createSimLink } from '../../sim/lockstepLink.ts';
import { createControlLoop } from '../../session/loopWiring.ts';
import { keepTheLoopFirst, tuneSessionMemory } from '../../session/loopFirst.ts';
import { openSessionStores } from '../../session/sessionStores.ts';
import { DEFAULT_WORLD_MODEL_ARGS } from '../../session/worldModelOptions.ts';
import { loadWorldModel, startWorldModelLearning } from '../../session/worldModelSession.ts';
import type { BenchRow } from './report.ts';

export interface TickWithLearnerOptions {
  /** Ticks measured once the learner has taken its first training step. */
  ticks: number;
  rateHz: number;
}

export const DEFAULT_TICK_WITH_LEARNER_OPTIONS: TickWithLearnerOptions = { ticks: 1200, rateHz: 10 };
const log = (line: string) => process.stderr.write(`${line}\n`);

export async function tickWithLearnerRows(options: TickWithLearnerOptions = DEFAULT_TICK_WITH_LEARNER_OPTIONS): Promise<BenchRow[]> {
  const folder = mkdtempSync(join(tmpdir(), 'reins-bench-learner-'));
  const quiet = pino({ level: 'warn' });
  // Fixed for what this row allocates; the quality rows before it in `reins bench worldmodel` ran untuned.
  const allocator = tuneSessionMemory(quiet);
  const perception = await openEncoders();
  const live = await loadWorldModel(DEFAULT_WORLD_MODEL_ARGS, perception, quiet);
  if (live === undefined) throw new Error('the default world-model settings run no world model');
  let simTimeMs = Date.now();
  const link = createSimLink({ epochMs: simTimeMs });
  const loop = await createControlLoop(link, { rateHz: options.rateHz, clock: () => simTimeMs, perception, worldModel: live.filter });
  // A memory row per tick as `reins start` keeps them (no recording): what the learner replays.
  const stores = await openSessionStores(
    link,
    loop,
    perception,
    { record: false, recordings: undefined, remember: true, memory: join(folder, 'memory') },
    quiet,
  );
  if (stores.memory === undefined) throw new Error('the bench’s session stores keep no memory');
  const learning = startWorldModelLearning(live, loop, stores.memory, join(folder, 'checkpoints'), DEFAULT_WORLD_MODEL_ARGS, quiet);
  const stopKeepingLoopFirst = keepTheLoopFirst(loop, allocator, () => simTimeMs, quiet);
  const durationsMs: number[] = [];
  try {
    loop.heartbeat();
    loop.setAutonomy(true);
    const periodMs = 1000 / options.rateHz;
    let dueMs = performance.now();
    let ticked = 0;
    while (durationsMs.length < options.ticks) {
      // Paced like the loop's own timer: the learner gets the wall-clock time it would have beside a robot.
      dueMs += periodMs;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueMs - performance.now())));
      link.advance(periodMs / 1000);
      simTimeMs += periodMs;
      loop.heartbeat();
      const report = await loop.tick();
      ticked++;
      if (learning.status().trainSteps > 0) durationsMs.push(report.durationMs);
      if (ticked % 600 === 0) log(`tick-with-learner: ${ticked} ticks, learner ${learning.status().learner} at step ${learning.status().trainSteps}`);
      if (durationsMs.length === 0 && ticked > 20 * 60 * options.rateHz) throw new Error('the learner took no training step in 20 minutes of ticks');
    }
  } finally {
    const status = learning.status();
    log(
      `tick-with-learner: learner ${status.preset} on ${status.backend}: ${status.trainSteps} steps, ${status.stepsPerSec?.toFixed(2) ?? '—'} steps/s, ${status.stepMs?.toFixed(0) ?? '—'} ms/step, replay ratio ${status.replayRatio?.toFixed(1) ?? '—'}; filter weights ${status.version}`,
    );
    stopKeepingLoopFirst();
    await learning.close();
    await loop.close();
    await stores.close();
    await link.close();
    rmSync(folder, { recursive: true, force: true });
  }
  const meanMs = durationsMs.reduce((sum, value) => sum + value, 0) / durationsMs.length;
  return [{ name: 'tick-with-learner', unit: 'ms', ...percentiles(durationsMs), value: meanMs }];
}
