// A robot reached through rosbridge (ROS 1 or ROS 2), with roslib 2.x as the client. The link owns
// the connection's life: connecting, present, reconnecting with jittered backoff (re-subscribing
// everything), closed for good on close(). Commands go out only on a socket that is open at that
// moment; one that cannot is dropped, never queued (see rosbridgeSession.ts for roslib's queue).
import type { CoreAlert } from '../../core/alert.ts';
import { AlertBoard, repeatingAlert } from '../alertBoard.ts';
import { untrustedCertificateHint } from '../caFile.ts';
import type { Link, LinkCapabilities, LinkEvents, LinkPresence, NodeParameterRead, TopicInfo, Unsubscribe } from '../../core/link.ts';
import { LinkEventHub } from '../linkEventHub.ts';
import type { Received, RobotMessage, Twist } from '../../core/messages.ts';
import { TopicFanout } from '../topicFanout.ts';
import { JitteredBackoff } from './backoff.ts';
import { ClockOffsetEstimator, DEFAULT_CLOCK_OFFSET_OPTIONS, type ClockOffsetEstimate } from './clockOffset.ts';
import { commandMessage } from './commandMessage.ts';
import { encodeTwist } from './decode/twists.ts';
import type { TimerHandle } from './linkClock.ts';
import { LiveConnection } from './liveConnection.ts';
import { resolveRosbridgeOptions, rosbridgeUrlProblem, type ResolvedRosbridgeOptions, type RosbridgeLinkOptions } from './rosbridgeOptions.ts';
import { parseGetParamResponse, ROSAPI_GET_PARAM, rosapiParameterNames } from './rosapi.ts';
import { RosbridgeSession } from './rosbridgeSession.ts';
import { ServiceCallError } from './serviceCallError.ts';
import type { TopicProbe } from './silentCbor.ts';
import type { SocketPort } from './socketPort.ts';
import { isSimulatorBackChannel, TopicRoutes, type TopicRoute } from './topicRoutes.ts';

/** The silent-CBOR probe asks for at most one message per this many ms (it only counts them). */
const PROBE_THROTTLE_MS = 250;

/** rosapi asks the node itself for a parameter (its own timeout is 5 s): allow for that and the wire. */
const PARAMETER_TIMEOUT_MS = 6000;

export class RosbridgeLink implements Link {
  readonly robotName: string;
  readonly capabilities: LinkCapabilities;
  private readonly options: ResolvedRosbridgeOptions;
  private readonly alertBoard: AlertBoard;
  private readonly routes: TopicRoutes;
  private readonly estimator: ClockOffsetEstimator;
  private readonly backoff: JitteredBackoff;
  private readonly events = new LinkEventHub('connecting');
  private readonly fanout = new TopicFanout({
    firstSubscribed: (topic) => this.live?.ensureSubscribed(topic),
    lastUnsubscribed: (topic) => this.live?.dropSubscription(topic),
    subscriberFailed: (topic, error) =>
      this.alertBoard.count(
        repeatingAlert({
          key: `subscriber:${topic}`,
          severity: 'error',
          message: `A subscriber to ${topic} failed: ${error instanceof Error ? error.message : String(error)}`,
          hint: 'A bug in the cockpit; the link keeps delivering to the other subscribers.',
        }),
      ),
    // A latched topic (/robot_description, /tf_static, /map) sends its message once per wire subscription.
    keepLatest: (received) => received.msg.kind === 'RosFields',
  });
  private session: RosbridgeSession | undefined;
  private live: LiveConnection | undefined;
  private reconnectTimer: TimerHandle | undefined;

  constructor(options: RosbridgeLinkOptions) {
    this.options = resolveRosbridgeOptions(options);
    const { timings, clock } = this.options;
    this.robotName = this.options.robotName;
    this.capabilities = Object.freeze({ sendsCommands: true, simulated: this.options.simulated });
    this.alertBoard = new AlertBoard((alerts) => this.events.emitAlerts(alerts), {
      nowMs: () => clock.epochMs(),
      minUpdateIntervalMs: timings.alertRepeatIntervalMs,
      clearAfterQuietMs: timings.alertRepeatIntervalMs,
    });
    this.routes = new TopicRoutes({
      topicMap: this.options.topicMap,
      roleTypes: this.options.roleTypes,
      compression: this.options.compression,
      unlisted: this.options.simulated ? isSimulatorBackChannel : undefined,
      commandTypeGiven: this.options.commandTypeGiven,
    });
    this.estimator = new ClockOffsetEstimator({ ...DEFAULT_CLOCK_OFFSET_OPTIONS, windowMs: timings.clockWindowMs });
    this.backoff = new JitteredBackoff(timings.backoff, this.options.random);
    this.connect();
  }

  presence(): LinkPresence {
    return this.events.presence();
  }

  alerts(): readonly CoreAlert[] {
    return this.alertBoard.list();
  }

  topics(): readonly TopicInfo[] {
    return this.routes.offered();
  }

