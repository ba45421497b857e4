// What a RosbridgeLink can be told, and the defaults for what it is not.
import { DEFAULT_TOPIC_MAP, type TopicMap, type TopicRole } from '../../core/link.ts';
import type { BackoffPolicy } from './backoff.ts';
import { ROSBRIDGE_RECONNECT_BACKOFF } from './backoff.ts';
import { DEFAULT_CLOCK_OFFSET_OPTIONS } from './clockOffset.ts';
import { DEFAULT_COMMAND_STAMP, type CommandStampOptions } from './commandMessage.ts';
import { systemLinkClock, type LinkClock } from './linkClock.ts';
import type { LiveTimings } from './liveConnection.ts';
import { DEFAULT_HEARTBEAT, type HeartbeatTimings } from './rosbridgeTransport.ts';
import { DEFAULT_SILENT_CBOR_OPTIONS } from './silentCbor.ts';
import { DEFAULT_WS_SOCKET_OPTIONS, openWsSocket, type SocketPort } from './socketPort.ts';
import { DEFAULT_ROLE_TYPES, type WireCompression } from './topicRoutes.ts';

export interface RosbridgeTimings extends LiveTimings, HeartbeatTimings {
  backoff: BackoffPolicy;
  clockWindowMs: number;
  /** A problem that repeats per message is re-announced at most this often. */
  alertRepeatIntervalMs: number;
}

export const DEFAULT_ROSBRIDGE_TIMINGS: Readonly<RosbridgeTimings> = Object.freeze({
  ...DEFAULT_HEARTBEAT,
  serviceTimeoutMs: 2000,
  discoveryPeriodMs: 10_000,
  clockSyncPeriodMs: 10_000,
  clockSyncBurst: 3,
  silentCbor: DEFAULT_SILENT_CBOR_OPTIONS,
  backoff: ROSBRIDGE_RECONNECT_BACKOFF,
  clockWindowMs: DEFAULT_CLOCK_OFFSET_OPTIONS.windowMs,
  alertRepeatIntervalMs: 5000,
});

export interface RosbridgeLinkOptions {
  /** `ws://HOST:PORT` or `wss://HOST:PORT`. */
  url: string;
  /** Defaults to the URL's host. */
  robotName?: string;
  topics?: Partial<TopicMap>;
  /** The ROS type each role expects where rosapi cannot say (ROS 1 or ROS 2 spelling). */
  topicTypes?: Partial<Record<TopicRole, string>>;
  /** Per-topic compression; by default CBOR for images, scans and point clouds, JSON for the rest. */
  compression?: Readonly<Record<string, WireCompression>>;
  /** The robot on the far side is a simulation (the cockpit's own, checked by handshake). */
  simulated?: boolean;
  /** How a TwistStamped command is stamped and framed (default: stamp zero, frame `base_link`). */
  command?: Partial<CommandStampOptions>;
  timings?: Partial<RosbridgeTimings>;
  /** PEM certificate authorities a wss:// robot's certificate is checked against (`--ca`); default: the system's. */
  ca?: string;
  openSocket?: (url: string) => SocketPort;
  clock?: LinkClock;
  random?: () => number;
}

export interface ResolvedRosbridgeOptions {
  url: string;
  robotName: string;
  topicMap: Readonly<TopicMap>;
  roleTypes: Readonly<Record<TopicRole, string>>;
  /** The command type was given in `topicTypes`: the link may use it where rosapi cannot say. */
  commandTypeGiven: boolean;
  compression: Readonly<Record<string, WireCompression>>;
  simulated: boolean;
  command: Readonly<CommandStampOptions>;
  timings: Readonly<RosbridgeTimings>;
  openSocket: (url: string) => SocketPort;
  clock: LinkClock;
  random: () => number;
}

export function resolveRosbridgeOptions(options: RosbridgeLinkOptions): ResolvedRosbridgeOptions {
  return {
    url: options.url,
    robotName: options.robotName ?? hostOf(options.url),
    topicMap: { ...DEFAULT_TOPIC_MAP, ...options.topics },
    roleTypes: { ...DEFAULT_ROLE_TYPES, ...options.topicTypes },
    commandTypeGiven: options.topicTypes?.command !== undefined,
    compression: { ...options.compression },
    simulated: options.simulated ?? false,
    command: { ...DEFAULT_COMMAND_STAMP, ...options.command },
    timings: { ...DEFAULT_ROSBRIDGE_TIMINGS, ...options.timings },
    openSocket: options.openSocket ?? ((url) => openWsSocket(url, { ...DEFAULT_WS_SOCKET_OPTIONS, ...(options.ca === undefined ? {} : { ca: options.ca }) })),
    clock: options.clock ?? systemLinkClock,
    random: options.random ?? Math.random,
  };
}

/** The problem with a robot URL, or undefined when it is a ws:// or wss:// URL. */
export function rosbridgeUrlProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return `"${url}" is not a URL`;
  const protocol = new URL(url).protocol;
  return protocol === 'ws:' || protocol === 'wss:' ? undefined : `"${url}" is not a ws:// or wss:// URL`;
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}
