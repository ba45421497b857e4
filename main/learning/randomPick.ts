// Uniform draws from a seeded generator, shared by the learner's samplers (actor batches, reward
// batches, rollout starts) so that the same seed draws the same ticks in the same order.
import type { SeededRandom } from '../core/util/seededRandom.ts';

/** An index in [0, count), one draw. */
export function pickIndex(random: SeededRandom, count: number): number {
  return Math.min(count - 1, Math.floor(random.next() * count));
}

/** All of `items` when there are at most `count`; otherwise `count` drawn with replacement, one draw each. */
export function sampleItems<T>(items: readonly T[], count: number, random: SeededRandom): T[] {
  if (items.length <= count) return [...items];
  return Array.from({ length: count }, () => items[pickIndex(random, items.length)]!);
}
