// The learning bench's evaluation (issue 26): one fixed set of held-out episodes per task, driven on a
// core with no memory and no learner (session/evaluationCore.ts) — by a version of the policy alone
// (nobody takes over), or by a scripted operator alone (its own time-to-goal and success). Requests go
// through the cockpit as the UI sends them.
import type { Logger } from 'pino';
import type { Request } from '../../core/contract.ts';
import type { Policy } from '../../core/policy.ts';
import { openEvaluationCore, type EvaluationCore } from '../../session/evaluationCore.ts';
import type { StartArgs } from '../../session/startArgs.ts';
import { createSimLink } from '../../sim/lockstepLink.ts';
import { createOperator, type SimOperatorName } from '../../sim/operators/createOperator.ts';
import { deriveSeed } from '../../sim/random.ts';
import type { SimTaskName } from '../../sim/tasks/taskNames.ts';
import { STREAM_EPOCH_MS, type DistributiveOmit } from './learningStream.ts';

export interface EvaluationSet {
  task: SimTaskName;
  /** Held-out arenas: none of them a training arena, nor one the encoders were trained in. */
  arenas: readonly number[];
  episodesPerArena: number;
}

/** One evaluation episode, as it ended. */
export interface EvaluatedEpisode {
  arenaSeed: number;
  episodeSeed: number;
  outcome: 'reached-goal' | 'collision' | 'timeout';
  /** Simulated seconds to the goal; undefined when the goal was not reached. */
  timeToGoalSecs: number | undefined;
}

export interface EvaluationOutcome {
  episodes: EvaluatedEpisode[];
  successRate: number;
  collisions: number;
  timeouts: number;
}

/** The episode seeds of the set: fixed by the arena and the episode's place, never by a stream's seed. */
export function evaluationEpisodes(set: EvaluationSet): Array<{ arenaSeed: number; episodeSeed: number }> {
  return set.arenas.flatMap((arenaSeed) =>
    Array.from({ length: set.episodesPerArena }, (_, k) => ({ arenaSeed, episodeSeed: deriveSeed('evaluation', arenaSeed, k) })),
  );
}

export type Driver = { kind: 'policy'; policy: Policy | undefined } | { kind: 'operator'; operator: SimOperatorName; seed: number };

/** Drives every episode of the set with `driver` on a fresh evaluation core, and closes it. */
export async function evaluate(set: EvaluationSet, driver: Driver, args: StartArgs, log: Logger): Promise<EvaluationOutcome> {
  const episodes = evaluationEpisodes(set);
  const first = episodes[0];
  if (first === undefined) throw new RangeError('an evaluation set needs at least one episode');
  const link = createSimLink({ task: set.task, arenaSeed: first.arenaSeed, episodeSeed: first.episodeSeed, autoReset: false, epochMs: STREAM_EPOCH_MS });
  const core = await openEvaluationCore(args, link, driver.kind === 'policy' ? driver.policy : undefined, log);
  const results: EvaluatedEpisode[] = [];
  try {
    for (const [index, episode] of episodes.entries()) {
      if (index > 0) link.relocate(createSimLink({ task: set.task, arenaSeed: episode.arenaSeed, episodeSeed: episode.episodeSeed, autoReset: false }).robot);
      results.push(await driveEpisode(core, driver, episode));
    }
  } finally {
    await core.close();
  }
  const reached = results.filter((episode) => episode.outcome === 'reached-goal').length;
  return {
    episodes: results,
    successRate: reached / results.length,
    collisions: results.filter((episode) => episode.outcome === 'collision').length,
    timeouts: results.filter((episode) => episode.outcome === 'timeout').length,
  };
}

