// What a review's timeline shows of a log: markers at the moments that matter (interventions,
// surprises above a threshold, answers, ratings, alerts, and the robot's own warnings and errors on
// /rosout, which is all a log of another tool marks) and numeric series to plot (speed, surprise
// ratio, reward estimate). Read once per log from Reins' own event topics and the odometry; the series are
// thinned to a bounded number of points so a long log plots as fast as a short one.
import type { ReviewMarker, ReviewSeries, ReviewTimelineResponse } from '../core/contract.ts';
import { SURPRISE_ALARM_RATIO } from '../core/belief.ts';
import type { FeedbackEvent, TickEvent } from './reinsEvents.ts';
import {
  ALERTS_CHANNEL,
  COMMAND_SENT_CHANNEL,
  FEEDBACK_CHANNEL,
  OPERATOR_INPUT_CHANNEL,
  readSurpriseEvent,
  SURPRISE_CHANNEL,
  TICK_CHANNEL,
  type AlertsEvent,
  type CommandSentEvent,
  type OperatorInputEvent,
} from './reinsEvents.ts';

export interface TimelineSource {
  readonly path: string;
  readonly channels: readonly { topic: string; schemaName: string }[];
  readonly startMs: number;
  readonly endMs: number;
  messages(range: { topics?: readonly string[] }): AsyncIterable<{ topic: string; logTimeMs: number; value: unknown }>;
}

export interface TimelineOptions {
  /** A surprise ratio (error over usual error) at or above this is marked. */
  surpriseRatioThreshold: number;
  /** Surprises closer together than this make one marker, at the highest. */
  surpriseMergeMs: number;
  /** Each series is thinned to at most this many points. */
  maxSeriesPoints: number;
}

export const DEFAULT_TIMELINE_OPTIONS: Readonly<TimelineOptions> = Object.freeze({
  surpriseRatioThreshold: SURPRISE_ALARM_RATIO,
  surpriseMergeMs: 2000,
  maxSeriesPoints: 2000,
});

const ODOMETRY_SCHEMAS = new Set(['nav_msgs/Odometry', 'nav_msgs/msg/Odometry']);
/** A log of another tool has no command events: its robot's command topic is what was commanded. */
const COMMAND_SCHEMAS = new Set(['geometry_msgs/Twist', 'geometry_msgs/msg/Twist', 'geometry_msgs/TwistStamped', 'geometry_msgs/msg/TwistStamped']);

/**
 * The robot's own log (/rosout): ROS 1's rosgraph_msgs/Log and ROS 2's rcl_interfaces/msg/Log, with the
 * level from which an entry is marked (WARN) in each one's numbering.
 */
const ROS_LOG_WARN_LEVEL = new Map([
  ['rosgraph_msgs/Log', 4],
  ['rcl_interfaces/msg/Log', 30],
]);
const ROS_LOG_LEVEL_NAMES: Record<string, Record<number, string>> = {
  'rosgraph_msgs/Log': { 4: 'WARN', 8: 'ERROR', 16: 'FATAL' },
  'rcl_interfaces/msg/Log': { 30: 'WARN', 40: 'ERROR', 50: 'FATAL' },
};
/** The same entry again within this long makes no new marker (a node warning at 10 Hz is one moment, not hundreds). */
const ROS_LOG_REPEAT_MS = 10_000;
/** The most markers the robot's log adds; past it, one marker says how many were left out. */
export const MAX_ROS_LOG_MARKERS = 500;

interface Point {
  t: number;
  v: number;
}

