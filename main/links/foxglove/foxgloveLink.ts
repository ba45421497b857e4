// A robot reached through a foxglove server (foxglove_bridge on ROS 2 or ROS 1, or any server of the
// Foxglove WebSocket protocol). The link owns the connection's life the way the rosbridge link does:
// connecting, present once the server has said who it is and what it offers, reconnecting with
// jittered backoff (subscribing again to every wanted channel), closed for good on close(). Channels,
// subscriptions and decoding live with each connection (liveChannels.ts); commands go through the
// protocol's client publishing, in the robot's command type. A command that cannot go out now is
// dropped, never queued.
import type { ServerInfo } from './wsProtocol.ts';
import type { CoreAlert } from '../../core/alert.ts';
import type { Link, LinkCapabilities, LinkEvents, LinkPresence, NodeParameterRead, RobotAssetFetch, TopicInfo, Unsubscribe } from '../../core/link.ts';
import type { Received, RobotMessage, Twist } from '../../core/messages.ts';
import { AlertBoard, repeatingAlert } from '../alertBoard.ts';
import { untrustedCertificateHint } from '../caFile.ts';
import { LinkEventHub } from '../linkEventHub.ts';
import { TopicFanout } from '../topicFanout.ts';
import { JitteredBackoff } from '../rosbridge/backoff.ts';
import { ClockOffsetEstimator, type ClockOffsetEstimate } from '../rosbridge/clockOffset.ts';
import { encodeTwist } from '../rosbridge/decode/twists.ts';
import type { TimerHandle } from '../rosbridge/linkClock.ts';
import { isSimulatorBackChannel } from '../rosbridge/topicRoutes.ts';
import { commandChannel, type CommandChannel } from './commandChannel.ts';
import { resolveFoxgloveOptions, type FoxgloveLinkOptions, type ResolvedFoxgloveOptions } from './foxgloveOptions.ts';
import { FoxgloveSession } from './foxgloveSession.ts';
import { LiveChannels } from './liveChannels.ts';
import { ServerRequests } from './serverRequests.ts';

/** What lives as long as one connection. */
interface Connection {
  session: FoxgloveSession;
  serverInfo: ServerInfo;
  requests: ServerRequests;
  live: LiveChannels;
  /** command topic → the client channel advertised for it */
  commandChannels: Map<string, { id: number; channel: CommandChannel }>;
}

