// Episodes of the simulated robot for `reins bench worldmodel`: the fused embedding the control loop
// sees at 10 Hz, the command given after each frame, and (optionally) injected shoves, obstacles and
// sensor faults with every tick labelled, so a world model's open-loop error and surprise can be scored.
import { DEFAULT_TOPIC_MAP } from '../../core/link.ts';
import { twistFromDrive, type DriveCommand, type LaserScan } from '../../core/messages.ts';
import { createSynchroniser } from '../../session/loopWiring.ts';
import { withinSessionSpeedLimits } from '../../session/safetyParts.ts';
import { DEFAULT_MANIFEST_PATH, openEncoders, type OnnxPerception, type PerceptionOptions } from '../../session/encoders.ts';
import { createSimLink } from '../../sim/lockstepLink.ts';
import { deriveSeed, SeededRandom } from '../../sim/random.ts';
import { RANDOM_POLICY_RESAMPLE_SECS, RandomPolicy } from '../../sim/randomPolicy.ts';
import { ScriptedOperator } from '../../sim/scriptedOperator.ts';
import {
  ALL_EVENTS,
  eventCanShow,
  labelContacts,
  labelTicks,
  postponeEvents,
  scheduleEvents,
  type EventChoice,
  type EventLabel,
  type ScheduledEvent,
} from './worldModelEvents.ts';

export { EVENT_KINDS, EVENT_LABELS, labelTicks, type EventKind, type EventLabel, type ScheduledEvent } from './worldModelEvents.ts';

export const CONTROL_PERIOD_SECS = 0.1;

export interface SimEpisodeOptions {
  /** One arena per seed; keep training and held-out seeds distinct. */
  arenaSeeds: readonly number[];
  segmentsPerArena: number;
  /** Recorded control ticks per segment (10 per second). */
  ticksPerSegment: number;
  seed: number;
  /** Inject shoves, dropped obstacles and sensor faults, and label the ticks after them. */
  events: boolean;
  /** Which of them, and how a camera freezes. */
  eventChoice: EventChoice;
  /** The robot stands still the whole segment (every command zero): for what a frozen camera shows on a robot that does not move. */
  standStill: boolean;
  /** Chance that a driving spell is random exploration rather than the scripted operator. */
  randomSpellChance: number;
  /** How long random exploration holds each command it draws (a key held, when long). */
  randomHoldSecs: number;
  encoders: string;
  perception: Partial<PerceptionOptions>;
}

/** One segment: a fresh episode driven for `ticks` control ticks, never crossing a reset. */
export interface SimEpisode {
  arenaSeed: number;
  /** Index of the segment within its arena. */
  segment: number;
  ticks: number;
  embeddingSize: number;
  /** ticks × embeddingSize: the embedding of the frame at each tick. */
  embeddings: Float32Array;
  /** ticks × 2 (linearMps, angularRadps): the command given after tick t's frame, leading to t + 1. */
  actions: Float32Array;
  labels: EventLabel[];
  /** ticks × 3 (xM, yM, yawRad): the true pose at each frame (never the model's input: for scoring predicted paths). */
  posesWorld: Float32Array;
  /** ticks × 2 (linearMps, angularRadps): the odometry's velocity at each frame, as the loop saw it (NaN where none came). */
  odomVelocities: Float32Array;
  /** ticks: 1 where random exploration chose the action, 0 where the scripted operator did. */
  randomDriven: Uint8Array;
  /** ticks: 1 where the step that made the tick's frame began a new collision (the robot met a wall or an obstacle). */
  contactOnsets: Uint8Array;
  /** ticks: 1 where the robot was pressed against something during that step. */
  touching: Uint8Array;
  events: ScheduledEvent[];
}

export const DEFAULT_SIM_EPISODE_OPTIONS: Readonly<SimEpisodeOptions> = Object.freeze({
  arenaSeeds: [1],
  segmentsPerArena: 10,
  ticksPerSegment: 200,
  seed: 1,
  events: false,
  eventChoice: ALL_EVENTS,
  standStill: false,
  randomSpellChance: 0.4,
  randomHoldSecs: RANDOM_POLICY_RESAMPLE_SECS,
  encoders: DEFAULT_MANIFEST_PATH,
  perception: {},
});

