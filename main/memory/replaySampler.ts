// Replay for the learner: fixed-length runs of consecutive ticks within one episode (what the world
// model trains on), drawn uniformly or by priority — surpriseNats (prioritised replay), or closeness to
// where the operator intervened (RLIF: the takeover marks what the policy got wrong) — and balanced
// 50/50 between operator and policy data as HIL-SERL samples its demo and online buffers. The same
// index, options and seed give the same sequences.
import { ACTOR_CODES, type ReplayEpisode, type ReplayIndex, type StepSpan } from './replayIndex.ts';
import { SeededRandom } from '../core/util/seededRandom.ts';

export type ReplayPriority = 'uniform' | 'surpriseNats' | 'intervention';

export interface ReplaySamplerOptions {
  sequenceLength: number;
  priority: ReplayPriority;
  /** Draw half the sequences from operator-driven stretches and half from policy-driven ones. */
  balanced: boolean;
  seed: number;
  /** Surprise priority: (mean surpriseNats over the sequence)^exponent. */
  surpriseNatsExponent: number;
  /** Intervention priority: exp(−steps from the nearest intervention span / this). */
  interventionScaleSteps: number;
  /** Added to every priority, so no sequence is never drawn. */
  priorityFloor: number;
}

export const DEFAULT_REPLAY_OPTIONS: Readonly<ReplaySamplerOptions> = Object.freeze({
  sequenceLength: 64,
  priority: 'uniform',
  balanced: true,
  seed: 1,
  surpriseNatsExponent: 1,
  interventionScaleSteps: 20,
  priorityFloor: 0.01,
});

export interface SequenceRef {
  episodeId: string;
  startStep: number;
  length: number;
}

type Group = 'operator' | 'policy' | 'other';

/** The sequences one group can give, with their priorities summed for drawing by binary search. */
interface Pool {
  episodes: number[];
  starts: number[];
  cumulative: number[];
}

export class ReplaySampler {
  private readonly options: ReplaySamplerOptions;
  private readonly random: SeededRandom;
  private readonly pools: Record<Group, Pool> = { operator: emptyPool(), policy: emptyPool(), other: emptyPool() };
  /** Every pool in one, for unbalanced sampling; made on first use. */
  private mergedPool: Pool | undefined;

  constructor(
    private readonly index: ReplayIndex,
    options: Partial<ReplaySamplerOptions> = {},
  ) {
    this.options = { ...DEFAULT_REPLAY_OPTIONS, ...options };
    if (!Number.isInteger(this.options.sequenceLength) || this.options.sequenceLength < 1) {
      throw new RangeError(`sequence length must be a whole number ≥ 1, got ${this.options.sequenceLength}`);
    }
    this.random = new SeededRandom(this.options.seed);
    index.episodes.forEach((episode, episodeNumber) => this.addEpisode(episode, episodeNumber));
  }

  /** How many distinct sequences could be drawn. */
  get sequenceCount(): number {
    return this.pools.operator.starts.length + this.pools.policy.starts.length + this.pools.other.starts.length;
  }

  /** Draws `count` sequences (with replacement); none when no episode is long enough. */
  sample(count: number): SequenceRef[] {
    if (this.sequenceCount === 0) return [];
    return Array.from({ length: count }, () => this.draw(this.pickPool()));
  }

  private pickPool(): Pool {
    const { operator, policy, other } = this.pools;
    if (!this.options.balanced) return this.merged();
    const choices = [operator, policy].filter((pool) => pool.starts.length > 0);
    if (choices.length === 0) return other;
    return choices[Math.floor(this.random.next() * choices.length)]!;
  }

  private merged(): Pool {
    if (this.mergedPool) return this.mergedPool;
    const merged = emptyPool();
    for (const pool of [this.pools.operator, this.pools.policy, this.pools.other]) {
      let previous = 0;
      pool.starts.forEach((start, i) => {
        const weight = pool.cumulative[i]! - previous;
        previous = pool.cumulative[i]!;
        push(merged, pool.episodes[i]!, start, weight);
      });
    }
    return (this.mergedPool = merged);
  }

  private draw(pool: Pool): SequenceRef {
    const total = pool.cumulative[pool.cumulative.length - 1]!;
    const target = this.random.next() * total;
    let low = 0;
    let high = pool.cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (pool.cumulative[middle]! > target) high = middle;
      else low = middle + 1;
    }
    const episode = this.index.episodes[pool.episodes[low]!]!;
    return { episodeId: episode.episodeId, startStep: episode.steps[pool.starts[low]!]!, length: this.options.sequenceLength };
  }

  private addEpisode(episode: ReplayEpisode, episodeNumber: number): void {
    const length = this.options.sequenceLength;
    const spans = this.index.interventions.get(episode.episodeId) ?? [];
    const { steps, actors, surpriseNats } = episode;
    // Prefix sums make each window's counts and mean surpriseNats O(1).
    const operatorBefore = prefixSums(actors, (code) => (code === ACTOR_CODES.operator ? 1 : 0));
    const policyBefore = prefixSums(actors, (code) => (code === ACTOR_CODES.policy ? 1 : 0));
    const surpriseNatsBefore = prefixSums(surpriseNats, (value) => value);
    let runStart = 0;
    for (let i = 0; i < steps.length; i++) {
      if (i > 0 && steps[i] !== steps[i - 1]! + 1) runStart = i;
      const first = i - length + 1;
      if (first < runStart) continue;
      const operatorSteps = operatorBefore[i + 1]! - operatorBefore[first]!;
      const policySteps = policyBefore[i + 1]! - policyBefore[first]!;
      const group: Group = operatorSteps > 0 && operatorSteps >= policySteps ? 'operator' : policySteps > 0 ? 'policy' : 'other';
      const meanSurpriseNats = (surpriseNatsBefore[i + 1]! - surpriseNatsBefore[first]!) / length;
      push(this.pools[group], episodeNumber, first, this.priority(meanSurpriseNats, steps[first]!, steps[i]!, spans));
    }
  }

  private priority(meanSurpriseNats: number, firstStep: number, lastStep: number, spans: readonly StepSpan[]): number {
    const { priority, priorityFloor, surpriseNatsExponent, interventionScaleSteps } = this.options;
    if (priority === 'surpriseNats') return priorityFloor + Math.max(0, meanSurpriseNats) ** surpriseNatsExponent;
    if (priority === 'intervention') {
      let nearestSteps = Infinity;
      for (const span of spans) nearestSteps = Math.min(nearestSteps, Math.max(0, span.startStep - lastStep, firstStep - span.endStep));
      return priorityFloor + Math.exp(-nearestSteps / interventionScaleSteps);
    }
    return 1;
  }
}

function emptyPool(): Pool {
  return { episodes: [], starts: [], cumulative: [] };
}

function push(pool: Pool, episodeNumber: number, start: number, weight: number): void {
  pool.episodes.push(episodeNumber);
  pool.starts.push(start);
  pool.cumulative.push((pool.cumulative[pool.cumulative.length - 1] ?? 0) + weight);
}

function prefixSums<T extends ArrayLike<number>>(values: T, score: (value: number) => number): Float64Array {
  const sums = new Float64Array(values.length + 1);
  for (let i = 0; i < values.length; i++) sums[i + 1] = sums[i]! + score(values[i]!);
  return sums;
}
