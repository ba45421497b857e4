// A recorded MCAP log as the robot (DESIGN §5 replay): the log's sensor topics delivered through the
// same Link interface as a live robot, at 0.25×–8× the recorded pace, with play, pause and seek. It
// sends nothing: `publish` always refuses, and its capabilities say so. Messages are decoded by the
// rosbridge link's own decoders, so a replayed frame reaches the synchroniser exactly as a live one
// would; they arrive stamped on the cockpit's clock now, keeping the recorded latency. A type without
// a kind of its own (/tf, /robot_description, /map) comes back as RosFields named by its schema, the
// fields as the log holds them (ROS 1 times reshaped to rosbridge's `{secs, nsecs}`).
import type { CoreAlert } from '../../core/alert.ts';
import type { Link, LinkCapabilities, LinkEvents, LinkPresence, TopicInfo, Unsubscribe } from '../../core/link.ts';
import { LinkEventHub } from '../linkEventHub.ts';
import type { MessageKind, Received, RobotMessage } from '../../core/messages.ts';
import { decoderFor, deliveredKindOf } from '../rosbridge/decode/messageTypes.ts';
import { TopicFanout } from '../topicFanout.ts';
import { foxgloveSchemaDecoder } from './foxgloveSchemas.ts';
import { rosbridgeWireValue } from './recordedValues.ts';

export const MIN_REPLAY_SPEED = 0.25;
export const MAX_REPLAY_SPEED = 8;

/** A log's channel as the replay sees it. */
export interface ReplayChannel {
  topic: string;
  schemaName: string;
  /** `ros1`, `cdr`, `json`, …; a channel in another encoding is not read back, so it is no stream. */
  messageEncoding?: string;
}

/** One message read back from a log (RecordingReader's and ReviewLog's shape). */
export interface LoggedMessage {
  topic: string;
  schemaName: string;
  logTimeMs: number;
  value: unknown;
}

/** What the replay needs of an opened log. */
export interface ReplaySource {
  readonly path: string;
  /** The log's channels: topic and the schema its messages were written with (and their encoding, where the log says). */
  readonly channels: readonly ReplayChannel[];
  /** Log times (epoch ms) of the first and last message. */
  readonly startMs: number;
  readonly endMs: number;
  /** What could not be read of the log, in words; shown to the operator as alerts. */
  readonly problems: readonly string[];
  messages(range: { topics?: readonly string[]; startMs?: number; endMs?: number }): AsyncIterable<LoggedMessage>;
  latestAt(topic: string, timeMs: number): Promise<LoggedMessage | undefined>;
}

export interface ReplayPosition {
  positionMs: number;
  playing: boolean;
  speed: number;
}

export interface ReplayLinkOptions {
  clock?: () => number;
  robotName?: string;
  /** Told when playback reaches the end of the log (it pauses there). */
  onEnded?: () => void;
  /** CompressedImage topics delivered as decoded Images, as a live link does for a camera role on one. */
  imageTopics?: readonly string[];
}

type Decode = (wire: unknown) => { ok: true; msg: RobotMessage; stampMs: number | undefined } | { ok: false; problem: string; hint: string };

/** Playback waits for a message's due time only when it is at least this far ahead. */
const MIN_WAIT_MS = 1;

export class ReplayLink implements Link {
  readonly robotName: string;
  readonly capabilities: LinkCapabilities = Object.freeze({ sendsCommands: false, simulated: false });
  private readonly hub = new LinkEventHub('present');
  private readonly fanout: TopicFanout;
  private readonly clock: () => number;
  private readonly decoders = new Map<string, { kind: MessageKind; decode: Decode }>();
  private readonly undecodable = new Map<string, number>();
  private readonly problems: CoreAlert[];
  private positionMs: number;
  private speed = 1;
  private playing = false;
  /** Wall time and log time at which playback (re)started at the current speed. */
  private anchor = { wallMs: 0, logMs: 0 };
  /** Changes on every play, pause, seek and speed change: a playback run of an older one stops. */
  private generation = 0;
  private wake: (() => void) | undefined;
  private closed = false;

