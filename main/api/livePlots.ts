// The live plots of one UI connection: each field path compiled once, one link subscription per topic
// however many series read it (dropped when no series does), values batched and sent as plot binary
// frames a few dozen times a second. Memory is bounded: a series keeps at most MAX_PENDING_SAMPLES
// unsent values (the oldest go first when the socket is slow). A path that names nothing gets a
// problem in words; the other series keep plotting.
import type { PlotSeriesStatus, PlotStatusEvent } from '../core/contract.ts';
import { encodePlotSamplesFrame, parseFieldPath } from '../core/contract.ts';
import { compileFieldPath, type CompiledFieldPath } from '../core/fieldPath.ts';
import type { Link, TopicInfo, Unsubscribe } from '../core/link.ts';
import type { MessageKind, Received } from '../core/messages.ts';
import { rosMessageFor } from '../recording/rosMessages.ts';

/** Plot frames go out this often: smooth to the eye, a few hundred frames a minute. */
export const PLOT_FLUSH_PERIOD_MS = 33;
/** A series holds at most this many values waiting to go out (about 10 s at 100 Hz per series). */
export const MAX_PENDING_SAMPLES = 1024;
const NO_FIELDS = Symbol('no ROS fields');

/** The ROS type each kind is read as where the link names none (the shape rosMessageFor writes). */
const KIND_ROS_TYPES: Readonly<Partial<Record<MessageKind, string>>> = {
  Image: 'sensor_msgs/Image',
  CompressedImage: 'sensor_msgs/CompressedImage',
  LaserScan: 'sensor_msgs/LaserScan',
  PointCloud2: 'sensor_msgs/PointCloud2',
  JointState: 'sensor_msgs/JointState',
  Imu: 'sensor_msgs/Imu',
  Odometry: 'nav_msgs/Odometry',
  Twist: 'geometry_msgs/Twist',
};

/** A topic's ROS type for plots: the transport's own name, else the standard type of its kind. */
export function plotTypeOf(topic: TopicInfo): string | undefined {
  return topic.type ?? KIND_ROS_TYPES[topic.kind];
}

export interface LivePlotsOptions {
  /** Sends one binary frame; false when it was not sent (the socket is closed or backed up): the values wait. */
  send(frame: Uint8Array): boolean;
  /** Told whenever a series' problem comes or goes. */
  status(event: PlotStatusEvent): void;
  flushPeriodMs?: number;
}

interface Series {
  index: number;
  text: string;
  topic: string;
  /** Undefined until the path could be compiled (its type known, or its first message seen); see `problem`. */
  compiled: CompiledFieldPath | undefined;
  problem: string | undefined;
  timesMs: Float64Array;
  values: Float64Array;
  /** Pending values: a ring of MAX_PENDING_SAMPLES starting at `first`. */
  first: number;
  count: number;
}