  /** ROS 1 or ROS 2, from rosapi's type names or, without rosapi, the robot's message stamps; undefined while unknown. */
  rosVersion(): 1 | 2 | undefined {
    return this.routes.rosVersion();
  }

  /** The robot-to-cockpit clock offset behind `sourceTimeMs`, for latency figures; undefined until known. */
  clockOffset(): ClockOffsetEstimate | undefined {
    return this.estimator.estimate(this.options.clock.epochMs());
  }

  /**
   * Settles once the connection now open has asked the robot's rosapi for its topics, answered or not:
   * until then a command is refused (its type is not known); from then on it goes out in the robot's
   * type or is refused in words. Rejects if the link is not connected.
   */
  topicsAsked(): Promise<void> {
    return this.live?.asked ?? Promise.reject(new Error(`the link to ${this.options.url} is not connected`));
  }

  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe {
    const presence = this.events.presence();
    if (presence === 'closed' || presence === 'error') return () => undefined;
    return this.fanout.subscribe(topic, onMessage);
  }

  publish(topic: string, twist: Twist): boolean {
    const session = this.session;
    if (this.events.presence() !== 'present' || session === undefined || !session.isOpen()) return false;
    const wire = encodeTwist(twist);
    if (wire === undefined) {
      this.alertBoard.count(
        repeatingAlert({
          key: 'command-not-finite',
          severity: 'error',
          message: `Refused to send a command with a non-finite value on ${topic}.`,
          hint: 'A bug upstream of the link produced NaN or infinity; the robot was sent nothing.',
        }),
      );
      return false;
    }
    const route = this.routes.commandRoute(topic);
    if (!route.ok) {
      // rosbridge would accept the publish and then fail to convert it, telling no one.
      this.alertBoard.raise(route.alert);
      return false;
    }
    this.alertBoard.clear(`command-type:${topic}`);
    this.alertBoard.clearIfQuiet('command-not-finite');
    const stampMs = route.shape === 'TwistStamped' ? this.commandStampMs() : undefined;
    return session.publish(topic, route.rosType, commandMessage(wire, route.rosType, route.shape, this.options.command.frameId, stampMs));
  }

  /**
   * A TwistStamped's stamp: undefined (zero, the robot's "now") unless the robot's clock was asked for;
   * then the cockpit's now moved onto the robot's clock. Until the offset is known it stays zero, with
   * an alert: the cockpit's own clock would be a guess the robot may drop, or obey for too long.
   */
  private commandStampMs(): number | undefined {
    if (this.options.command.stamp === 'zero') return undefined;
    const nowMs = this.options.clock.epochMs();
    const estimate = this.estimator.estimate(nowMs);
    if (estimate === undefined) {
      this.alertBoard.raise({
        key: 'command-stamp',
        severity: 'warn',
        message: "The robot's clock is not known yet; commands go out stamped zero (the robot's now) until it is.",
        hint: 'Run rosapi next to rosbridge_server so the cockpit can ask the robot for its time.',
      });
      return undefined;
    }
    this.alertBoard.clear('command-stamp');
    return nowMs + estimate.offsetMs;
  }

  /** Calls a ROS service (e.g. the simulated robot's `/sim/identify`); never queued, always with a deadline. */
  callService(service: string, type: string, request: Readonly<Record<string, unknown>>, timeoutMs: number): Promise<unknown> {
    const session = this.session;
    if (session === undefined || !session.isOpen()) {
      return Promise.reject(new ServiceCallError('not-connected', service, `${service} was not called: not connected to ${this.options.url}`));
    }
    return session.callService(service, type, request, timeoutMs);
  }

  /** A node's parameter through rosapi (`/rosapi/get_param`), named as the robot's ROS version names it (rosapiParameterNames). */
  async readNodeParameter(node: string, name: string): Promise<NodeParameterRead> {
    const names = rosapiParameterNames(this.rosVersion(), node, name);
    for (const qualified of names) {
      try {
        const values = await this.callService(ROSAPI_GET_PARAM.service, ROSAPI_GET_PARAM.type, { name: qualified, default_value: '' }, PARAMETER_TIMEOUT_MS);
        const value = parseGetParamResponse(values, qualified);
        if (value !== undefined) return { ok: true, value };
      } catch (error) {
        return { ok: false, problem: `the parameter ${qualified} could not be read: ${error instanceof Error ? error.message : String(error)}` };
      }
    }
    return { ok: false, problem: `the robot has no parameter ${names.join(' or ')} (rosapi's get_param)` };
  }

  on<E extends keyof LinkEvents>(event: E, listener: LinkEvents[E]): Unsubscribe {
    return this.events.on(event, listener);
  }

  async close(): Promise<void> {
    if (this.events.presence() === 'closed') return;
    if (this.reconnectTimer !== undefined) this.options.clock.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.endConnection();
    this.events.setPresence('closed');
    this.fanout.clear();
    this.events.clear();
  }

