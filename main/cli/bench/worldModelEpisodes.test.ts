import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS, recordSimEpisodes, type SimEpisode } from './worldModelEpisodes.ts';

// Four short segments rather than two: events go round the four kinds, one per 40-tick segment, so
// every kind gets injected once.
const OPTIONS = { arenaSeeds: [5], segmentsPerArena: 4, ticksPerSegment: 40, seed: 9, events: true };

describe('recordSimEpisodes', () => {
  let episodes: SimEpisode[];
  let again: SimEpisode[];

  beforeAll(async () => {
    episodes = await recordSimEpisodes(OPTIONS);
    again = await recordSimEpisodes(OPTIONS);
  }, 30_000);

  it('records one segment per arena and index, with arrays of the right shape', () => {
    expect(episodes.map((e) => [e.arenaSeed, e.segment])).toEqual([
      [5, 0],
      [5, 1],
      [5, 2],
      [5, 3],
    ]);
    for (const episode of episodes) {
      expect(episode.embeddingSize).toBe(256);
      expect(episode.embeddings).toHaveLength(40 * 256);
      expect(episode.actions).toHaveLength(40 * 2);
      expect(episode.posesWorld).toHaveLength(40 * 3);
      expect(episode.odomVelocities).toHaveLength(40 * 2);
      expect(episode.odomVelocities.every(Number.isFinite)).toBe(true);
      expect(episode.labels).toHaveLength(40);
      expect(episode.embeddings.every(Number.isFinite)).toBe(true);
    }
  });

  it('is the same run for the same options', () => {
    expect(again).toEqual(episodes);
  });

  it('injects every kind of event and labels the second after it, the warm-up and the rest', () => {
    const kinds = episodes.flatMap((e) => e.events.map((event) => event.kind));
    expect([...kinds].sort()).toEqual([...EVENT_KINDS].sort());
    for (const episode of episodes) {
      for (const event of episode.events) {
        expect(event.tick).toBeGreaterThanOrEqual(30);
        expect(episode.labels.slice(event.tick, event.tick + 10)).toEqual(Array(10).fill(event.kind));
      }
      expect(episode.labels.slice(0, 20)).toEqual(Array(20).fill('excluded'));
      expect(episode.labels).toContain('normal');
    }
  });

  it('holds an event back while the robot is pressed against something, and labels it where it fell', async () => {
    // Seed 7: one of its shoves was scheduled at a tick where the robot leaned on a wall.
    const held = await recordSimEpisodes({ ...OPTIONS, seed: 7 });
    for (const episode of held) {
      for (const event of episode.events) {
        expect(episode.touching[event.tick - 1]).toBe(0);
        expect(episode.labels[event.tick]).toBe(event.kind);
      }
    }
  }, 30_000);

  it('drives with varied commands, so a world model sees what actions do', () => {
    const actions = episodes.flatMap((e) => Array.from(e.actions));
    const linearMps = actions.filter((_, i) => i % 2 === 0);
    const angularRadps = actions.filter((_, i) => i % 2 === 1);
    expect(new Set(linearMps).size).toBeGreaterThan(20);
    expect(Math.max(...linearMps) - Math.min(...linearMps)).toBeGreaterThan(0.3);
    expect(Math.max(...angularRadps) - Math.min(...angularRadps)).toBeGreaterThan(1);
  });

  it('shows a blinded LiDAR in the embedding at once', () => {
    const episode = episodes.find((e) => e.events.some((event) => event.kind === 'lidar-blackout'))!;
    const { tick } = episode.events.find((event) => event.kind === 'lidar-blackout')!;
    const at = (t: number) => episode.embeddings.subarray(t * 256, (t + 1) * 256);
    const distance = (a: Float32Array, b: Float32Array) => Math.hypot(...a.map((v, i) => v - b[i]!));
    // The step into the blackout dwarfs the ordinary change from one tick to the next.
    expect(distance(at(tick), at(tick - 1))).toBeGreaterThan(3 * distance(at(tick - 1), at(tick - 2)));
  });

  it('stands still the whole segment when asked: every command zero, the robot where it started', async () => {
    const [standing] = await recordSimEpisodes({
      ...OPTIONS,
      segmentsPerArena: 1,
      standStill: true,
      eventChoice: { kinds: ['camera-freeze'], freezeFreshNoise: true },
    });
    expect(standing!.actions.every((value) => value === 0)).toBe(true);
    const [x0, y0] = [standing!.posesWorld[0]!, standing!.posesWorld[1]!];
    const [x1, y1] = [standing!.posesWorld.at(-3)!, standing!.posesWorld.at(-2)!];
    expect(Math.hypot(x1 - x0, y1 - y0)).toBeLessThan(0.01);
    expect(standing!.labels).toContain('camera-freeze');
    expect(
      standing!.events.every((event) => event.kind === 'camera-freeze' && event.injection.kind === 'freeze-camera' && event.injection.freshNoise === true),
    ).toBe(true);
  });
});
