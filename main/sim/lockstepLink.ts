// The simulated robot reached without a wire: a Link whose time moves only when the caller says so.
// Benches and tests call advance() and get every message the robot would have sent over that
// span, synchronously, stamped on a simulated clock that starts at a chosen wall-clock epoch.
import type { CoreAlert } from '../core/alert.ts';
import { DEFAULT_TOPIC_MAP, type Link, type LinkCapabilities, type LinkEvents, type LinkPresence, type TopicInfo, type Unsubscribe } from '../core/link.ts';
import { LinkEventHub } from '../links/linkEventHub.ts';
import type { Received, RobotMessage, Twist } from '../core/messages.ts';
import type { ArenaOptions } from './arena.ts';
import type { CameraOptions } from './camera.ts';
import type { SimInjection } from './injection.ts';
import type { ScanOptions } from './lidar.ts';
import type { RangeCloudOptions } from './rangeCloud.ts';
import { SimRobot, type SensorOutput, type SensorSink, type SensorStream } from './simRobot.ts';
import type { ReachOptions } from './tasks/reach.ts';
import type { SimTaskName } from './tasks/taskNames.ts';

export { startRealtime, type RealtimeOptions } from './realtime.ts';

export interface SimLinkOptions {
  arenaSeed: number;
  episodeSeed: number;
  arena: Partial<ArenaOptions>;
  camera: Partial<Pick<CameraOptions, 'widthPx' | 'heightPx' | 'rateHz'>>;
  scan: Partial<Pick<ScanOptions, 'beams' | 'rateHz'>>;
  /**
   * The 3D point cloud on `/points`. Off unless `enabled: true`: benches and learning step this link
   * as fast as they can, and a sweep costs far more than every other sensor of a step together.
   */
  points: Partial<Pick<RangeCloudOptions, 'enabled' | 'layers' | 'beams' | 'rateHz'>>;
  /** What every episode asks of the robot: 'reach' (the default), 'dock' or 'corridor' (SIM_TASKS). */
  task: SimTaskName;
  reach: Partial<ReachOptions>;
  /** Start the next episode as soon as one ends (default true); see SimRobotOptions. */
  autoReset: boolean;
  /** A ring of camera frames rendered once and published in turn (default 0: every frame drawn live); see SimRobotOptions. */
  prerenderedCameraFrames: number;
  /** Wall-clock ms that simulated time 0 maps to; defaults to now. */
  epochMs: number;
  robotName: string;
}

/** Where the simulated robot publishes its point cloud (the topic most ROS LiDAR drivers use). */
export const SIM_POINT_CLOUD_TOPIC = '/points';

const SENSOR_TOPICS: Readonly<Record<SensorStream, TopicInfo>> = Object.freeze({
  camera: { topic: DEFAULT_TOPIC_MAP.camera, kind: 'Image' },
  scan: { topic: DEFAULT_TOPIC_MAP.scan, kind: 'LaserScan' },
  points: { topic: SIM_POINT_CLOUD_TOPIC, kind: 'PointCloud2' },
  joints: { topic: DEFAULT_TOPIC_MAP.joints, kind: 'JointState' },
  imu: { topic: DEFAULT_TOPIC_MAP.imu, kind: 'Imu' },
  odom: { topic: DEFAULT_TOPIC_MAP.odom, kind: 'Odometry' },
});

type MessageListener = (received: Received) => void;

export function createSimLink(options: Partial<SimLinkOptions> = {}): LockstepLink {
  const robot = new SimRobot({
    arenaSeed: options.arenaSeed ?? 1,
    episodeSeed: options.episodeSeed ?? 1,
    arena: options.arena ?? {},
    camera: options.camera ?? {},
    scan: options.scan ?? {},
    points: { enabled: false, ...options.points },
    task: options.task ?? 'reach',
    reach: options.reach ?? {},
    autoReset: options.autoReset ?? true,
    prerenderedCameraFrames: options.prerenderedCameraFrames ?? 0,
  });
  return new LockstepLink(robot, { epochMs: options.epochMs ?? Date.now(), robotName: options.robotName ?? 'reins-sim' });
}

export class LockstepLink implements Link {
  readonly robotName: string;
  readonly capabilities: LinkCapabilities = Object.freeze({ sendsCommands: true, simulated: true });
  /** The robot itself, for ground truth and episode resets in benches; never reached through the Link. */
  private current: SimRobot;
  /** Wall-clock ms of simulated time 0; moves forward only when a real-time driver skips time. */
  private epochMs: number;
  private readonly events = new LinkEventHub('present');
  private readonly currentAlerts = new Map<string, CoreAlert>();
  private readonly messageListeners = new Map<string, Set<MessageListener>>();
  private readonly sink: SensorSink = {
    wants: (stream) => (this.messageListeners.get(SENSOR_TOPICS[stream].topic)?.size ?? 0) > 0,
    receive: (output) => this.deliver(output),
  };