/** Unrecorded ticks after a segment's reset, so every stream has published before the first frame. */
const SETTLE_TICKS = 5;
/** A driving spell (operator or random) lasts this many ticks, drawn uniformly. */
const SPELL_TICKS = { min: 10, max: 40 };
const log = (line: string) => process.stderr.write(`${line}\n`);
const STAND_STILL: DriveCommand = Object.freeze({ linearMps: 0, angularRadps: 0 });

export async function recordSimEpisodes(given: Partial<SimEpisodeOptions> = {}): Promise<SimEpisode[]> {
  const options = { ...DEFAULT_SIM_EPISODE_OPTIONS, ...given };
  if (!(Number.isInteger(options.ticksPerSegment) && options.ticksPerSegment > 0))
    throw new RangeError(`ticksPerSegment must be a whole number > 0, got ${options.ticksPerSegment}`);
  if (!(Number.isInteger(options.segmentsPerArena) && options.segmentsPerArena >= 0))
    throw new RangeError(`segmentsPerArena must be a whole number ≥ 0, got ${options.segmentsPerArena}`);
  const perception = await openEncoders(options.encoders, options.perception);
  try {
    const off = perception.status().modalities.filter((m) => m.state === 'off');
    if (off.length > 0) throw new Error(`encoders refused: ${off.map((m) => m.problem).join('; ')}`);
    const episodes: SimEpisode[] = [];
    // Counts events across the whole run so that the four kinds come up equally often.
    let eventCount = deriveSeed('world-model-event-kinds', options.seed) % options.eventChoice.kinds.length;
    const total = options.arenaSeeds.length * options.segmentsPerArena;
    const startedMs = performance.now();
    for (const arenaSeed of options.arenaSeeds) {
      for (let segment = 0; segment < options.segmentsPerArena; segment++) {
        const random = new SeededRandom(deriveSeed('world-model-segment', options.seed, arenaSeed, segment));
        const events = options.events ? scheduleEvents(options.ticksPerSegment, random, eventCount, options.eventChoice) : [];
        eventCount += events.length;
        episodes.push(await recordSegment(perception, options, arenaSeed, segment, events, random));
        if (episodes.length % 10 === 0 || episodes.length === total) {
          log(`worldmodel: recorded ${episodes.length}/${total} segments (${((performance.now() - startedMs) / 1000).toFixed(1)} s)`);
        }
      }
    }
    return episodes;
  } finally {
    await perception.close();
  }
}

/**
 * A fresh sim per segment, so a segment depends on its own seeds alone. Auto reset is off: the
 * episode's verdict (a collision, the goal reached) would otherwise teleport the robot mid-segment,
 * and a world model's data should keep the dynamics going — the robot is still there to drive.
 */
