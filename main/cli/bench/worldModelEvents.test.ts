import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../sim/random.ts';
import type { LaserScan } from '../../core/messages.ts';
import {
  EVENT_KINDS,
  eventCanShow,
  labelContacts,
  labelTicks,
  postponeEvents,
  scheduleEvents,
  type EventLabel,
  type ScheduledEvent,
} from './worldModelEvents.ts';

describe('scheduleEvents', () => {
  it('keeps events ≥ 3 s in, ≥ 5 s apart, clear of the last one’s lingering, with their first second inside the segment', () => {
    for (let seed = 0; seed < 50; seed++) {
      const events = scheduleEvents(200, new SeededRandom(seed), seed);
      expect(events.length).toBeGreaterThanOrEqual(1);
      events.forEach((event, i) => {
        expect(event.tick).toBeGreaterThanOrEqual(30);
        expect(event.tick + 10).toBeLessThanOrEqual(200);
        const previous = events[i - 1];
        if (previous) expect(event.tick).toBeGreaterThanOrEqual(Math.max(previous.tick + 50, previous.tick + previous.activeTicks + 30));
      });
    }
  });

  it('goes round the kinds from the one given, with magnitudes in the asked ranges', () => {
    expect(
      scheduleEvents(200, new SeededRandom(1), 2)
        .map((e) => e.kind)
        .slice(0, 2),
    ).toEqual(['camera-freeze', 'lidar-blackout']);
    const events = Array.from({ length: 20 }, (_, seed) => scheduleEvents(200, new SeededRandom(seed), seed)).flat();
    expect(new Set(events.map((e) => e.kind))).toEqual(new Set(EVENT_KINDS));
    for (const { injection } of events) {
      if (injection.kind === 'shove') expect(Math.hypot(injection.forwardMps, injection.leftwardMps)).toBeGreaterThanOrEqual(0.6 - 1e-9);
      if (injection.kind === 'shove') expect(Math.hypot(injection.forwardMps, injection.leftwardMps)).toBeLessThanOrEqual(1.5 + 1e-9);
      if (injection.kind === 'drop-obstacle')
        expect([injection.distanceM >= 0.5 && injection.distanceM <= 0.9, injection.radiusM >= 0.15 && injection.radiusM <= 0.3]).toEqual([true, true]);
      if (injection.kind === 'freeze-camera' || injection.kind === 'blackout-lidar')
        expect(injection.durationMs >= 2000 && injection.durationMs <= 3000).toBe(true);
    }
  });

  it('takes only the kinds chosen, and a frozen camera with fresh noise when asked', () => {
    const choice = { kinds: ['camera-freeze'] as const, freezeFreshNoise: true };
    const events = Array.from({ length: 10 }, (_, seed) => scheduleEvents(200, new SeededRandom(seed), seed, choice)).flat();
    expect(events.length).toBeGreaterThan(10);
    for (const { kind, injection } of events)
      expect([kind, injection]).toEqual(['camera-freeze', { kind: 'freeze-camera', durationMs: expect.any(Number), freshNoise: true }]);
    const plain = scheduleEvents(200, new SeededRandom(1), 2);
    expect(plain.find((event) => event.kind === 'camera-freeze')?.injection).not.toHaveProperty('freshNoise');
    expect(() => scheduleEvents(200, new SeededRandom(1), 0, { kinds: [], freezeFreshNoise: false })).toThrow(/no event kinds/);
  });
});

function runsOf(labels: readonly EventLabel[]): Array<[string, number]> {
  const runs: Array<[string, number]> = [];
  for (const label of labels) {
    const last = runs.at(-1);
    if (last && last[0] === label) last[1]++;
    else runs.push([label, 1]);
  }
  return runs;
}

describe('labelTicks', () => {
  it('labels the warm-up, each event’s first second, its fault and the 3 s after it', () => {
    const freeze: ScheduledEvent = { tick: 40, kind: 'camera-freeze', injection: { kind: 'freeze-camera', durationMs: 2500 }, activeTicks: 25 };
    const shove: ScheduledEvent = { tick: 100, kind: 'shove', injection: { kind: 'shove', forwardMps: 1, leftwardMps: 0 }, activeTicks: 0 };
    expect(runsOf(labelTicks(140, [freeze, shove]))).toEqual([
      ['excluded', 20],
      ['normal', 20],
      ['camera-freeze', 10],
      ['excluded', 15 + 30],
      ['normal', 5],
      ['shove', 10],
      ['excluded', 20],
      ['normal', 10],
    ]);
  });
});

