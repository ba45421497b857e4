// Everything that lives as long as one open rosbridge connection: the command topic's
// advertisement, topic discovery (at once, then periodically; on a ROS 2 robot also the definitions
// that decode cbor-raw), the robot clock sync, the wire
// subscriptions for the topics the cockpit wants, and the watch for CBOR subscriptions that stay
// silent. Built when a connection opens, disposed when it closes; the next connection starts anew.
import type { AlertBoard } from '../alertBoard.ts';
import { ClockSync } from './clockSync.ts';
import type { ClockOffsetEstimator } from './clockOffset.ts';
import type { LinkClock, TimerHandle } from './linkClock.ts';
import { parseTimeResponse, parseTopicsAndRawTypes, parseTopicsResponse, ROSAPI_GET_TIME, ROSAPI_TOPICS, ROSAPI_TOPICS_AND_RAW_TYPES } from './rosapi.ts';
import type { RosbridgeSession } from './rosbridgeSession.ts';
import { rosVersionOfMessage } from './messageRosVersion.ts';
import { SilentCborWatch, type OpenProbe, type SilentCborOptions } from './silentCbor.ts';
import type { TopicRoute, TopicRoutes } from './topicRoutes.ts';

export interface LiveTimings {
  serviceTimeoutMs: number;
  discoveryPeriodMs: number;
  clockSyncPeriodMs: number;
  clockSyncBurst: number;
  silentCbor: SilentCborOptions;
}

export interface LiveConnectionHost {
  readonly routes: TopicRoutes;
  readonly alerts: AlertBoard;
  readonly estimator: ClockOffsetEstimator;
  readonly commandTopic: string;
  /** Topics the cockpit has subscribers for. */
  wantedTopics(): Iterable<string>;
  deliver(route: TopicRoute, wire: unknown): void;
  openProbe: OpenProbe;
}

export class LiveConnection {
  private readonly active = new Map<string, TopicRoute>();
  private readonly silentWatch: SilentCborWatch;
  private readonly clockSync: ClockSync;
  private discoveryTimer: TimerHandle | undefined;
  private disposed = false;
  private markAsked: () => void = () => undefined;
  /** Settles once the robot was first asked for its topics on this connection, answered or not (the command's type is then known or refused in words). */
  readonly asked = new Promise<void>((resolve) => {
    this.markAsked = resolve;
  });

  constructor(
    private readonly session: RosbridgeSession,
    private readonly host: LiveConnectionHost,
    private readonly clock: LinkClock,
    private readonly timings: Readonly<LiveTimings>,
  ) {
    this.silentWatch = new SilentCborWatch(timings.silentCbor, clock, host.openProbe, (topic) => this.fallBackToJson(topic));
    const askRobotMs = async (): Promise<number> => {
      const robotMs = parseTimeResponse(await session.callService(ROSAPI_GET_TIME.service, ROSAPI_GET_TIME.type, {}, timings.serviceTimeoutMs));
      host.alerts.clear('clock-offset');
      return robotMs;
    };
    this.clockSync = new ClockSync(host.estimator, askRobotMs, clock, { periodMs: timings.clockSyncPeriodMs, burst: timings.clockSyncBurst }, (problem) =>
      host.alerts.raise({
        key: 'clock-offset',
        severity: 'info',
        message: `Cannot ask the robot for its time (${problem}); latencies are estimated from message stamps.`,
        hint: 'Run rosapi next to rosbridge_server (its launch files start it) for accurate latency figures.',
      }),
    );
  }

  start(): void {
    this.clockSync.start();
    void this.discover();
  }

  /** Makes sure a wanted topic has the wire subscription its route calls for. */
  ensureSubscribed(topic: string): void {
    if (this.disposed) return;
    const outcome = this.host.routes.route(topic);
    if (!outcome.ok) {
      if (!outcome.wait) this.host.alerts.raise(outcome.alert);
      return;
    }
    this.host.alerts.clear(`topic:${topic}`);
    if (outcome.notice === undefined) this.host.alerts.clear(`schema:${topic}`);
    else this.host.alerts.raise(outcome.notice);
    const route = outcome.route;
    const before = this.active.get(topic);
    this.active.set(topic, route);
    this.session.subscribe({ topic, rosType: route.rosType, compression: route.compression });
    if (route.compression === 'cbor' && before?.compression !== 'cbor') this.silentWatch.watch(topic, route.rosType);
  }

  dropSubscription(topic: string): void {
    this.active.delete(topic);
    this.silentWatch.forget(topic);
    this.session.unsubscribe(topic);
  }

