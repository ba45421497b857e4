// `reins bench sim`: how fast the simulated robot runs in lockstep with every sensor rendered, and
// how the reach task separates a good driver (the scripted operator) from a blind one (uniform
// random commands). Episodes run through the robot's own LockstepLink at the control rate.
import { DEFAULT_TOPIC_MAP } from '../../core/link.ts';
import { twistFromDrive } from '../../core/messages.ts';
import { percentiles } from '../../core/util/latencyWindow.ts';
import { runEpisodes, type TruthController } from '../../sim/episodeRunner.ts';
import { createSimLink, type LockstepLink } from '../../sim/lockstepLink.ts';
import { RandomPolicy } from '../../sim/randomPolicy.ts';
import { ScriptedOperator } from '../../sim/scriptedOperator.ts';
import type { EpisodeState } from '../../sim/tasks/task.ts';
import type { BenchRow } from './report.ts';

export interface SimBenchOptions {
  controlRateHz: number;
  /** Episodes per success row, spread over arenas so that no one layout decides the figure. */
  arenas: number;
  episodesPerArena: number;
  /** Simulated time the speed row measures, after a short warm-up. */
  speedSimSecs: number;
}

export const DEFAULT_SIM_BENCH_OPTIONS: Readonly<SimBenchOptions> = Object.freeze({
  controlRateHz: 10,
  arenas: 10,
  episodesPerArena: 10,
  speedSimSecs: 60,
});

const WARMUP_SIM_SECS = 5;
/** Every episode ends within the task's 30 s; this only catches a robot that stopped resetting. */
const MAX_SIM_SECS_PER_EPISODE = 40;

export function runSimBench(options: SimBenchOptions = DEFAULT_SIM_BENCH_OPTIONS): BenchRow[] {
  const operatorEpisodes = runSeededEpisodes(options, (link, arenaSeed) => {
    const operator = new ScriptedOperator(link.robot.arena, { seed: arenaSeed });
    return (truth) => operator.drive(truth);
  });
  const randomEpisodes = runSeededEpisodes(options, (_link, arenaSeed) => {
    const policy = new RandomPolicy(arenaSeed);
    return (truth) => policy.command(truth.simTimeSecs);
  });
  const succeededSecs = operatorEpisodes.filter((episode) => episode.status === 'succeeded').map((episode) => episode.elapsedSecs);
  return [
    { name: 'lockstep-speed', unit: 'sim s/wall s', p50: null, p95: null, p99: null, value: measureLockstepSpeed(options) },
    { name: 'operator-success', unit: 'fraction', p50: null, p95: null, p99: null, value: successFraction(operatorEpisodes) },
    { name: 'random-success', unit: 'fraction', p50: null, p95: null, p99: null, value: successFraction(randomEpisodes) },
    { name: 'operator-time-to-goal', unit: 's', ...percentiles(succeededSecs), value: mean(succeededSecs) },
  ];
}

/** Simulated seconds per wall second with the default camera and LiDAR rendered for a subscriber. */
function measureLockstepSpeed(options: SimBenchOptions): number {
  const link = createSimLink({ arenaSeed: 1, episodeSeed: 1, epochMs: 0 });
  const received = new Map<string, number>();
  for (const { topic } of link.topics()) link.subscribe(topic, () => received.set(topic, (received.get(topic) ?? 0) + 1));
  // The scripted operator keeps the robot moving through the arena, so the views keep changing.
  const operator = new ScriptedOperator(link.robot.arena, { seed: 1 });
  const periodSecs = 1 / options.controlRateHz;
  const drive = (simSecs: number): void => {
    for (let elapsedSecs = 0; elapsedSecs < simSecs - 1e-9; elapsedSecs += periodSecs) {
      link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(operator.drive(link.robot.groundTruth())));
      link.advance(periodSecs);
    }
  };
  drive(WARMUP_SIM_SECS);
  const startMs = performance.now();
  drive(options.speedSimSecs);
  const wallSecs = (performance.now() - startMs) / 1000;
  void link.close();
  const frames = received.get(DEFAULT_TOPIC_MAP.camera) ?? 0;
  const expectedFrames = (WARMUP_SIM_SECS + options.speedSimSecs) * link.robot.cameraOptions.rateHz;
  if (Math.abs(frames - expectedFrames) > 1)
    throw new Error(`rendered ${frames} camera frames, expected ${expectedFrames}: the bench is not measuring the full sensor load`);
  return options.speedSimSecs / wallSecs;
}

function runSeededEpisodes(options: SimBenchOptions, makeController: (link: LockstepLink, arenaSeed: number) => TruthController): EpisodeState[] {
  const episodes: EpisodeState[] = [];
  for (let arenaSeed = 1; arenaSeed <= options.arenas; arenaSeed++) {
    // Nobody subscribes, so no sensor is rendered: the controllers read the ground truth.
    const link = createSimLink({ arenaSeed, episodeSeed: 1, epochMs: 0, autoReset: true });
    episodes.push(
      ...runEpisodes(link, makeController(link, arenaSeed), {
        episodes: options.episodesPerArena,
        controlRateHz: options.controlRateHz,
        maxSimSecs: options.episodesPerArena * MAX_SIM_SECS_PER_EPISODE,
      }),
    );
    void link.close();
  }
  return episodes;
}

function successFraction(episodes: readonly EpisodeState[]): number {
  return episodes.filter((episode) => episode.status === 'succeeded').length / episodes.length;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