describe('labelContacts', () => {
  it("labels a collision's first second 'contact', the 3 s after it and every tick pressed against something excluded; one inside another event's window or aftermath only extends what is left out", () => {
    const shove: ScheduledEvent = { tick: 100, kind: 'shove', injection: { kind: 'shove', forwardMps: 1, leftwardMps: 0 }, activeTicks: 0 };
    const labels = labelTicks(200, [shove]);
    const onsets = new Uint8Array(200);
    // A wall met in normal driving, a bounce inside that contact's second, one in the warm-up, one in the shove's aftermath.
    for (const tick of [50, 55, 10, 115]) onsets[tick] = 1;
    const touching = Uint8Array.from(onsets);
    // Pressed against a wall from tick 160 to 169, with no new contact begun.
    touching.fill(1, 160, 170);
    labelContacts(labels, onsets, touching);
    expect(runsOf(labels)).toEqual([
      // The warm-up, and the 4 s after the contact at tick 10.
      ['excluded', 50],
      ['contact', 10],
      // The 3 s after it, lengthened by the bounce at 55.
      ['excluded', 35],
      ['normal', 5],
      ['shove', 10],
      // The shove's 2 s after, lengthened by the contact at 115.
      ['excluded', 45],
      ['normal', 5],
      // Pressed against the wall, and the 3 s after.
      ['excluded', 40],
    ]);
  });
});

describe('eventCanShow', () => {
  // 360 beams from −π, one a degree: everything 5 m away, but what `near` says.
  const scan = (near: (angleDeg: number) => number | undefined = () => undefined): LaserScan => ({
    kind: 'LaserScan',
    frameId: 'laser',
    angleMinRad: -Math.PI,
    angleMaxRad: Math.PI - Math.PI / 180,
    angleIncrementRad: Math.PI / 180,
    rangeMinM: 0.1,
    rangeMaxM: 8,
    rangesM: Float32Array.from({ length: 360 }, (_, beam) => near(beam - 180) ?? 5),
  });
  const obstacle = { kind: 'drop-obstacle', distanceM: 0.7, radiusM: 0.2 } as const;
  const shove = { kind: 'shove', forwardMps: 1, leftwardMps: 0 } as const;

  it('waits while the robot is pressed against something, whatever the event', () => {
    expect(eventCanShow(shove, true, scan())).toBe(false);
    expect(eventCanShow({ kind: 'freeze-camera', durationMs: 2000 }, true, scan())).toBe(false);
    expect(eventCanShow(shove, false, undefined)).toBe(true);
  });

  it('drops an obstacle only where the way ahead is clear past it', () => {
    expect(eventCanShow(obstacle, false, scan())).toBe(true);
    // A wall 0.6 m ahead: the pillar would stand in or behind it.
    expect(
      eventCanShow(
        obstacle,
        false,
        scan((deg) => (Math.abs(deg) <= 30 ? 0.6 : undefined)),
      ),
    ).toBe(false);
    // Something near, but beside the pillar's beams (its half-width is asin(0.2 / 0.7) ≈ 17°): clear.
    expect(
      eventCanShow(
        obstacle,
        false,
        scan((deg) => (Math.abs(deg) >= 25 && Math.abs(deg) <= 40 ? 0.4 : undefined)),
      ),
    ).toBe(true);
    expect(eventCanShow(obstacle, false, undefined)).toBe(false);
  });
});

describe('postponeEvents', () => {
  const at = (tick: number): ScheduledEvent => ({ tick, kind: 'shove', injection: { kind: 'shove', forwardMps: 1, leftwardMps: 0 }, activeTicks: 0 });

  it('moves an event and the later ones on together, and drops those whose first second would leave the segment', () => {
    const events = [at(30), at(90), at(150)];
    expect(postponeEvents(events, 1, 5, 200).map((event) => event.tick)).toEqual([30, 95, 155]);
    expect(postponeEvents(events, 1, 40, 200).map((event) => event.tick)).toEqual([30, 130, 190]);
    expect(postponeEvents(events, 1, 41, 200).map((event) => event.tick)).toEqual([30, 131]);
    expect(events.map((event) => event.tick)).toEqual([30, 90, 150]);
  });
});
