// Where a world-model segment's injected events fall and how each tick is labelled for the surprise
// rows: the event's kind for the first second after it, 'excluded' while its effects may linger (and
// while the model warms up), 'normal' otherwise. A collision the driving itself ran into (a wall met
// at speed) is not normal driving either: its first second is labelled 'contact', its aftermath excluded.
import type { LaserScan } from '../../core/messages.ts';
import type { SimInjection } from '../../sim/injection.ts';
import type { SeededRandom } from '../../sim/random.ts';

export const EVENT_KINDS = ['shove', 'obstacle', 'camera-freeze', 'lidar-blackout'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
export const EVENT_LABELS = ['normal', ...EVENT_KINDS, 'contact', 'excluded'] as const;
export type EventLabel = (typeof EVENT_LABELS)[number];

export interface ScheduledEvent {
  /** Injected just before the step that produces this tick's frame. */
  tick: number;
  kind: EventKind;
  injection: SimInjection;
  /** Ticks the fault stays in force (0 for a shove or a dropped obstacle: they happen at once). */
  activeTicks: number;
}

const TICKS_PER_SEC = 10;
/** The model's state is still warming up at a segment's start. */
const WARMUP_TICKS = 2 * TICKS_PER_SEC;
const EARLIEST_EVENT_TICK = 3 * TICKS_PER_SEC;
/** The event's own label covers its tick and the next 9: the first second. */
const EVENT_WINDOW_TICKS = 1 * TICKS_PER_SEC;
/** After an event ends its effects may linger (a robot still sliding, a state still recovering). */
const LINGER_TICKS = 3 * TICKS_PER_SEC;
const MIN_EVENT_GAP_TICKS = 5 * TICKS_PER_SEC;
/** How far past the earliest allowed tick an event may fall. */
const JITTER_TICKS = 2 * TICKS_PER_SEC;

/** Which events a segment gets, and how a camera freezes. */
export interface EventChoice {
  /** The kinds, taken in turn. */
  kinds: readonly EventKind[];
  /** A frozen camera draws its frozen view again with fresh pixel noise, as a real camera would, instead of repeating it bit for bit. */
  freezeFreshNoise: boolean;
}

export const ALL_EVENTS: Readonly<EventChoice> = Object.freeze({ kinds: EVENT_KINDS, freezeFreshNoise: false });

/**
 * Seeded events for one segment, as many as fit: ≥ 3 s in, ≥ 5 s apart, and never inside the last
 * one's lingering, so no event's window is confounded by another. Kinds go round from `firstKindIndex`.
 */
export function scheduleEvents(ticks: number, random: SeededRandom, firstKindIndex: number, choice: EventChoice = ALL_EVENTS): ScheduledEvent[] {
  if (choice.kinds.length === 0) throw new RangeError('no event kinds to schedule');
  const events: ScheduledEvent[] = [];
  let earliestTick = EARLIEST_EVENT_TICK;
  for (;;) {
    const latestTick = ticks - EVENT_WINDOW_TICKS;
    if (earliestTick > latestTick) return events;
    const tick = earliestTick + random.integer(Math.min(JITTER_TICKS, latestTick - earliestTick) + 1);
    const kind = choice.kinds[(firstKindIndex + events.length) % choice.kinds.length]!;
    const injection = drawInjection(kind, random, choice.freezeFreshNoise);
    const activeTicks = 'durationMs' in injection ? Math.ceil(injection.durationMs / (1000 / TICKS_PER_SEC)) : 0;
    events.push({ tick, kind, injection, activeTicks });
    earliestTick = Math.max(tick + MIN_EVENT_GAP_TICKS, tick + activeTicks + LINGER_TICKS);
  }
}

function drawInjection(kind: EventKind, random: SeededRandom, freezeFreshNoise: boolean): SimInjection {
  switch (kind) {
    case 'shove': {
      // A kick in any direction in the robot's frame, hard enough to move it visibly.
      const speedMps = random.uniform(0.6, 1.5);
      const headingRad = random.uniform(0, 2 * Math.PI);
      return { kind: 'shove', forwardMps: speedMps * Math.cos(headingRad), leftwardMps: speedMps * Math.sin(headingRad) };
    }
    case 'obstacle':
      return { kind: 'drop-obstacle', distanceM: random.uniform(0.5, 0.9), radiusM: random.uniform(0.15, 0.3) };
    case 'camera-freeze':
      return { kind: 'freeze-camera', durationMs: Math.round(random.uniform(2000, 3000)), ...(freezeFreshNoise ? { freshNoise: true } : {}) };
    case 'lidar-blackout':
      return { kind: 'blackout-lidar', durationMs: Math.round(random.uniform(2000, 3000)) };
  }
}

/**
 * Whether an event injected now can show at all. Not while the robot is pressed against something: a
 * shove into the wall it leans on moves nothing, and its view and scan hardly change (normal ticks there
 * are left out of the comparison too, labelContacts). A dropped obstacle only where the robot's last scan
 * saw the way ahead clear past it: dropped into or behind a nearer wall, no sensor would see it.
 */
export function eventCanShow(injection: SimInjection, touching: boolean, scan: LaserScan | undefined): boolean {
  if (touching) return false;
  if (injection.kind !== 'drop-obstacle') return true;
  if (scan === undefined) return false;
  const farM = injection.distanceM + injection.radiusM;
  // The beams that would meet the pillar: within its angular half-width of the heading.
  const halfWidthRad = Math.asin(Math.min(1, injection.radiusM / injection.distanceM));
  for (let beam = 0; beam < scan.rangesM.length; beam++) {
    const angleRad = scan.angleMinRad + beam * scan.angleIncrementRad;
    const offHeadingRad = Math.abs(Math.atan2(Math.sin(angleRad), Math.cos(angleRad)));
    if (offHeadingRad <= halfWidthRad && scan.rangesM[beam]! < farM) return false;
  }
  return true;
}

/**
 * Moves the event at `index` and every later one `by` ticks on, keeping their spacing; those that no
 * longer fit the segment (their first second inside it) are dropped.
 */
export function postponeEvents(events: readonly ScheduledEvent[], index: number, by: number, ticks: number): ScheduledEvent[] {
  const latestTick = ticks - EVENT_WINDOW_TICKS;
  return events.flatMap((event, at) => {
    if (at < index) return [event];
    const tick = event.tick + by;
    return tick <= latestTick ? [{ ...event, tick }] : [];
  });
}

/**
 * Marks the collisions the driving ran into. `onsets`: 1 at a tick whose step began a new contact;
 * `touching`: 1 at a tick whose step had the robot pressed against something. A collision's first
 * second is 'contact' where it was 'normal'; every tick spent touching, and the 3 s after, is
 * 'excluded' where it was 'normal' — a robot pushing against a wall is not normal driving either.
 * An injected event's window keeps its label (a shove that throws the robot at a wall is the shove's),
 * and a contact that begins inside another's window or aftermath only lengthens what is left out.
 */
export function labelContacts(labels: EventLabel[], onsets: Uint8Array, touching: Uint8Array): void {
  const mark = (from: number, to: number, label: EventLabel): void => {
    for (let tick = from; tick < Math.min(labels.length, to); tick++) if (labels[tick] === 'normal') labels[tick] = label;
  };
  onsets.forEach((onset, tick) => {
    if (onset !== 1) return;
    if (labels[tick] === 'normal') mark(tick, tick + EVENT_WINDOW_TICKS, 'contact');
    mark(tick, tick + EVENT_WINDOW_TICKS + LINGER_TICKS, 'excluded');
  });
  touching.forEach((touched, tick) => {
    if (touched === 1) mark(tick, tick + 1 + LINGER_TICKS, 'excluded');
  });
}

/** One label per tick; an event's own window wins over any exclusion. */
export function labelTicks(ticks: number, events: readonly ScheduledEvent[]): EventLabel[] {
  const labels = Array.from({ length: ticks }, (_, tick): EventLabel => (tick < WARMUP_TICKS ? 'excluded' : 'normal'));
  const mark = (from: number, to: number, label: EventLabel): void => {
    for (let tick = Math.max(0, from); tick < Math.min(ticks, to); tick++) labels[tick] = label;
  };
  for (const event of events) mark(event.tick, event.tick + event.activeTicks + LINGER_TICKS, 'excluded');
  for (const event of events) mark(event.tick, event.tick + EVENT_WINDOW_TICKS, event.kind);
  return labels;
}