  constructor(
    readonly source: ReplaySource,
    private readonly options: ReplayLinkOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.robotName = options.robotName ?? `replay of ${source.path.split(/[\\/]/).pop()}`;
    this.positionMs = source.startMs;
    for (const channel of source.channels) {
      const decoder = channelDecoder(channel, options.imageTopics?.includes(channel.topic) ? 'Image' : undefined);
      if (decoder && !this.decoders.has(channel.topic)) this.decoders.set(channel.topic, decoder);
    }
    this.problems = source.problems.map((problem, index) => ({
      key: `replay-log-${index}`,
      severity: 'warn',
      message: problem,
      hint: 'What is readable of the log is shown; the rest is lost.',
    }));
    this.fanout = new TopicFanout({ subscriberFailed: () => undefined });
  }

  presence(): LinkPresence {
    return this.hub.presence();
  }

  alerts(): readonly CoreAlert[] {
    const bad = [...this.undecodable].map(([topic, count]): CoreAlert => ({
      key: `replay-undecodable-${topic}`,
      severity: 'warn',
      message: `${count} recorded message${count === 1 ? '' : 's'} on ${topic} could not be decoded`,
      hint: 'The log holds messages Reins cannot read back; the rest of the stream is shown.',
    }));
    return [...this.problems, ...bad];
  }

  /** The log's robot topics, each in the kind it is delivered as; Reins' own event topics are not streams. */
  topics(): readonly TopicInfo[] {
    return replayTopics(this.source.channels);
  }

  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe {
    return this.fanout.subscribe(topic, onMessage);
  }

  /** A replay is a log, not a robot: nothing is ever sent. */
  publish(): boolean {
    return false;
  }

  on<E extends keyof LinkEvents>(event: E, listener: LinkEvents[E]): Unsubscribe {
    return this.hub.on(event, listener);
  }

  position(): ReplayPosition {
    return { positionMs: this.currentPositionMs(), playing: this.playing, speed: this.speed };
  }

  play(): void {
    if (this.closed || this.playing) return;
    if (this.positionMs >= this.source.endMs) this.positionMs = this.source.startMs;
    this.playing = true;
    this.restart(true);
  }

  pause(): void {
    if (!this.playing) return;
    this.positionMs = this.currentPositionMs();
    this.playing = false;
    this.restart(false);
  }

  /** Moves to a log time (clamped to the log); the latest message of every subscribed topic there is delivered at once. */
  seek(atMs: number): void {
    if (this.closed) return;
    this.positionMs = Math.min(this.source.endMs, Math.max(this.source.startMs, atMs));
    const generation = this.restart(this.playing);
    void this.showMomentAt(this.positionMs, generation);
  }

  setSpeed(speed: number): void {
    if (!(speed >= MIN_REPLAY_SPEED && speed <= MAX_REPLAY_SPEED))
      throw new RangeError(`replay speed must be between ${MIN_REPLAY_SPEED} and ${MAX_REPLAY_SPEED}, got ${speed}`);
    this.positionMs = this.currentPositionMs();
    this.speed = speed;
    if (this.playing) this.restart(true);
  }

  /** The log time a wall time corresponds to while playing (memory rows of a re-scored replay point there). */
  logTimeAt(wallMs: number): number {
    if (!this.playing) return this.positionMs;
    return Math.min(this.source.endMs, this.anchor.logMs + (wallMs - this.anchor.wallMs) * this.speed);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.playing = false;
    this.generation++;
    this.wake?.();
    this.fanout.clear();
    this.hub.setPresence('closed');
    this.hub.clear();
  }

  private currentPositionMs(): number {
    return this.playing ? this.logTimeAt(this.clock()) : this.positionMs;
  }

  private restart(play: boolean): number {
    const generation = ++this.generation;
    this.wake?.();
    if (play) {
      this.anchor = { wallMs: this.clock(), logMs: this.positionMs };
      void this.run(generation, this.positionMs);
    }
    return generation;
  }

  /** Delivers the log's messages from `fromMs` on, each at its due wall time, until superseded or the end. */
  private async run(generation: number, fromMs: number): Promise<void> {
    try {
      for await (const message of this.source.messages({ topics: [...this.fanout.topics()].filter((topic) => this.decoders.has(topic)), startMs: fromMs })) {
        if (generation !== this.generation) return;
        const waitMs = this.anchor.wallMs + (message.logTimeMs - this.anchor.logMs) / this.speed - this.clock();
        if (waitMs >= MIN_WAIT_MS && !(await this.sleep(waitMs, generation))) return;
        this.deliver(message);
      }
    } catch (error) {
      if (generation !== this.generation) return;
      this.problems.push({
        key: `replay-read-${this.problems.length}`,
        severity: 'error',
        message: `reading the log failed: ${(error as Error).message}`,
        hint: 'Playback stopped here; seek past the damaged part to go on.',
      });
      this.hub.emitAlerts(this.alerts());
    }
    if (generation !== this.generation) return;
    this.positionMs = this.playing ? this.currentPositionMs() : this.positionMs;
    this.playing = false;
    this.generation++;
    this.options.onEnded?.();
  }

