// `reins bench critic` (issue 27, "measure before building on it"): one training stream of the learning
// bench (Reins' core in lockstep, the scripted operator; `--task`, `--seeds`, `--budgets` pick one of
// each), then the off-policy critics trained with that stream's driving actor frozen, on its ticks and
// feedback, and measured on held-out episodes (learning/criticProbe.ts). `--save FILE` keeps the
// stream's ticks, feedback, actor and reward ensemble; `--from FILE` measures on a saved stream without
// running one. `--learner '{"critic":{...}}'` sets the critics measured.
import { readFile, writeFile } from 'node:fs/promises';
import { deserialize, serialize } from 'node:v8';
import { createLogger } from '../../core/runtime/logger.ts';
import { selectLearnerBackend } from '../../session/worldModelBackend.ts';
import { probeCritics, type ActorSnapshot, type CriticProbeFigures, type CriticProbeInput } from '../../session/learningParts.ts';
import { trainingArenaSeeds } from '../../sim/arenaSeeds.ts';
import { startArgsFor, type LearningBenchSettings } from './learningBench.ts';
import { TrainingStream } from './learningStream.ts';
import type { BenchRow } from './report.ts';

/** What a saved stream holds (v8-serialised: typed arrays kept whole). */
interface SavedStream extends CriticProbeInput {
  format: 'reins-critic-probe-stream/1';
  task: string;
  seed: number;
  simMinutes: number;
}

export interface CriticBenchOptions {
  settings: LearningBenchSettings;
  saveTo: string | undefined;
  readFrom: string | undefined;
}

export async function runCriticBench({
  settings,
  saveTo,
  readFrom,
}: CriticBenchOptions): Promise<{ rows: BenchRow[]; figures: CriticProbeFigures; stream: Omit<SavedStream, keyof CriticProbeInput> & { backend: string } }> {
  const saved = readFrom === undefined ? await recordStream(settings) : await readSaved(readFrom);
  if (saveTo !== undefined) await writeFile(saveTo, serialize(saved));
  // The backend the policy worker trains on (the native one where it loads, one BLAS thread).
  const backend = await selectLearnerBackend();
  const figures = probeCritics(saved, { critic: { critics: 2, ...settings.learner.critic }, seed: saved.seed });
  const row = (name: string, unit: string, value: number): BenchRow => ({ name, unit, p50: null, p95: null, p99: null, value });
  return {
    figures,
    stream: { format: saved.format, task: saved.task, seed: saved.seed, simMinutes: saved.simMinutes, backend: backend.backend },
    rows: [
      row('critic-updates-per-second', 'updates/s', figures.updatesPerSecond),
      row('critic-heldout-td-rms', 'reward units', figures.heldOutTdRms),
      row('critic-heldout-target-std', 'reward units', figures.heldOutTargetStd),
      row('critic-train-td-rms', 'reward units', figures.trainTdRms),
      row('critic-action-sensitivity', 'ratio', figures.actionSensitivity),
      row('critic-action-gap', 'reward units', figures.actionGap),
      row('critic-operator-ranked-above', 'share', figures.operatorRankedAbove),
      row('critic-operator-ranked-above-in-training', 'share', figures.operatorRankedAboveInTraining),
      row('critic-operator-ranked-above-frozen-actor', 'share', figures.operatorRankedAboveFrozenActor),
      row('critic-takeover-ticks', 'ticks', figures.takeoverTicks),
    ],
  };
}

async function recordStream(settings: LearningBenchSettings): Promise<SavedStream> {
  const [task] = settings.tasks;
  const [seed] = settings.seeds;
  const simMinutes = settings.budgetsSimMinutes.at(-1)!;
  if (settings.tasks.length !== 1 || settings.seeds.length !== 1 || settings.operators.length !== 1)
    throw new RangeError('reins bench critic records one stream: give one --task, one --seeds and one --operator');
  const log = createLogger('bench-critic');
  log.level = process.env.REINS_LOG_LEVEL ?? 'warn';
  const stream = await TrainingStream.open({
    method: 'reins',
    task: task!,
    operator: settings.operators[0]!,
    seed: seed!,
    trainingArenas: trainingArenaSeeds(seed!, settings.trainingArenasPerSeed),
    episodesPerArena: settings.episodesPerArena,
    demoSimMinutes: settings.demoSimMinutes,
    args: (folder) => startArgsFor(settings, folder),
    learner: settings.learner,
    log,
  });
  try {
    await stream.runUntil(simMinutes);
    const teaching = stream.lockstep.core.learnerTeaching();
    const driving = stream.drivingPolicy().policy as { snapshot?: ActorSnapshot };
    if (driving.snapshot === undefined) throw new Error(`no learned version drives after ${simMinutes} simulated minutes: nothing to freeze`);
    return {
      format: 'reins-critic-probe-stream/1',
      task: task!,
      seed: seed!,
      simMinutes,
      ticks: teaching.ticks,
      signals: teaching.signals,
      actor: driving.snapshot,
      reward: teaching.reward,
      rewardMembers: teaching.rewardShape.members,
      rewardHidden: teaching.rewardShape.hidden,
    };
  } finally {
    await stream.close();
  }
}

async function readSaved(file: string): Promise<SavedStream> {
  let saved: SavedStream;
  try {
    saved = deserialize(await readFile(file)) as SavedStream;
  } catch (error) {
    throw new RangeError(`${file} is not a stream saved by reins bench critic --save: ${(error as Error).message}`);
  }
  if (saved?.format !== 'reins-critic-probe-stream/1')
    throw new RangeError(`${file} is not a stream saved by reins bench critic --save (format ${String(saved?.format)})`);
  return saved;
}