  onWireMessage(topic: string, wire: unknown): void {
    if (this.disposed) return;
    // Without rosapi the robot's ROS is learned from its messages' stamps, before this one is delivered.
    if (this.host.routes.rosVersion() === undefined) this.learnRosVersion(wire);
    const route = this.active.get(topic);
    if (route === undefined) return;
    if (route.compression === 'cbor') this.silentWatch.delivered(topic);
    this.host.deliver(route, wire);
  }

  dispose(): void {
    this.disposed = true;
    this.silentWatch.forgetAll();
    this.clockSync.stop();
    if (this.discoveryTimer !== undefined) this.clock.clearTimeout(this.discoveryTimer);
    this.active.clear();
  }

  private async discover(): Promise<void> {
    try {
      const values = await this.session.callService(ROSAPI_TOPICS.service, ROSAPI_TOPICS.type, {}, this.timings.serviceTimeoutMs);
      if (this.disposed) return;
      this.host.routes.setDiscovered(parseTopicsResponse(values));
      this.host.alerts.clear('rosapi');
      if (this.host.routes.wantsDefinitions()) await this.readDefinitions();
      if (this.disposed) return;
    } catch (error) {
      if (this.disposed) return;
      this.host.routes.setDiscoveryFailed();
      this.host.alerts.raise({
        key: 'rosapi',
        severity: 'warn',
        message: `Cannot list the robot's topics (${error instanceof Error ? error.message : String(error)}); using the topic map's types.`,
        hint: 'Run rosapi next to rosbridge_server (rosbridge_websocket.launch starts both) so topics and types are discovered.',
      });
    }
    // Advertised once its type is known, so the first command goes out without waiting for it.
    const command = this.host.routes.commandRoute(this.host.commandTopic);
    if (command.ok) {
      this.session.advertise(this.host.commandTopic, command.rosType);
      this.host.alerts.clear(`command-type:${this.host.commandTopic}`);
    } else {
      this.host.alerts.raise(command.alert);
    }
    this.markAsked();
    for (const topic of this.host.wantedTopics()) this.ensureSubscribed(topic);
    this.discoveryTimer = this.clock.setTimeout(() => void this.discover(), this.timings.discoveryPeriodMs);
  }

  /** A ROS 2 robot's message definitions, so that bulky types can come as cbor-raw and RosFields be recorded as CDR. */
  private async readDefinitions(): Promise<void> {
    const { service, type } = ROSAPI_TOPICS_AND_RAW_TYPES;
    try {
      const values = await this.session.callService(service, type, {}, this.timings.serviceTimeoutMs);
      if (this.disposed) return;
      this.host.routes.setDefinitions(parseTopicsAndRawTypes(values));
      this.host.alerts.clear('rosapi-definitions');
    } catch (error) {
      if (this.disposed) return;
      this.host.routes.setDefinitions(undefined);
      this.host.alerts.raise({
        key: 'rosapi-definitions',
        severity: 'info',
        message: `Cannot read the robot's message definitions (${error instanceof Error ? error.message : String(error)}); images, scans and point clouds come as CBOR rather than cbor-raw, and topics of other types are recorded as JSON.`,
        hint: 'A rosapi older than rosbridge_suite 1.x lacks /rosapi/topics_and_raw_types; CBOR works, only slower.',
      });
    }
  }

  private learnRosVersion(wire: unknown): void {
    const version = rosVersionOfMessage(wire);
    if (version === undefined || !this.host.routes.setRosVersionFromMessages(version)) return;
    // The live routes now carry the robot's type names (and, on ROS 2, what the recorder needs for CDR).
    for (const topic of [...this.active.keys()]) {
      const outcome = this.host.routes.route(topic);
      const before = this.active.get(topic);
      if (outcome.ok && before !== undefined && outcome.route.compression === before.compression) this.active.set(topic, outcome.route);
    }
  }

  private fallBackToJson(topic: string): void {
    this.host.routes.preferJson(topic);
    this.host.alerts.raise({
      key: `cbor-fallback:${topic}`,
      severity: 'info',
      message: `${topic} sends nothing over CBOR although it is publishing; receiving it as JSON instead.`,
      hint: 'A known rosbridge_suite 0.11 (ROS 1) failure for some types (JointState, Odometry). Set this topic\'s compression to "none" to skip the check, or upgrade rosbridge_suite.',
    });
    this.ensureSubscribed(topic);
  }
}