async function recordSegment(
  perception: OnnxPerception,
  options: SimEpisodeOptions,
  arenaSeed: number,
  segment: number,
  events: ScheduledEvent[],
  random: SeededRandom,
): Promise<SimEpisode> {
  const episodeSeed = deriveSeed('world-model-episode', options.seed, arenaSeed, segment);
  const link = createSimLink({ arenaSeed, episodeSeed, epochMs: 0, autoReset: false });
  const synchroniser = createSynchroniser(link);
  const operator = new ScriptedOperator(link.robot.arena, { seed: episodeSeed });
  const explorer = new RandomPolicy(episodeSeed, options.randomHoldSecs);
  const ticks = options.ticksPerSegment;
  const size = perception.embeddingSize;
  const episode: SimEpisode = {
    arenaSeed,
    segment,
    ticks,
    embeddingSize: size,
    embeddings: new Float32Array(ticks * size),
    actions: new Float32Array(ticks * 2),
    // Labelled once the segment is driven, where its events did fall (an event can wait).
    labels: [],
    posesWorld: new Float32Array(ticks * 3),
    odomVelocities: new Float32Array(ticks * 2).fill(Number.NaN),
    randomDriven: new Uint8Array(ticks),
    contactOnsets: new Uint8Array(ticks),
    touching: new Uint8Array(ticks),
    events,
  };
  const start = link.robot.groundTruth();
  const episodeIndex = start.episode.index;
  let collisions = start.collisionCount;
  let lastCommand: DriveCommand = { linearMps: 0, angularRadps: 0 };
  let spell = { random: false, ticksLeft: 0 };
  let nextEvent = 0;
  // What the last step left: whether the robot was pressed against something, and its scan.
  let touching = false;
  let scan: LaserScan | undefined;
  try {
    for (let i = -SETTLE_TICKS; i < ticks; i++) {
      // An event that could not show now waits a tick, and the later ones with it; one that no
      // longer fits the segment is dropped.
      if (episode.events[nextEvent]?.tick === i && !eventCanShow(episode.events[nextEvent]!.injection, touching, scan)) {
        episode.events = postponeEvents(episode.events, nextEvent, 1, ticks);
      }
      const event = episode.events[nextEvent];
      // Injected just before the step whose frame is tick i, so that frame is the first to show it.
      if (event !== undefined && event.tick === i) {
        link.inject(event.injection);
        nextEvent++;
      }
      link.advance(CONTROL_PERIOD_SECS);
      const frame = synchroniser.frame(link.clockMs());
      const truth = link.robot.groundTruth();
      touching = truth.contact;
      scan = frame.scan?.received.msg;
      // Counted every tick, the settling ones too: a collision begun then is not this tick's.
      const contactBegan = truth.collisionCount > collisions;
      collisions = truth.collisionCount;
      if (truth.episode.index !== episodeIndex)
        throw new Error(`segment ${arenaSeed}/${segment} crossed an episode reset at tick ${i}: the sim must not auto-reset here`);
      const incomplete = frame.missing.filter((role) => role !== 'odom');
      if (i >= 0 && incomplete.length > 0)
        throw new Error(`segment ${arenaSeed}/${segment}, tick ${i}: the frame misses ${incomplete.join(', ')}: not every encoder would run`);
      const embedding = i >= 0 ? await perception.encode(frame, lastCommand) : undefined;

      // The operator is asked every tick, driving or not, so its delayed view of the world stays current.
      const operatorCommand = operator.drive(truth);
      if (spell.ticksLeft === 0) {
        spell = { random: random.next() < options.randomSpellChance, ticksLeft: SPELL_TICKS.min + random.integer(SPELL_TICKS.max - SPELL_TICKS.min + 1) };
      }
      spell.ticksLeft--;
      // Within the safety filter's speed limits (0.5 m/s, 1.5 rad/s; the sim's base could do 0.6 and 2),
      // clamped as a running core's filter clamps it (its ramp left to the sim's own base): a model
      // trained here scales actions as a live session does, and a session can resume from its checkpoint.
      lastCommand = withinSessionSpeedLimits(options.standStill ? STAND_STILL : spell.random ? explorer.command(truth.simTimeSecs) : operatorCommand);
      link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(lastCommand));

      if (embedding === undefined) continue;
      episode.embeddings.set(embedding.values, i * size);
      episode.actions.set([lastCommand.linearMps, lastCommand.angularRadps], i * 2);
      episode.posesWorld.set([truth.pose.xM, truth.pose.yM, truth.pose.yawRad], i * 3);
      const odom = frame.odom?.received.msg;
      if (odom !== undefined) episode.odomVelocities.set([odom.linearMps, odom.angularRadps], i * 2);
      episode.randomDriven[i] = spell.random ? 1 : 0;
      episode.contactOnsets[i] = contactBegan ? 1 : 0;
      episode.touching[i] = truth.contact ? 1 : 0;
    }
    episode.labels = labelTicks(ticks, episode.events);
    labelContacts(episode.labels, episode.contactOnsets, episode.touching);
  } finally {
    synchroniser.close();
    await link.close();
  }
  return episode;
}