async function driveEpisode(core: EvaluationCore, driver: Driver, episode: { arenaSeed: number; episodeSeed: number }): Promise<EvaluatedEpisode> {
  const request = (body: DistributiveOmit<Request, 'id'>) => {
    const result = core.cockpit.handle({ ...body, id: 'evaluation' } as Request);
    if (!result.ok) throw new Error(`the evaluation core refused ${body.type}: ${result.error.message}`);
  };
  const robot = core.link.robot;
  const operator =
    driver.kind === 'operator'
      ? createOperator(driver.operator, robot.arena, deriveSeed('alone', driver.seed, episode.arenaSeed, episode.episodeSeed))
      : undefined;
  request({ type: 'heartbeat', sentAtMs: core.now() });
  request({ type: 'set-autonomy', enabled: operator === undefined });
  while (robot.groundTruth().episode.status === 'running') {
    request({ type: 'heartbeat', sentAtMs: core.now() });
    if (operator) request({ type: 'drive', ...operator.drive(robot.groundTruth()) });
    await core.step();
  }
  const ended = robot.groundTruth().episode;
  request({ type: 'end-episode', outcome: ended.status === 'succeeded' ? 'reached-goal' : 'failed' });
  request({ type: 'set-autonomy', enabled: false });
  const outcome = ended.status === 'succeeded' ? 'reached-goal' : ended.reason === 'collision' ? 'collision' : 'timeout';
  return { ...episode, outcome, timeToGoalSecs: outcome === 'reached-goal' ? ended.elapsedSecs : undefined };
}

/**
 * The median time-to-goal of the policy and of the operator alone over the episodes both finished,
 * with their count; undefined medians when there are none.
 */
export function pairedTimeToGoal(
  policy: readonly EvaluatedEpisode[],
  operator: readonly EvaluatedEpisode[],
): { policySecs: number | undefined; operatorSecs: number | undefined; episodes: number } {
  const operatorTimes = new Map(operator.map((episode) => [`${episode.arenaSeed}/${episode.episodeSeed}`, episode.timeToGoalSecs]));
  const pairs: Array<[number, number]> = [];
  for (const episode of policy) {
    const theirs = operatorTimes.get(`${episode.arenaSeed}/${episode.episodeSeed}`);
    if (episode.timeToGoalSecs !== undefined && theirs !== undefined) pairs.push([episode.timeToGoalSecs, theirs]);
  }
  return { policySecs: median(pairs.map((pair) => pair[0])), operatorSecs: median(pairs.map((pair) => pair[1])), episodes: pairs.length };
}

/** Success of one set against another's on the same episodes: the mean difference (a − b), its standard error, and how many pairs. */
export interface PairedSuccess {
  /** Success of each side over the paired episodes. */
  a: number;
  b: number;
  difference: number;
  standardError: number;
  episodes: number;
}

/**
 * Pairs evaluations episode by episode (the same arena and start in each pair of sets; several pairs of
 * sets, e.g. one per seed, pool their episodes) and returns the success difference a − b with its
 * standard error. Refuses sets that are not the same episodes.
 */
export function pairedSuccess(sets: ReadonlyArray<readonly [EvaluationOutcome, EvaluationOutcome]>): PairedSuccess {
  const success = (episode: EvaluatedEpisode) => (episode.outcome === 'reached-goal' ? 1 : 0);
  const differences: number[] = [];
  let successesA = 0;
  let successesB = 0;
  for (const [a, b] of sets) {
    if (a.episodes.length !== b.episodes.length) throw new RangeError(`paired sets differ in size: ${a.episodes.length} and ${b.episodes.length} episodes`);
    a.episodes.forEach((episode, index) => {
      const other = b.episodes[index]!;
      if (episode.arenaSeed !== other.arenaSeed || episode.episodeSeed !== other.episodeSeed)
        throw new RangeError(
          `paired sets differ at episode ${index}: arena ${episode.arenaSeed}/${episode.episodeSeed} against ${other.arenaSeed}/${other.episodeSeed}`,
        );
      successesA += success(episode);
      successesB += success(other);
      differences.push(success(episode) - success(other));
    });
  }
  const n = differences.length;
  if (n === 0) throw new RangeError('no episodes to pair');
  const mean = differences.reduce((sum, d) => sum + d, 0) / n;
  const variance = n > 1 ? differences.reduce((sum, d) => sum + (d - mean) ** 2, 0) / (n - 1) : 0;
  return { a: successesA / n, b: successesB / n, difference: mean, standardError: Math.sqrt(variance / n), episodes: n };
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