export async function buildTimeline(source: TimelineSource, options: Partial<TimelineOptions> = {}): Promise<ReviewTimelineResponse> {
  const settings = { ...DEFAULT_TIMELINE_OPTIONS, ...options };
  const odometry = source.channels.find((channel) => ODOMETRY_SCHEMAS.has(channel.schemaName))?.topic;
  const present = new Set(source.channels.map((channel) => channel.topic));
  const commandTopic = present.has(COMMAND_SENT_CHANNEL.topic)
    ? undefined
    : (
        source.channels.find((channel) => channel.topic === '/cmd_vel' && COMMAND_SCHEMAS.has(channel.schemaName)) ??
        source.channels.find((channel) => COMMAND_SCHEMAS.has(channel.schemaName))
      )?.topic;
  const rosLogs = new Map(
    source.channels.filter((channel) => ROS_LOG_WARN_LEVEL.has(channel.schemaName)).map((channel) => [channel.topic, channel.schemaName] as const),
  );
  const topics = [
    ...rosLogs.keys(),
    FEEDBACK_CHANNEL.topic,
    TICK_CHANNEL.topic,
    SURPRISE_CHANNEL.topic,
    ALERTS_CHANNEL.topic,
    OPERATOR_INPUT_CHANNEL.topic,
    COMMAND_SENT_CHANNEL.topic,
    ...(odometry ? [odometry] : []),
    ...(commandTopic ? [commandTopic] : []),
  ].filter((topic) => present.has(topic));
  const markers: ReviewMarker[] = [];
  const feedback: Array<{ row: FeedbackEvent; logTimeMs: number }> = [];
  const takeovers: number[] = [];
  const stepTimes = new Map<string, number>();
  const speed: Point[] = [];
  const commanded: Point[] = [];
  const surpriseRatio: Point[] = [];
  const reward: Point[] = [];
  let surpriseRun: { t: number; surpriseRatio: number; modality: string } | undefined;
  let lastSurpriseMs = -Infinity;
  const alertKeys = new Set<string>();
  const rosLogSeen = new Map<string, number>();
  let rosLogMarkers = 0;
  let rosLogLeftOut: { count: number; firstMs: number } | undefined;
  const closeSurpriseRun = () => {
    if (surpriseRun)
      markers.push({ kind: 'surprise', atMs: surpriseRun.t, label: `Surprise ${surpriseRun.surpriseRatio.toFixed(1)}× (${surpriseRun.modality})` });
    surpriseRun = undefined;
  };

  if (topics.length > 0) {
    for await (const message of source.messages({ topics })) {
      const t = message.logTimeMs;
      const value = message.value as Record<string, unknown>;
      const rosLogSchema = rosLogs.get(message.topic);
      if (rosLogSchema !== undefined) {
        const entry = rosLogEntry(rosLogSchema, value);
        if (entry === undefined) continue;
        const key = `${entry.level}|${entry.name}|${entry.text}`;
        const lastMs = rosLogSeen.get(key);
        rosLogSeen.set(key, t);
        if (lastMs !== undefined && t - lastMs < ROS_LOG_REPEAT_MS) continue;
        if (rosLogMarkers >= MAX_ROS_LOG_MARKERS) {
          rosLogLeftOut = { count: (rosLogLeftOut?.count ?? 0) + 1, firstMs: rosLogLeftOut?.firstMs ?? t };
          continue;
        }
        rosLogMarkers++;
        markers.push({ kind: 'alert', atMs: t, label: `${entry.level} ${entry.name}: ${entry.text}` });
        continue;
      }
      switch (message.topic) {
        case FEEDBACK_CHANNEL.topic:
          feedback.push({ row: value as unknown as FeedbackEvent, logTimeMs: t });
          break;
        case TICK_CHANNEL.topic: {
          const tick = value as unknown as TickEvent;
          stepTimes.set(`${tick.episodeId}#${tick.step}`, t);
          if (typeof tick.rewardEstimate === 'number') reward.push({ t, v: tick.rewardEstimate });
          break;
        }
        case SURPRISE_CHANNEL.topic: {
          const event = readSurpriseEvent(value);
          if (event === undefined) break;
          surpriseRatio.push({ t, v: event.surpriseRatio });
          if (event.surpriseRatio < settings.surpriseRatioThreshold) break;
          if (t - lastSurpriseMs > settings.surpriseMergeMs) closeSurpriseRun();
          lastSurpriseMs = t;
          if (!surpriseRun || event.surpriseRatio > surpriseRun.surpriseRatio)
            surpriseRun = { t, surpriseRatio: event.surpriseRatio, modality: event.modality };
          break;
        }
        case ALERTS_CHANNEL.topic: {
          const now = new Set<string>();
          for (const alert of (value as unknown as AlertsEvent).alerts ?? []) {
            now.add(alert.key);
            if (alertKeys.has(alert.key) || alert.severity === 'info') continue;
            markers.push({ kind: 'alert', atMs: t, label: alert.message });
          }
          alertKeys.clear();
          for (const key of now) alertKeys.add(key);
          break;
        }
        case OPERATOR_INPUT_CHANNEL.topic:
          if ((value as unknown as OperatorInputEvent).action === 'take-over') takeovers.push(t);
          break;
        case COMMAND_SENT_CHANNEL.topic: {
          const sent = value as unknown as CommandSentEvent;
          if (sent.driver !== 'idle' && Number.isFinite(sent.command?.linearMps)) commanded.push({ t, v: sent.command.linearMps });
          break;
        }
        case commandTopic: {
          const linear = readCommandedSpeed(value);
          if (linear !== undefined) commanded.push({ t, v: linear });
          break;
        }
        default: {
          const linear = readOdometrySpeed(value);
          if (linear !== undefined) speed.push({ t, v: linear });
        }
      }
    }
  }
  closeSurpriseRun();
  if (rosLogLeftOut !== undefined)
    markers.push({
      kind: 'alert',
      atMs: rosLogLeftOut.firstMs,
      label: `${rosLogLeftOut.count} more warnings and errors of the robot's log from here on are not marked (at most ${MAX_ROS_LOG_MARKERS})`,
    });
  markers.push(...feedbackMarkers(feedback, stepTimes));
  // A log without learning has no feedback topic: its takeovers are its interventions.
  if (!present.has(FEEDBACK_CHANNEL.topic)) for (const t of takeovers) markers.push({ kind: 'intervention', atMs: t, label: 'Operator took over' });
  markers.sort((a, b) => a.atMs - b.atMs);
  const series: ReviewSeries[] = [];
  if (speed.length > 0) series.push(thinned('Speed', 'm/s', speed, settings.maxSeriesPoints));
  if (commanded.length > 0) series.push(thinned('Commanded speed', 'm/s', commanded, settings.maxSeriesPoints));
  if (surpriseRatio.length > 0) series.push(thinned('Surprise ratio', '× usual error', surpriseRatio, settings.maxSeriesPoints));
  if (reward.length > 0) series.push(thinned('Reward estimate', '', reward, settings.maxSeriesPoints));
  return { file: source.path, startMs: source.startMs, endMs: source.endMs, markers, series };
}