export class LivePlots {
  private series: Series[] = [];
  private generation = 0;
  private readonly subscriptions = new Map<string, Unsubscribe>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly link: Link,
    private readonly options: LivePlotsOptions,
  ) {
    this.timer = setInterval(() => this.flush(), options.flushPeriodMs ?? PLOT_FLUSH_PERIOD_MS);
    this.timer.unref();
  }

  /** Plots these paths from now on (in this order), instead of the ones before; returns their status. */
  set(paths: readonly string[]): PlotStatusEvent {
    this.generation++;
    const types = new Map(this.link.topics().map((topic) => [topic.topic, plotTypeOf(topic)]));
    this.series = paths.map((text, index) => this.seriesFor(text, index, types));
    const wanted = new Set(this.series.filter((series) => series.topic !== '').map((series) => series.topic));
    for (const [topic, unsubscribe] of this.subscriptions) {
      if (wanted.has(topic)) continue;
      unsubscribe();
      this.subscriptions.delete(topic);
    }
    for (const topic of wanted) {
      if (!this.subscriptions.has(topic))
        this.subscriptions.set(
          topic,
          this.link.subscribe(topic, (received) => this.onMessage(received)),
        );
    }
    return this.statusEvent();
  }

  /** The topics subscribed now (one each, however many series read them). */
  subscribedTopics(): string[] {
    return [...this.subscriptions.keys()];
  }

  close(): void {
    clearInterval(this.timer);
    for (const unsubscribe of this.subscriptions.values()) unsubscribe();
    this.subscriptions.clear();
    this.series = [];
  }

  private seriesFor(text: string, index: number, types: ReadonlyMap<string, string | undefined>): Series {
    const base = { index, text, timesMs: new Float64Array(MAX_PENDING_SAMPLES), values: new Float64Array(MAX_PENDING_SAMPLES), first: 0, count: 0 };
    const parsed = parseFieldPath(text);
    if (!parsed.ok) return { ...base, topic: '', compiled: undefined, problem: parsed.message };
    const topic = parsed.path.topic;
    const offered = types.size > 0 && !types.has(topic);
    const compiled = compileFieldPath(text, types.get(topic));
    if (!compiled.ok) return { ...base, text: parsed.path.text, topic: '', compiled: undefined, problem: compiled.message };
    const known = [...types.keys()].slice(0, 12).join(', ');
    return {
      ...base,
      text: parsed.path.text,
      topic,
      compiled: compiled.compiled,
      problem: offered ? `the robot does not offer ${topic} (yet); it offers ${known}` : undefined,
    };
  }

  private onMessage(received: Received): void {
    let changed = false;
    let fields: unknown;
    for (const series of this.series) {
      if (series.topic !== received.topic || series.compiled === undefined) continue;
      // A link that carries no ROS message (serial, the in-process simulation) is read in the ROS shape the recorder writes.
      fields ??= received.raw ?? rosMessageFor(received, 0)?.value ?? NO_FIELDS;
      if (fields === NO_FIELDS) {
        changed = this.setProblem(series, `${received.topic} carries ${received.msg.kind} messages, which have no ROS fields to plot`) || changed;
        continue;
      }
      const value = series.compiled.read(fields);
      if (value === undefined) {
        changed = this.setProblem(series, series.compiled.explainMiss(fields)) || changed;
        continue;
      }
      changed = this.setProblem(series, undefined) || changed;
      const at = (series.first + series.count) % MAX_PENDING_SAMPLES;
      series.timesMs[at] = received.sourceTimeMs;
      series.values[at] = value;
      if (series.count < MAX_PENDING_SAMPLES) series.count++;
      else series.first = (series.first + 1) % MAX_PENDING_SAMPLES;
    }
    if (changed) this.options.status(this.statusEvent());
  }

  private setProblem(series: Series, problem: string | undefined): boolean {
    if (series.problem === problem) return false;
    series.problem = problem;
    return true;
  }

  private flush(): void {
    const waiting = this.series.filter((series) => series.count > 0);
    if (waiting.length === 0) return;
    const frame = encodePlotSamplesFrame(
      this.generation,
      waiting.map((series) => ({ index: series.index, ...pendingOf(series) })),
    );
    if (!this.options.send(frame)) return;
    for (const series of waiting) series.count = 0;
  }

  private statusEvent(): PlotStatusEvent {
    const series: PlotSeriesStatus[] = this.series.map((one) => ({ path: one.text, ...(one.problem !== undefined ? { problem: one.problem } : {}) }));
    return { type: 'plot-status', generation: this.generation, series };
  }
}

function pendingOf(series: Series): { timesMs: Float64Array; values: Float64Array } {
  const timesMs = new Float64Array(series.count);
  const values = new Float64Array(series.count);
  for (let i = 0; i < series.count; i++) {
    const at = (series.first + i) % MAX_PENDING_SAMPLES;
    timesMs[i] = series.timesMs[at]!;
    values[i] = series.values[at]!;
  }
  return { timesMs, values };
}