  constructor(robot: SimRobot, options: { epochMs: number; robotName: string }) {
    this.current = robot;
    this.epochMs = options.epochMs;
    this.robotName = options.robotName;
  }

  /** The robot itself, for ground truth and episode resets in benches; never reached through the Link. */
  get robot(): SimRobot {
    return this.current;
  }

  /**
   * Carries the robot into another arena (a bench moving on to its next training room): `robot` takes
   * its place behind the link, and the clock runs on from where it was — nothing the core sees jumps
   * back in time. Subscriptions stay; the new robot publishes from its next step.
   */
  relocate(robot: SimRobot): void {
    const nowMs = this.clockMs();
    this.current = robot;
    this.epochMs = nowMs - robot.simTimeSecs() * 1000;
  }

  /** Simulated now, on the wall clock: the epoch plus simulated time. */
  clockMs(): number {
    return this.epochMs + this.robot.simTimeSecs() * 1000;
  }

  /**
   * Runs the robot for dtSecs of simulated time, handing each message to its subscribers as it is
   * produced (a subscriber's publish takes effect from the next physics step). Does nothing once
   * the link is closed or failed.
   */
  advance(dtSecs: number): void {
    if (this.events.presence() !== 'present') return;
    this.robot.step(dtSecs, this.sink);
  }

  /**
   * Keeps stamps on the wall clock when a real-time driver drops simulated time after a stall: the
   * robot lived through less time than the wall clock did, so later stamps shift by the difference.
   */
  skipClock(skippedSecs: number): void {
    this.epochMs += skippedSecs * 1000;
  }

  /** Injects an event into the robot now (see SimInjection); throws a RangeError for a bad one. */
  inject(injection: SimInjection): void {
    this.robot.inject(injection);
  }

  presence(): LinkPresence {
    return this.events.presence();
  }

  alerts(): readonly CoreAlert[] {
    return [...this.currentAlerts.values()];
  }

  topics(): readonly TopicInfo[] {
    return (Object.keys(SENSOR_TOPICS) as SensorStream[]).filter((stream) => this.robot.hasStream(stream)).map((stream) => SENSOR_TOPICS[stream]);
  }

  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe {
    if (this.events.presence() === 'closed') return () => undefined;
    // Safe: each topic carries one message kind (SENSOR_TOPICS), and the subscriber named it.
    const listener = onMessage as MessageListener;
    const listeners = this.messageListeners.get(topic) ?? new Set<MessageListener>();
    this.messageListeners.set(topic, listeners);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  publish(topic: string, twist: Twist): boolean {
    if (this.events.presence() !== 'present' || topic !== DEFAULT_TOPIC_MAP.command) return false;
    return this.robot.drive({ linearMps: twist.linearMps.x, angularRadps: twist.angularRadps.z });
  }

  on<E extends keyof LinkEvents>(event: E, listener: LinkEvents[E]): Unsubscribe {
    return this.events.on(event, listener);
  }

  async close(): Promise<void> {
    if (this.events.presence() === 'closed') return;
    this.events.setPresence('closed');
    this.messageListeners.clear();
    this.events.clear();
  }

  /** Raises or replaces an alert by its key (for whatever drives this link, e.g. startRealtime). */
  raiseAlert(alert: CoreAlert): void {
    this.currentAlerts.set(alert.key, alert);
    this.emitAlerts();
  }

  clearAlert(key: string): void {
    if (this.currentAlerts.delete(key)) this.emitAlerts();
  }

  /** The simulation can no longer run: the link goes to 'error' and says why. */
  fail(alert: CoreAlert): void {
    if (this.events.presence() === 'closed') return;
    this.raiseAlert(alert);
    this.events.setPresence('error');
  }

  private deliver(output: SensorOutput): void {
    const listeners = this.messageListeners.get(SENSOR_TOPICS[output.stream].topic);
    if (listeners === undefined) return;
    const stampMs = this.epochMs + output.simTimeSecs * 1000;
    const received: Received = {
      topic: SENSOR_TOPICS[output.stream].topic,
      receiveTimeMs: stampMs,
      sourceTimeMs: stampMs,
      msg: output.msg,
    };
    // A copy, so a subscriber that unsubscribes while being called does not skip its neighbour.
    for (const listener of [...listeners]) listener(received);
  }

  private emitAlerts(): void {
    this.events.emitAlerts(this.alerts());
  }
}
