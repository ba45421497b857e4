// The perception bench's usefulness rows: linear probes on fused embeddings of views from arena
// layouts and hues the encoders never trained on — fitted on one set of arenas, scored on another —
// for the default encoders and, as the floor, for randomly initialised encoders of the same shape.
import type { ObservationFrame } from '../../core/frame.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Received, RobotMessage } from '../../core/messages.ts';
import { scorePerceptionProbes, writeRandomEncodersLike, type ProbeScores, type ProbeView } from '../../session/perceptionParts.ts';
import { sampleViews, type LabelledView } from '../../sim/viewSampler.ts';
import type { BenchRow } from './report.ts';

/** Far from the build script's training (10,000+) and self-check (30,000+) arenas; the task probes (taskProbes.ts) use them too. */
export const FIT_ARENA_SEEDS: readonly number[] = Array.from({ length: 20 }, (_, i) => 50_000 + i);
export const SCORE_ARENA_SEEDS: readonly number[] = Array.from({ length: 20 }, (_, i) => 60_000 + i);
const EPISODES_PER_ARENA = 2;
const VIEWS_PER_EPISODE = 50;

const log = (line: string) => process.stderr.write(`${line}\n`);

function received<M extends RobotMessage>(topic: string, msg: M): { received: Received<M>; ageMs: number } {
  return { received: { topic, receiveTimeMs: 0, sourceTimeMs: 0, msg }, ageMs: 0 };
}

/** A view's streams as the control loop would hand them to perception, all fresh. */
export function frameOf(view: Pick<LabelledView, 'image' | 'scan' | 'joints' | 'imu'>): ObservationFrame {
  return {
    timeMs: 0,
    missing: [],
    camera: received('/camera/image_raw', view.image),
    scan: received('/scan', view.scan),
    joints: received('/joint_states', view.joints),
    imu: received('/imu', view.imu),
  };
}

function viewsFrom(arenaSeeds: readonly number[]): ProbeView[] {
  const views = arenaSeeds.flatMap((arenaSeed) => [
    ...sampleViews({ arenaSeed, hues: 'held-out', episodes: EPISODES_PER_ARENA, viewsPerEpisode: VIEWS_PER_EPISODE, seed: arenaSeed }),
  ]);
  return views.map((view) => ({ frame: frameOf(view), command: view.command, truth: view.truth }));
}

function rows(scores: ProbeScores, suffix: string): BenchRow[] {
  const row = (name: string, value: number): BenchRow => ({ name: `${name}${suffix}`, unit: 'R²', p50: null, p95: null, p99: null, value });
  return [
    row('probe-r2-goal-bearing', scores.goalBearingR2),
    row('probe-r2-goal-distance', scores.goalDistanceR2),
    row('probe-r2-obstacle-distance', scores.obstacleDistanceR2),
  ];
}

export async function runPerceptionProbes(manifestPath: string): Promise<BenchRow[]> {
  const fitViews = viewsFrom(FIT_ARENA_SEEDS);
  const scoreViews = viewsFrom(SCORE_ARENA_SEEDS);
  log(
    `probes: ${fitViews.length} views to fit (arenas ${FIT_ARENA_SEEDS[0]}–${FIT_ARENA_SEEDS.at(-1)}), ${scoreViews.length} to score (arenas ${SCORE_ARENA_SEEDS[0]}–${SCORE_ARENA_SEEDS.at(-1)}), held-out hues`,
  );
  const results: BenchRow[] = [];
  const folder = mkdtempSync(join(tmpdir(), 'reins-probe-'));
  try {
    for (const [path, suffix] of [
      [manifestPath, ''],
      [writeRandomEncodersLike(manifestPath, folder), '-random-init'],
    ] as const) {
      const scores = await scorePerceptionProbes(path, fitViews, scoreViews);
      log(
        `probes${suffix || ' (default encoders)'}: goal in view in ${scores.fittedOn.inView}/${scores.fittedOn.all} fitting and ${scores.scoredOn.inView}/${scores.scoredOn.all} scoring views (${dirname(path)})`,
      );
      results.push(...rows(scores, suffix));
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return results;
}
