import { describe, it, expect } from 'vitest';
import { EVALUATION_ARENA_SEEDS, RESERVED_ARENA_SEED_RANGES, TRAINING_ARENA_SEED_RANGE, trainingArenaSeeds } from './arenaSeeds.ts';

const reservedFor = (seed: number): string | undefined => RESERVED_ARENA_SEED_RANGES.find((range) => seed >= range.first && seed <= range.last)?.name;

describe('arena seed sets', () => {
  it('evaluates in ten fixed arenas that no encoder, probe, test or training stream uses', () => {
    expect(EVALUATION_ARENA_SEEDS).toHaveLength(10);
    expect(new Set(EVALUATION_ARENA_SEEDS).size).toBe(10);
    for (const seed of EVALUATION_ARENA_SEEDS) {
      expect(reservedFor(seed), `evaluation arena ${seed}`).toBeUndefined();
      expect(seed < TRAINING_ARENA_SEED_RANGE.first || seed > TRAINING_ARENA_SEED_RANGE.last).toBe(true);
    }
    // The encoders were trained on arenas 10,000–10,099 (models/build/buildEncoders.ts) and checked on 30,000–30,023.
    for (const encoderSeed of [10_000, 10_099, 30_000, 30_023]) expect(reservedFor(encoderSeed)).toBeDefined();
  });

  it('draws distinct training arenas per stream, reproducibly, inside the training range and outside every other', () => {
    const streamOne = trainingArenaSeeds(1, 2000);
    expect(new Set(streamOne).size).toBe(2000);
    expect(trainingArenaSeeds(1, 2000)).toEqual(streamOne);
    expect(trainingArenaSeeds(1, 50)).toEqual(streamOne.slice(0, 50));
    expect(trainingArenaSeeds(2, 50)).not.toEqual(streamOne.slice(0, 50));
    const evaluation = new Set(EVALUATION_ARENA_SEEDS);
    for (const seed of [...streamOne, ...trainingArenaSeeds(2, 2000)]) {
      expect(Number.isInteger(seed) && seed >= TRAINING_ARENA_SEED_RANGE.first && seed <= TRAINING_ARENA_SEED_RANGE.last).toBe(true);
      expect(evaluation.has(seed)).toBe(false);
      expect(reservedFor(seed)).toBeUndefined();
    }
    expect(trainingArenaSeeds(3, 0)).toEqual([]);
    expect(() => trainingArenaSeeds(1, -1)).toThrow(RangeError);
    expect(() => trainingArenaSeeds(1, 2.5)).toThrow(RangeError);
  });
});
