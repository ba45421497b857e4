// What the core calls to record a session: every topic the link offers but the command topic (also
// those that appear later: after a reconnect, once rosapi has listed them, when a node starts
// publishing; a latched one's message reaches the recorder whenever it joins, topicFanout.ts), every
// command sent with who drove, the link's alerts, and operator inputs, the operator's feedback, each
// tick's step and reward estimate, and the world model's surprise as the caller reports them. One
// file per session under `folder`, rotated at a size limit, within a quota.
import type { CoreAlert } from '../core/alert.ts';
import { join } from 'node:path';
import type { Link } from '../core/link.ts';
import { twistFromDrive, type RobotMessage } from '../core/messages.ts';
import { Recorder, type RecorderStats } from './recorder.ts';
import {
  ALERTS_CHANNEL,
  COMMAND_SENT_CHANNEL,
  FEEDBACK_CHANNEL,
  OPERATOR_INPUT_CHANNEL,
  SURPRISE_CHANNEL,
  TICK_CHANNEL,
  type CommandSentEvent,
  type FeedbackEvent,
  type OperatorInputEvent,
  type SurpriseEvent,
  type TickEvent,
} from './reinsEvents.ts';

/** The part of the control loop recording needs (ControlLoop has it). */
export interface CommandSource {
  onSent(listener: (sent: CommandSentEvent) => void): () => void;
}

export interface SessionRecordingOptions {
  link: Link;
  /** Where the control loop's commands come from; omitted when nothing drives (`reins record`). */
  loop?: CommandSource;
  /** The topic commands go out on, for their geometry_msgs/Twist channel (e.g. `/cmd_vel`). */
  commandTopic?: string;
  folder: string;
  quotaBytes?: number;
  maxFileBytes?: number;
  /** Wall clock in ms for event log times; injectable for tests. */
  clock?: () => number;
  /** The file name; defaults to `reins-<robot>-<start time>.mcap`. */
  fileName?: string;
  /** How often the link's topics are looked at for new ones (default 1000 ms). */
  topicCheckMs?: number;
}

export interface SessionRecording {
  readonly path: string;
  recordOperatorInput(input: OperatorInputEvent, atMs?: number): void;
  /** The world model's surprise at a tick, logged at the tick's time. */
  recordSurprise(surprise: SurpriseEvent, atMs: number): void;
  /** What the operator taught, logged when it was given (row.atMs). */
  recordFeedback(feedback: FeedbackEvent): void;
  /** A control tick's step, driver, policy version and reward estimate, logged at the tick's time. */
  recordTick(tick: TickEvent, atMs: number): void;
  /** The file being written now (a new one after each size limit). */
  currentPath(): string;
  /** Recording's own warnings (quota, drops, a failed disk), as keyed alerts with a hint. */
  alerts(): CoreAlert[];
  onAlerts(listener: (alerts: readonly CoreAlert[]) => void): () => void;
  stats(): RecorderStats;
  close(): Promise<void>;
}

export async function startSessionRecording(options: SessionRecordingOptions): Promise<SessionRecording> {
  const clock = options.clock ?? Date.now;
  const fileName = options.fileName ?? `reins-${safeName(options.link.robotName)}-${new Date(clock()).toISOString().replace(/[:.]/g, '-')}.mcap`;
  const path = join(options.folder, fileName);
  const recorder = await Recorder.open({ path, quotaBytes: options.quotaBytes, maxFileBytes: options.maxFileBytes });
  const { link } = options;
  const subscribed = new Map<string, () => void>();
  // A ROS 2 robot's messages say so (Received.ros2): its commands are then recorded in ROS 2's encoding too.
  let robotRunsRos2 = false;
  const subscribeNewTopics = () => {
    for (const topic of link.topics()) {
      if (topic.kind === 'Twist' || subscribed.has(topic.topic)) continue;
      subscribed.set(
        topic.topic,
        link.subscribe<RobotMessage>(topic.topic, (received) => {
          robotRunsRos2 ||= received.ros2 !== undefined;
          recorder.record(received);
        }),
      );
    }
  };
  subscribeNewTopics();
  // Links tell presence, not their topic list: topics a link learns of later are looked for now and then.
  const topicCheck = setInterval(subscribeNewTopics, options.topicCheckMs ?? DEFAULT_TOPIC_CHECK_MS);
  topicCheck.unref();
  const stops: Array<() => void> = [
    () => clearInterval(topicCheck),
    link.on('presence', (presence) => presence === 'present' && subscribeNewTopics()),
    link.on('alerts', (alerts) => recorder.recordEvent(ALERTS_CHANNEL, clock(), { alerts })),
  ];
  if (options.loop !== undefined) {
    const commandTopic = options.commandTopic ?? '/cmd_vel';
    stops.push(
      options.loop.onSent((sent) => {
        const event: CommandSentEvent = {
          driver: sent.driver,
          command: sent.command,
          requested: sent.requested,
          clipped: sent.clipped,
          delivered: sent.delivered,
          atMs: sent.atMs,
        };
        recorder.recordEvent(COMMAND_SENT_CHANNEL, sent.atMs, event);
        const ros2 = robotRunsRos2 ? { rosType: 'geometry_msgs/msg/Twist' } : undefined;
        recorder.record({ topic: commandTopic, receiveTimeMs: sent.atMs, sourceTimeMs: sent.atMs, msg: twistFromDrive(sent.command), ros2 });
      }),
    );
  }
  return {
    path,
    recordOperatorInput: (input, atMs = clock()) => void recorder.recordEvent(OPERATOR_INPUT_CHANNEL, atMs, input),
    recordSurprise: (surprise, atMs) => void recorder.recordEvent(SURPRISE_CHANNEL, atMs, surprise),
    recordFeedback: (feedback) => void recorder.recordEvent(FEEDBACK_CHANNEL, feedback.atMs, feedback),
    recordTick: (tick, atMs) => void recorder.recordEvent(TICK_CHANNEL, atMs, tick),
    currentPath: () => recorder.stats().files.at(-1) ?? path,
    alerts: () => recorder.alerts(),
    onAlerts: (listener) => recorder.onAlerts(listener),
    stats: () => recorder.stats(),
    close: async () => {
      for (const stop of stops) stop();
      for (const unsubscribe of subscribed.values()) unsubscribe();
      await recorder.close();
    },
  };
}

const DEFAULT_TOPIC_CHECK_MS = 1000;

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40) || 'robot';
}