  /** After a seek: the latest message of each subscribed topic at that time, so the panels show the moment. */
  private async showMomentAt(atMs: number, generation: number): Promise<void> {
    const found = await Promise.all(
      [...this.fanout.topics()].filter((topic) => this.decoders.has(topic)).map((topic) => this.source.latestAt(topic, atMs).catch(() => undefined)),
    );
    if (generation !== this.generation) return;
    for (const message of found) if (message) this.deliver(message);
  }

  /** Resolves true after `ms`, or false at once when a newer generation supersedes this one. */
  private sleep(ms: number, generation: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve(generation === this.generation);
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve(false);
      };
    });
  }

  /** The newest message of a topic at a log time, decoded and stamped on the log's clock (as it was received). */
  async receivedAt(topic: string, atMs: number): Promise<Received | undefined> {
    if (!this.decoders.has(topic)) return undefined;
    const message = await this.source.latestAt(topic, atMs);
    return message && this.decode(message, message.logTimeMs);
  }

  private deliver(message: LoggedMessage): void {
    if (!this.fanout.wants(message.topic)) return;
    const received = this.decode(message, this.clock());
    if (received) this.fanout.deliver(received);
  }

  /** The message as the link delivers it, arriving at `receiveTimeMs` with its recorded latency; undefined (and counted) when it cannot be decoded. */
  private decode(message: LoggedMessage, receiveTimeMs: number): Received | undefined {
    const decoder = this.decoders.get(message.topic);
    if (!decoder) return undefined;
    const wire = rosbridgeWireValue(message.value);
    const decoded = decoder.decode(wire);
    if (!decoded.ok) {
      const first = !this.undecodable.has(message.topic);
      this.undecodable.set(message.topic, (this.undecodable.get(message.topic) ?? 0) + 1);
      if (first) this.hub.emitAlerts(this.alerts());
      return undefined;
    }
    const latencyMs = decoded.stampMs === undefined ? 0 : Math.max(0, message.logTimeMs - decoded.stampMs);
    // RosFields' raw is its fields, as from a live link; other kinds keep the log's own value for plots.
    const raw = decoded.msg.kind === 'RosFields' ? wire : message.value;
    return { topic: message.topic, receiveTimeMs, sourceTimeMs: receiveTimeMs - latencyMs, msg: decoded.msg, raw };
  }
}

/** Encodings a log's messages are read back in (recordingReader.ts): a channel in another is listed by the log, never delivered. */
const READ_ENCODINGS: ReadonlySet<string> = new Set(['ros1', 'cdr', 'json', 'protobuf']);

/**
 * How a logged channel's messages become link messages (as `asKind` where asked, else the type's own
 * kind, a Foxglove schema's as its ROS counterpart's, else RosFields); undefined for Reins' own events (`reins.*`), a channel without a schema
 * name, and one in an encoding that is not read back.
 */
function channelDecoder(channel: ReplayChannel, asKind?: MessageKind): { kind: MessageKind; decode: Decode } | undefined {
  const { schemaName, messageEncoding } = channel;
  if (schemaName === '' || schemaName.startsWith('reins.') || (messageEncoding !== undefined && !READ_ENCODINGS.has(messageEncoding))) return undefined;
  const foxglove = foxgloveSchemaDecoder(schemaName, asKind);
  if (foxglove !== undefined) return { kind: foxglove.kind, decode: foxglove.decode as Decode };
  const kind = asKind ?? deliveredKindOf(schemaName);
  const decode = decoderFor(schemaName, kind);
  return decode !== undefined ? { kind, decode: decode as Decode } : undefined;
}

/** The log's channels a replay delivers as robot topics, one per topic (the first channel of a topic written in two encodings). */
export function replayTopics(channels: ReplaySource['channels']): TopicInfo[] {
  const seen = new Set<string>();
  return channels.flatMap((channel) => {
    const decoder = seen.has(channel.topic) ? undefined : channelDecoder(channel);
    if (decoder === undefined) return [];
    seen.add(channel.topic);
    return [{ topic: channel.topic, kind: decoder.kind, type: channel.schemaName }];
  });
}