/** Feedback in time: an intervention at its first step, an answer or a rating when it was given; undone items are left out. */
function feedbackMarkers(feedback: readonly { row: FeedbackEvent; logTimeMs: number }[], stepTimes: ReadonlyMap<string, number>): ReviewMarker[] {
  const undone = new Set(feedback.filter(({ row }) => row.kind === 'undo').map(({ row }) => row.undoesCorrectionId));
  const markers: ReviewMarker[] = [];
  for (const { row, logTimeMs } of feedback) {
    if (undone.has(row.correctionId)) continue;
    switch (row.kind) {
      case 'intervention': {
        const startMs = stepTimes.get(`${row.episodeId}#${row.spanStartStep}`) ?? logTimeMs;
        markers.push({ kind: 'intervention', atMs: startMs, label: `Intervention (${row.spanEndStep - row.spanStartStep + 1} ticks)` });
        break;
      }
      case 'rating':
        markers.push({
          kind: 'rating',
          atMs: stepTimes.get(`${row.episodeId}#${row.spanEndStep}`) ?? logTimeMs,
          label: row.rating === 1 ? 'Rated good' : 'Rated bad',
        });
        break;
      case 'preference':
        if (row.answer !== 'unsure')
          markers.push({
            kind: 'answer',
            atMs: logTimeMs,
            label: `Answered: ${row.answer === 'equal' ? 'about the same' : row.answer === 'first' ? 'left better' : 'right better'}`,
          });
        break;
      case 'undo':
        break;
    }
  }
  return markers;
}

/** linear.x of a Twist, or of a TwistStamped's twist. */
/** A /rosout entry at WARN or above: its level's name, the node and the message (shortened); undefined below WARN or when it is not a log entry. */
function rosLogEntry(schemaName: string, value: Record<string, unknown>): { level: string; name: string; text: string } | undefined {
  const level = value.level;
  if (typeof level !== 'number' || level < ROS_LOG_WARN_LEVEL.get(schemaName)!) return undefined;
  const text = typeof value.msg === 'string' ? value.msg.replace(/\s+/g, ' ').trim() : '';
  const name = typeof value.name === 'string' && value.name !== '' ? value.name : 'a node';
  return { level: ROS_LOG_LEVEL_NAMES[schemaName]![level] ?? `level ${level}`, name, text: text.length > 200 ? `${text.slice(0, 199)}…` : text };
}

function readCommandedSpeed(value: unknown): number | undefined {
  const twist = value as { linear?: { x?: unknown }; twist?: { linear?: { x?: unknown } } };
  const linear = (twist?.twist ?? twist)?.linear?.x;
  return typeof linear === 'number' && Number.isFinite(linear) ? linear : undefined;
}

function readOdometrySpeed(value: unknown): number | undefined {
  const linear = (value as { twist?: { twist?: { linear?: { x?: unknown } } } })?.twist?.twist?.linear?.x;
  return typeof linear === 'number' && Number.isFinite(linear) ? linear : undefined;
}

/** At most `maxPoints` points: each bucket of consecutive points keeps its largest magnitude (peaks stay visible). */
function thinned(name: string, unit: string, points: readonly Point[], maxPoints: number): ReviewSeries {
  const bucket = Math.max(1, Math.ceil(points.length / maxPoints));
  const timesMs: number[] = [];
  const values: number[] = [];
  for (let from = 0; from < points.length; from += bucket) {
    let pick = points[from]!;
    for (let i = from + 1; i < Math.min(points.length, from + bucket); i++) if (Math.abs(points[i]!.v) > Math.abs(pick.v)) pick = points[i]!;
    timesMs.push(pick.t);
    values.push(pick.v);
  }
  return { name, unit, timesMs, values };
}
