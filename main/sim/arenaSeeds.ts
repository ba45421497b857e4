// Which arenas a learner may train in and which it is scored in. The two sets never meet, and
// neither meets the arenas the perception encoders were trained or checked on, so a score is on
// layouts nobody has seen. Arena seeds in use, by range:
//
//   1 – 9,999            fixed arenas of tests and benches (sim bench 1…N, perception bench 7, …)
//   10,000 – 29,999      encoder training (models/build/buildEncoders.ts: reach, dock and corridor views
//                        in 10,000 + i for --arenas N, 100 by default; fusionScales.ts 10,000–10,009), room to grow
//   30,000 – 30,999      the encoder build's own held-out check (30,000–30,023)
//   50,000 – 69,999      `reins bench perception`'s probes (fit 50,000–50,019, score 60,000–60,019)
//   80,000 – 80,009      EVALUATION_ARENA_SEEDS: scoring a learned policy
//   100,000 – 999,999    trainingArenaSeeds(): where a learner drives while it learns
import { deriveSeed, SeededRandom } from './random.ts';

export interface ArenaSeedRange {
  name: string;
  first: number;
  last: number;
}

/** The ranges used for something else: no training or evaluation arena may come from them. */
export const RESERVED_ARENA_SEED_RANGES: readonly ArenaSeedRange[] = Object.freeze([
  { name: 'tests and benches', first: 1, last: 9_999 },
  { name: 'encoder training', first: 10_000, last: 29_999 },
  { name: 'encoder check', first: 30_000, last: 30_999 },
  { name: 'perception probes', first: 50_000, last: 69_999 },
]);

/** Ten arenas to score a policy in, the same every time, seen by no learner. */
export const EVALUATION_ARENA_SEEDS: readonly number[] = Object.freeze(Array.from({ length: 10 }, (_, i) => 80_000 + i));

export const TRAINING_ARENA_SEED_RANGE: Readonly<ArenaSeedRange> = Object.freeze({ name: 'training', first: 100_000, last: 999_999 });
/** More arenas than one stream could want; a bound so that drawing distinct seeds always ends quickly. */
const MAX_TRAINING_ARENAS = 100_000;

/**
 * `count` distinct training arenas, drawn for `streamSeed`: the same stream always gives the same
 * arenas in the same order, and a longer list of a stream begins with the shorter one.
 */
export function trainingArenaSeeds(streamSeed: number, count: number): number[] {
  if (!Number.isInteger(count) || count < 0 || count > MAX_TRAINING_ARENAS) {
    throw new RangeError(`training arena count must be a whole number from 0 to ${MAX_TRAINING_ARENAS}, got ${count}`);
  }
  const random = new SeededRandom(deriveSeed('training-arenas', streamSeed));
  const span = TRAINING_ARENA_SEED_RANGE.last - TRAINING_ARENA_SEED_RANGE.first + 1;
  const seeds: number[] = [];
  const seen = new Set<number>();
  while (seeds.length < count) {
    const seed = TRAINING_ARENA_SEED_RANGE.first + random.integer(span);
    if (seen.has(seed)) continue;
    seen.add(seed);
    seeds.push(seed);
  }
  return seeds;
}