export class FoxgloveLink implements Link {
  readonly robotName: string;
  readonly capabilities: LinkCapabilities;
  private readonly options: ResolvedFoxgloveOptions;
  private readonly alertBoard: AlertBoard;
  private readonly estimator = new ClockOffsetEstimator();
  private readonly backoff: JitteredBackoff;
  private readonly events = new LinkEventHub('connecting');
  private readonly fanout = new TopicFanout({
    firstSubscribed: (topic) => this.connection?.live.subscribe(topic),
    lastUnsubscribed: (topic) => this.connection?.live.unsubscribe(topic),
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
  private session: FoxgloveSession | undefined;
  private connection: Connection | undefined;
  private reconnectTimer: TimerHandle | undefined;
  private presentTimer: TimerHandle | undefined;

  constructor(options: FoxgloveLinkOptions) {
    this.options = resolveFoxgloveOptions(options);
    this.robotName = this.options.robotName;
    this.capabilities = Object.freeze({ sendsCommands: true, simulated: this.options.simulated });
    this.alertBoard = new AlertBoard((alerts) => this.events.emitAlerts(alerts), {
      nowMs: () => this.options.clock.epochMs(),
      minUpdateIntervalMs: this.options.timings.alertRepeatIntervalMs,
      clearAfterQuietMs: this.options.timings.alertRepeatIntervalMs,
    });
    this.backoff = new JitteredBackoff(this.options.timings.backoff, Math.random);
    this.connect();
  }

  presence(): LinkPresence {
    return this.events.presence();
  }

  alerts(): readonly CoreAlert[] {
    return this.alertBoard.list();
  }

  /** The channels the server advertises in kinds the link delivers, and the command topic with its type. */
  topics(): readonly TopicInfo[] {
    const connection = this.connection;
    if (connection === undefined) return [];
    const offered = connection.live.offered();
    const command = this.options.topicMap.command;
    if (connection.live.channels.forTopic(command) === undefined && this.options.commandType !== undefined) {
      offered.push({ topic: command, kind: 'Twist', type: this.options.commandType });
    }
    return offered;
  }

  /** The robot-to-cockpit clock offset from message stamps (the protocol has no time service); undefined until known. */
  clockOffset(): ClockOffsetEstimate | undefined {
    return this.estimator.estimate(this.options.clock.epochMs());
  }

  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe {
    const presence = this.events.presence();
    if (presence === 'closed' || presence === 'error') return () => undefined;
    return this.fanout.subscribe(topic, onMessage);
  }

  publish(topic: string, twist: Twist): boolean {
    const connection = this.connection;
    if (this.events.presence() !== 'present' || connection === undefined || !connection.session.isOpen()) return false;
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
    if (!connection.serverInfo.capabilities.includes('clientPublish')) {
      this.alertBoard.raise({
        key: `command-type:${topic}`,
        severity: 'error',
        message: `The foxglove server at ${this.options.url} does not take messages from clients (no clientPublish capability), so no command is sent.`,
        hint: 'Start foxglove_bridge with client publishing allowed (capabilities include clientPublish; check client_topic_whitelist).',
      });
      return false;
    }
    const advertised = this.commandChannelFor(connection, topic);
    if (advertised === undefined) return false;
    const { frameId } = this.options.command;
    // Stamp zero (the robot's now) unless the robot's clock was asked for and is known; never the cockpit's.
    const stampMs = advertised.channel.shape === 'TwistStamped' ? this.commandStampMs() : undefined;
    return connection.session.send(advertised.id, advertised.channel.encode(wire, frameId, stampMs));
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

  private commandStampMs(): number | undefined {
    if (this.options.command.stamp === 'zero') return undefined;
    const nowMs = this.options.clock.epochMs();
    const estimate = this.estimator.estimate(nowMs);
    if (estimate === undefined) {
      this.alertBoard.raise({
        key: 'command-stamp',
        severity: 'warn',
        message: "The robot's clock is not known yet; commands go out stamped zero (the robot's now) until it is.",
        hint: 'The foxglove link learns the clock from stamped sensor messages; subscribe to one (odometry, IMU).',
      });
      return undefined;
    }
    this.alertBoard.clear('command-stamp');
    return nowMs + estimate.offsetMs;
  }

  /** The client channel for a command topic on this connection, advertised on first use; undefined (with an alert) where none can be. */
  private commandChannelFor(connection: Connection, topic: string): { id: number; channel: CommandChannel } | undefined {
    const existing = connection.commandChannels.get(topic);
    if (existing !== undefined) return existing;
    const outcome = commandChannel({
      topic,
      advertised: connection.live.channels.forTopic(topic),
      configuredType: topic === this.options.topicMap.command ? this.options.commandType : undefined,
      supportedEncodings: connection.serverInfo.supportedEncodings,
    });
    if (!outcome.ok) {
      this.alertBoard.raise(outcome.alert);
      return undefined;
    }
    this.alertBoard.clear(`command-type:${topic}`);
    const { channel } = outcome;
    const id = connection.session.advertise({
      topic,
      encoding: channel.encoding,
      schemaName: channel.schemaName,
      schema: channel.schema,
      schemaEncoding: channel.schemaEncoding,
    });
    if (id === undefined) return undefined;
    const advertised = { id, channel };
    connection.commandChannels.set(topic, advertised);
    return advertised;
  }

  private connect(): void {
    this.reconnectTimer = undefined;
    const { url } = this.options;
    const problem = urlProblem(url);
    if (problem !== undefined) return this.fail(problem);
    let session: FoxgloveSession;
    try {
      session = new FoxgloveSession(url, this.options.timings, this.options.limits, this.options.ca, {
        ready: (serverInfo, subprotocol) => this.onReady(session, serverInfo, subprotocol),
        advertise: (channels) => this.onAdvertise(channels),
        unadvertise: (ids) => this.connection?.live.unadvertise(ids),
        message: (subscriptionId, logTimeNanos, payload) => this.onMessage(subscriptionId, logTimeNanos, payload),
        status: (level, message) =>
          this.alertBoard.raise({ key: 'server-status', severity: level >= 2 ? 'warn' : 'info', message: `The foxglove server says: ${message}` }),
        frameProblem: (text) =>
          this.alertBoard.count(
            repeatingAlert({
              key: 'frame',
              severity: 'warn',
              message: `The foxglove server sent a frame the cockpit could not read: ${text}`,
              hint: 'Usually a server fault or version mismatch; check the foxglove_bridge version and log.',
            }),
          ),
        parameterValues: (parameters, id) => this.connection?.requests.onParameterValues(parameters, id),
        fetchAssetResponse: (response) => this.connection?.requests.onFetchAssetResponse(response),
        closed: (reason) => this.onClosed(session, reason),
      });
    } catch (error) {
      return this.fail(error instanceof Error ? error.message : String(error));
    }
    this.session = session;
  }

  private onReady(session: FoxgloveSession, serverInfo: ServerInfo, subprotocol: string): void {
    if (session !== this.session) return;
    this.backoff.reset();
    this.alertBoard.clear('connection');
    const { topicMap, limits } = this.options;
    const unlisted = this.options.simulated ? isSimulatorBackChannel : undefined;
    const live = new LiveChannels(session, topicMap, limits, this.alertBoard, (topic) => this.fanout.wants(topic), unlisted);
    const requests = new ServerRequests(session, serverInfo.capabilities, this.options.url);
    this.connection = { session, serverInfo, live, requests, commandChannels: new Map() };
    if (subprotocol !== 'foxglove.sdk.v1') {
      this.alertBoard.raise({ key: 'subprotocol', severity: 'info', message: `The foxglove server speaks the older ${subprotocol} protocol.` });
    }
    // Present once the channel list is in (it follows serverInfo at once), so topics() and the command
    // type are known from the first moment; a server with no channels sends none, hence the grace.
    this.presentTimer = this.options.clock.setTimeout(() => this.becomePresent(), this.options.timings.channelListGraceMs);
  }

  private becomePresent(): void {
    if (this.presentTimer !== undefined) this.options.clock.clearTimeout(this.presentTimer);
    this.presentTimer = undefined;
    if (this.connection !== undefined && this.events.presence() !== 'present') this.events.setPresence('present');
  }

  private onAdvertise(entries: unknown): void {
    const connection = this.connection;
    if (connection === undefined) return;
    const added = connection.live.advertise(entries);
    if (this.presentTimer !== undefined) queueMicrotask(() => this.becomePresent());
    if (added.some((channel) => channel.topic === this.options.topicMap.command)) this.alertBoard.clear(`command-type:${this.options.topicMap.command}`);
  }

  private onMessage(subscriptionId: number, logTimeNanos: bigint, payload: Uint8Array): void {
    const message = this.connection?.live.read(subscriptionId, payload);
    if (message === undefined) return;
    const { channel, wire, msg } = message;
    const receiveTimeMs = this.options.clock.epochMs();
    const stampMs = message.stampMs ?? (logTimeNanos > 0n ? Number(logTimeNanos / 1000n) / 1000 : undefined);
    let sourceTimeMs = receiveTimeMs;
    if (stampMs !== undefined) {
      this.estimator.addStamp(stampMs, receiveTimeMs);
      // Nothing arrives before it was stamped: a later source time is the estimate's error, not news.
      sourceTimeMs = Math.min(receiveTimeMs, this.estimator.toCockpitMs(stampMs, receiveTimeMs) ?? receiveTimeMs);
    }
    // A ROS 2 robot's message keeps its origin, so a recording writes it as the robot sent it (cdr, ros2msg).
    const ros2 =
      channel.encoding === 'cdr'
        ? { rosType: channel.schemaName, ...(channel.schemaEncoding === 'ros2idl' ? {} : { definitionText: channel.schema }), cdr: payload }
        : undefined;
    this.fanout.deliver({ topic: channel.topic, receiveTimeMs, sourceTimeMs, msg, raw: wire, ...(ros2 === undefined ? {} : { ros2 }) });
  }

  private onClosed(session: FoxgloveSession, reason: string): void {
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
        'Check that foxglove_bridge is running on the robot (ros2 launch foxglove_bridge foxglove_bridge_launch.xml; port 8765 by default) and that the host and port are reachable.',
    });
    this.reconnectTimer = this.options.clock.setTimeout(() => this.connect(), delayMs);
    this.events.setPresence('reconnecting');
  }

  /** A ROS 2 node's parameter through the server's `parameters` capability (foxglove_bridge: `NODE.PARAM`). */
  readNodeParameter(node: string, name: string): Promise<NodeParameterRead> {
    const connection = this.connection;
    if (connection === undefined)
      return Promise.resolve({ ok: false, problem: `the parameter ${name} of ${node} was not asked for: not connected to ${this.options.url}` });
    return connection.requests.readNodeParameter(node, name);
  }

  /** A file the server serves (its `assets` capability: foxglove_bridge's `package://` meshes). */
  fetchAsset(uri: string): Promise<RobotAssetFetch> {
    const connection = this.connection;
    if (connection === undefined)
      return Promise.resolve({ ok: false, problem: `${uri} was not asked for: not connected to ${this.options.url}`, failure: 'not-connected' });
    return connection.requests.fetchAsset(uri);
  }

  private endConnection(): void {
    this.connection?.requests.dispose(`the connection to ${this.options.url} ended`);
    if (this.presentTimer !== undefined) this.options.clock.clearTimeout(this.presentTimer);
    this.presentTimer = undefined;
    this.session?.close();
    this.session = undefined;
    this.connection = undefined;
  }

  private fail(problem: string): void {
    this.alertBoard.raise({
      key: 'connection',
      severity: 'error',
      message: `Cannot connect: ${problem}.`,
      hint: 'Give the robot as foxglove://HOST:PORT or ws://HOST:PORT (foxglove_bridge listens on 8765 by default).',
    });
    this.events.setPresence('error');
  }
}

function urlProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return `"${url}" is not a URL`;
  const protocol = new URL(url).protocol;
  return protocol === 'ws:' || protocol === 'wss:' ? undefined : `"${url}" is not a ws:// or wss:// URL`;
}
