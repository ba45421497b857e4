// What a FoxgloveLink can be told, and the defaults for what it is not.
import { DEFAULT_TOPIC_MAP, type TopicMap, type TopicRole } from '../../core/link.ts';
import { ROSBRIDGE_RECONNECT_BACKOFF, type BackoffPolicy } from '../rosbridge/backoff.ts';
import { DEFAULT_COMMAND_STAMP, type CommandStampOptions } from '../rosbridge/commandMessage.ts';
import { systemLinkClock, type LinkClock } from '../rosbridge/linkClock.ts';

/** foxglove_bridge 3.x speaks `foxglove.sdk.v1` and refuses a client offering only the old name; older servers speak only the old one. */
export const FOXGLOVE_SUBPROTOCOLS: readonly string[] = Object.freeze(['foxglove.sdk.v1', 'foxglove.websocket.v1']);

export interface FoxgloveTimings {
  backoff: BackoffPolicy;
  /** A WebSocket ping this often; foxglove_bridge (websocketpp) answers pings. */
  pingIntervalMs: number;
  /** No frame and no pong for this long: the socket is reset, so nothing written meanwhile arrives late. */
  silenceTimeoutMs: number;
  /** The server's serverInfo must come within this long of the socket opening. */
  serverInfoTimeoutMs: number;
  /** After serverInfo, the link is present once the channel list arrives, or after this long without one. */
  channelListGraceMs: number;
  /** A problem that repeats per message is re-announced at most this often. */
  alertRepeatIntervalMs: number;
}

export const DEFAULT_FOXGLOVE_TIMINGS: Readonly<FoxgloveTimings> = Object.freeze({
  backoff: ROSBRIDGE_RECONNECT_BACKOFF,
  pingIntervalMs: 1000,
  silenceTimeoutMs: 4000,
  serverInfoTimeoutMs: 5000,
  channelListGraceMs: 250,
  alertRepeatIntervalMs: 5000,
});

export interface FoxgloveLimits {
  /** Channels kept; beyond this only the topics the cockpit wants (a server may advertise thousands). */
  maxChannels: number;
  /** A message larger than this is dropped with an alert; the rest of the link keeps working. */
  maxMessageBytes: number;
  /** A WebSocket frame larger than this closes the connection before it is read (ws' maxPayload); the link reconnects. */
  maxFrameBytes: number;
}

export const DEFAULT_FOXGLOVE_LIMITS: Readonly<FoxgloveLimits> = Object.freeze({
  maxChannels: 4096,
  maxMessageBytes: 64 * 1024 * 1024,
  maxFrameBytes: 256 * 1024 * 1024,
});

export interface FoxgloveLinkOptions {
  /** `ws://HOST:PORT` or `wss://HOST:PORT` (foxglove_bridge listens on 8765 by default). */
  url: string;
  /** Defaults to the URL's host. */
  robotName?: string;
  topics?: Partial<TopicMap>;
  /** The command type where the robot advertises no channel on the command topic (ROS 1 or ROS 2 spelling). */
  commandType?: string;
  /** How a TwistStamped command is stamped and framed (default: stamp zero, frame `base_link`). */
  command?: Partial<CommandStampOptions>;
  simulated?: boolean;
  timings?: Partial<FoxgloveTimings>;
  limits?: Partial<FoxgloveLimits>;
  /** PEM certificate authorities a wss:// robot's certificate is checked against (`--ca`); default: the system's. */
  ca?: string;
  /** Receive times, stamps' offsets and reconnect timers; a bench gives a sub-millisecond clock. */
  clock?: LinkClock;
}

export interface ResolvedFoxgloveOptions {
  url: string;
  robotName: string;
  topicMap: Readonly<TopicMap>;
  commandType: string | undefined;
  command: Readonly<CommandStampOptions>;
  simulated: boolean;
  timings: Readonly<FoxgloveTimings>;
  limits: Readonly<FoxgloveLimits>;
  ca: string | undefined;
  clock: LinkClock;
}

export function resolveFoxgloveOptions(options: FoxgloveLinkOptions): ResolvedFoxgloveOptions {
  return {
    url: options.url,
    robotName: options.robotName ?? (URL.canParse(options.url) ? new URL(options.url).host : options.url),
    topicMap: { ...DEFAULT_TOPIC_MAP, ...options.topics },
    commandType: options.commandType,
    command: { ...DEFAULT_COMMAND_STAMP, ...options.command },
    simulated: options.simulated ?? false,
    timings: { ...DEFAULT_FOXGLOVE_TIMINGS, ...options.timings },
    limits: { ...DEFAULT_FOXGLOVE_LIMITS, ...options.limits },
    ca: options.ca,
    clock: options.clock ?? systemLinkClock,
  };
}

/** The role whose topic this is, if any. */
export function roleOfTopic(topicMap: Readonly<TopicMap>, topic: string): TopicRole | undefined {
  return (Object.keys(topicMap) as TopicRole[]).find((role) => topicMap[role] === topic);
}