  private connect(): void {
    this.reconnectTimer = undefined;
    const { url, openSocket, clock, timings } = this.options;
    const problem = rosbridgeUrlProblem(url);
    if (problem !== undefined) return this.fail(problem);
    let socket: SocketPort;
    try {
      socket = openSocket(url);
    } catch (error) {
      return this.fail(error instanceof Error ? error.message : String(error));
    }
    const session: RosbridgeSession = new RosbridgeSession(url, socket, clock, timings, {
      open: () => this.onOpen(session),
      closed: (reason) => this.onClosed(session, reason),
      message: (topic, wire) => this.live?.onWireMessage(topic, wire),
      frameProblem: (text) =>
        this.alertBoard.count(
          repeatingAlert({
            key: 'frame',
            severity: 'warn',
            message: `rosbridge sent a frame the cockpit could not read: ${text}`,
            hint: 'Usually a server or network fault; if it persists, check the rosbridge_server version and log.',
          }),
        ),
      serverStatus: (level, text) =>
        this.alertBoard.raise({ key: 'server-status', severity: level === 'error' ? 'warn' : 'info', message: `rosbridge says: ${text}` }),
    });
    this.session = session;
  }

  private onOpen(session: RosbridgeSession): void {
    if (session !== this.session) return;
    this.backoff.reset();
    this.alertBoard.clear('connection');
    this.live = new LiveConnection(
      session,
      {
        routes: this.routes,
        alerts: this.alertBoard,
        estimator: this.estimator,
        commandTopic: this.options.topicMap.command,
        wantedTopics: () => this.fanout.topics(),
        deliver: (route, wire) => this.deliver(route, wire),
        openProbe: (topic, rosType, onMessage) => this.openProbe(topic, rosType, onMessage),
      },
      this.options.clock,
      this.options.timings,
    );
    this.live.start();
    this.events.setPresence('present');
  }

  private onClosed(session: RosbridgeSession, reason: string): void {
    if (session !== this.session) return;
    const wasPresent = this.events.presence() === 'present';
    this.endConnection();
    const delayMs = this.backoff.nextDelayMs();
    this.alertBoard.raise({
      key: 'connection',
      severity: 'warn',
      message: `${wasPresent ? 'Lost' : 'Cannot reach'} the robot at ${this.options.url} (${reason}); retrying (attempt ${this.backoff.attempts}).`,
      hint:
        untrustedCertificateHint(reason) ??
        'Check that rosbridge_server is running on the robot (roslaunch rosbridge_server rosbridge_websocket.launch, or ros2 launch rosbridge_server rosbridge_websocket_launch.xml) and that the host and port are reachable.',
    });
    this.reconnectTimer = this.options.clock.setTimeout(() => this.connect(), delayMs);
    this.events.setPresence('reconnecting');
  }

  private deliver(route: TopicRoute, wire: unknown): void {
    const receiveTimeMs = this.options.clock.epochMs();
    const decoded = route.decode(wire);
    const key = `decode:${route.topic}`;
    if (!decoded.ok) {
      this.alertBoard.count(repeatingAlert({ key, severity: 'warn', message: `Dropped a message on ${route.topic}: ${decoded.problem}`, hint: decoded.hint }));
      return;
    }
    this.alertBoard.clearIfQuiet(key);
    this.alertBoard.clearIfQuiet('frame');
    let sourceTimeMs = receiveTimeMs;
    if (decoded.stampMs !== undefined) {
      this.estimator.addStamp(decoded.stampMs, receiveTimeMs);
      // Nothing arrives before it was stamped: a later source time is the estimate's error, not news.
      sourceTimeMs = Math.min(receiveTimeMs, this.estimator.toCockpitMs(decoded.stampMs, receiveTimeMs) ?? receiveTimeMs);
    }
    const ros2 = route.ros2 === undefined ? undefined : { ...route.ros2, cdr: decoded.cdr };
    this.fanout.deliver({ topic: route.topic, receiveTimeMs, sourceTimeMs, msg: decoded.msg, raw: decoded.fields ?? wire, ros2 });
  }

  /** A short-lived JSON subscription on its own connection (see silentCbor.ts for why separate). */
  private openProbe(topic: string, rosType: string, onMessage: () => void): TopicProbe {
    const { url, openSocket, clock, timings } = this.options;
    let probe: RosbridgeSession | undefined;
    try {
      probe = new RosbridgeSession(url, openSocket(url), clock, timings, {
        open: () => probe?.subscribe({ topic, rosType, compression: 'none', throttleMs: PROBE_THROTTLE_MS, queueLength: 1 }),
        closed: () => undefined,
        message: () => onMessage(),
        frameProblem: () => undefined,
        serverStatus: () => undefined,
      });
    } catch {
      // The main connection just opened with the same URL; if a second cannot, the check is inconclusive.
    }
    return { close: () => probe?.close() };
  }

  private endConnection(): void {
    this.live?.dispose();
    this.live = undefined;
    this.session?.close();
    this.session = undefined;
  }

  private fail(problem: string): void {
    this.alertBoard.raise({
      key: 'connection',
      severity: 'error',
      message: `Cannot connect: ${problem}.`,
      hint: 'Give the robot as ws://HOST:PORT (rosbridge_server listens on 9090 by default).',
    });
    this.events.setPresence('error');
  }
}
