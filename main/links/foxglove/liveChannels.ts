// What lives as long as one connection to a foxglove server: the channels it advertises, the link's
// subscriptions to them (made for every wanted topic as its channel appears, again when it comes
// back), and each message read and decoded by its channel's schema: a type without a kind of its own
// as RosFields, its fields as the schema reads them. Every problem is an alert in words on the link's
// board; a message that cannot be used is dropped alone.
import { ROLE_KINDS, type TopicInfo, type TopicMap } from '../../core/link.ts';
import type { RobotMessage } from '../../core/messages.ts';
import { repeatingAlert, type AlertBoard } from '../alertBoard.ts';
import { decoderFor, deliveredKindOf, type MessageDecoder } from '../rosbridge/decode/messageTypes.ts';
import { ChannelPayloadError, payloadReader, readsEncoding, type PayloadReader } from './channelDecoder.ts';
import { ChannelList, type AdvertisedChannel } from './channelList.ts';
import { roleOfTopic, type FoxgloveLimits } from './foxgloveOptions.ts';
import type { FoxgloveSession } from './foxgloveSession.ts';

/** A subscribed channel: how its payloads become messages. */
interface ChannelRoute {
  channel: AdvertisedChannel;
  read: PayloadReader;
  decode: MessageDecoder;
}

/** One message, read and decoded. */
export interface ChannelMessage {
  channel: AdvertisedChannel;
  /** The message object as the channel's schema reads it (ROS field names), for plots of any field. */
  wire: unknown;
  msg: RobotMessage;
  /** The header's stamp in ms on the robot's clock; undefined when unstamped. */
  stampMs: number | undefined;
}

export class LiveChannels {
  readonly channels: ChannelList;
  /** subscription id → route */
  private readonly routes = new Map<number, ChannelRoute>();
  /** topic → subscription id */
  private readonly subscribed = new Map<string, number>();

  constructor(
    private readonly session: FoxgloveSession,
    private readonly topicMap: Readonly<TopicMap>,
    private readonly limits: Readonly<FoxgloveLimits>,
    private readonly alerts: AlertBoard,
    /** Topics someone subscribes to: subscribed on the wire as their channels appear. */
    private readonly wanted: (topic: string) => boolean,
    /** Channels never offered (still subscribed to by name): a simulated robot's back channel. */
    private readonly unlisted: (topic: string) => boolean = () => false,
  ) {
    this.channels = new ChannelList(limits.maxChannels, (topic) => wanted(topic) || roleOfTopic(topicMap, topic) !== undefined);
  }

  /** The channels in an encoding the link reads, each in the kind it is delivered as. */
  offered(): TopicInfo[] {
    const offered: TopicInfo[] = [];
    for (const channel of this.channels.all()) {
      const kind = this.kindOf(channel);
      if (!this.unlisted(channel.topic) && readsEncoding(channel.encoding) && decoderFor(channel.schemaName, kind) !== undefined)
        offered.push({ topic: channel.topic, kind, type: channel.schemaName });
    }
    return offered;
  }

  advertise(entries: unknown): AdvertisedChannel[] {
    const changes = this.channels.advertise(entries);
    if (changes.malformed.length > 0) {
      this.alerts.count({
        key: 'channel-malformed',
        describe: (count) => ({
          key: 'channel-malformed',
          severity: 'warn',
          message: `The foxglove server advertised ${count === 1 ? 'a channel' : `${count} batches of channels`} the cockpit could not read (e.g. ${changes.malformed[0]}); they are ignored.`,
          hint: 'A server bug or a protocol version the cockpit does not know; its other channels keep working.',
        }),
      });
    }
    if (changes.overflow > 0) {
      this.alerts.raise({
        key: 'channel-overflow',
        severity: 'warn',
        message: `The foxglove server advertises more than ${this.limits.maxChannels} channels; the cockpit keeps the first ${this.limits.maxChannels} and the ones it subscribes to (${changes.overflow} more ignored).`,
        hint: "Limit what foxglove_bridge offers with its topic_whitelist parameter; the topic map's topics are always kept.",
      });
    }
    for (const channel of changes.added) if (this.wanted(channel.topic)) this.subscribe(channel.topic);
    return changes.added;
  }

  unadvertise(ids: unknown): void {
    for (const channel of this.channels.unadvertise(ids)) {
      const subscriptionId = this.subscribed.get(channel.topic);
      if (subscriptionId === undefined) continue;
      // The server has dropped the subscription with the channel; it is made again if the topic comes back.
      this.subscribed.delete(channel.topic);
      this.routes.delete(subscriptionId);
      this.alerts.raise({
        key: `topic:${channel.topic}`,
        severity: 'warn',
        message: `The robot stopped offering ${channel.topic}.`,
        hint: 'Its publisher stopped (a node exited?); the link subscribes again when it comes back.',
      });
    }
  }

  subscribe(topic: string): void {
    if (this.subscribed.has(topic)) return;
    const channel = this.channels.forTopic(topic);
    if (channel === undefined) return;
    const route = this.routeFor(channel);
    if (route === undefined) return;
    const subscriptionId = this.session.subscribe(channel.id);
    if (subscriptionId === undefined) return;
    this.subscribed.set(topic, subscriptionId);
    this.routes.set(subscriptionId, route);
    this.alerts.clear(`topic:${topic}`);
  }

  unsubscribe(topic: string): void {
    const subscriptionId = this.subscribed.get(topic);
    if (subscriptionId === undefined) return;
    this.subscribed.delete(topic);
    this.routes.delete(subscriptionId);
    this.session.unsubscribe(subscriptionId);
  }

  /** The message a messageData frame carries, or undefined (with an alert) when it cannot be used. */
  read(subscriptionId: number, payload: Uint8Array): ChannelMessage | undefined {
    const route = this.routes.get(subscriptionId);
    if (route === undefined) return undefined; // unsubscribed a moment ago: the server may still have sent some
    const { channel } = route;
    const { topic } = channel;
    const key = `decode:${topic}`;
    if (payload.byteLength > this.limits.maxMessageBytes) {
      this.alerts.count(
        repeatingAlert({
          key: `too-large:${topic}`,
          severity: 'warn',
          message: `Dropped a ${megabytes(payload.byteLength)} message on ${topic}: the link takes at most ${megabytes(this.limits.maxMessageBytes)}.`,
          hint: 'A misconfigured sensor or a server fault; the link keeps delivering the other topics.',
        }),
      );
      return undefined;
    }
    let wire: unknown;
    try {
      wire = route.read(payload);
    } catch (error) {
      const problem = error instanceof ChannelPayloadError ? error.message : `could not read it: ${String(error)}`;
      this.alerts.count(
        repeatingAlert({
          key,
          severity: 'warn',
          message: `Dropped a message on ${topic} that does not match its schema: ${problem}`,
          hint: 'The robot and its bridge disagree about the message type (a stale message package?); the link keeps delivering the other topics.',
        }),
      );
      return undefined;
    }
    const decoded = route.decode(wire);
    if (!decoded.ok) {
      this.alerts.count(repeatingAlert({ key, severity: 'warn', message: `Dropped a message on ${topic}: ${decoded.problem}`, hint: decoded.hint }));
      return undefined;
    }
    this.alerts.clearIfQuiet(key);
    return { channel, wire, msg: decoded.msg, stampMs: decoded.stampMs };
  }

  /** A role's kind on the role's topic (a camera role on a CompressedImage topic delivers Images), else the type's own, else RosFields. */
  private kindOf(channel: AdvertisedChannel): RobotMessage['kind'] {
    const role = roleOfTopic(this.topicMap, channel.topic);
    return role !== undefined ? ROLE_KINDS[role] : deliveredKindOf(channel.schemaName);
  }

  private routeFor(channel: AdvertisedChannel): ChannelRoute | undefined {
    const role = roleOfTopic(this.topicMap, channel.topic);
    const kind = this.kindOf(channel);
    const decode = decoderFor(channel.schemaName, kind);
    if (decode === undefined) {
      this.alerts.raise({
        key: `topic:${channel.topic}`,
        severity: 'warn',
        message:
          channel.schemaName === ''
            ? `${channel.topic} comes without a schema name, so the cockpit cannot tell its type`
            : `${channel.topic} carries ${channel.schemaName}, but the ${role ?? 'subscription'} needs ${kind}`,
        hint: 'Point each role at a topic of its type (Image or CompressedImage, LaserScan, JointState, Imu, Odometry); the topic map sets each role.',
      });
      return undefined;
    }
    const reader = payloadReader(channel);
    if (!reader.ok) {
      this.alerts.raise({ key: `topic:${channel.topic}`, severity: 'warn', message: reader.problem, hint: reader.hint });
      return undefined;
    }
    return { channel, read: reader.read, decode };
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
