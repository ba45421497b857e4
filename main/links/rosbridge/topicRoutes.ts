// How each topic travels and is decoded: its ROS type (what rosapi discovered, else the type the
// topic map expects for its role), the kind it is delivered as (a role's kind, so a camera role on a
// CompressedImage topic delivers decoded Images), and its compression (CBOR for bulky types, JSON
// for the rest, unless configured, or learned to be silent over CBOR).
import type { CoreAlert } from '../../core/alert.ts';
import { ROLE_KINDS, type TopicInfo, type TopicMap, type TopicRole } from '../../core/link.ts';
import type { MessageKind } from '../../core/messages.ts';
import { commandShapeOf, type CommandShape } from './commandMessage.ts';
import { decoderFor, kindOfType, prefersCbor, type MessageDecoder } from './decode/messageTypes.ts';

export type WireCompression = 'cbor' | 'none';

export interface TopicRoute {
  topic: string;
  rosType: string;
  kind: MessageKind;
  decode: MessageDecoder;
  compression: WireCompression;
}

/** Undecided until discovery has run, or refused with an alert for the operator. */
export type RouteOutcome = { ok: true; route: TopicRoute } | { ok: false; wait: true } | { ok: false; wait: false; alert: CoreAlert };

/** The type a command topic is published in, or why none can be. */
export type CommandRoute = { ok: true; rosType: string; shape: CommandShape } | { ok: false; alert: CoreAlert };

/** The ROS type each role expects unless discovery says otherwise. */
export const DEFAULT_ROLE_TYPES: Readonly<Record<TopicRole, string>> = Object.freeze({
  camera: 'sensor_msgs/Image',
  scan: 'sensor_msgs/LaserScan',
  joints: 'sensor_msgs/JointState',
  imu: 'sensor_msgs/Imu',
  odom: 'nav_msgs/Odometry',
  command: 'geometry_msgs/Twist',
});

const SENSOR_ROLES: readonly TopicRole[] = ['camera', 'scan', 'joints', 'imu', 'odom'];

export interface TopicRouteOptions {
  topicMap: Readonly<TopicMap>;
  roleTypes: Readonly<Record<TopicRole, string>>;
  /** Per-topic compression, overriding the defaults and the silent-CBOR fallback. */
  compression: Readonly<Record<string, WireCompression>>;
}

export class TopicRoutes {
  /** topic → ROS type, as rosapi reported; undefined before discovery or where rosapi is missing. */
  private discovered: ReadonlyMap<string, string> | undefined;
  private discoveryFailed = false;
  private readonly jsonOnly = new Set<string>();

  constructor(private readonly options: Readonly<TopicRouteOptions>) {}

  setDiscovered(types: ReadonlyMap<string, string>): void {
    this.discovered = types;
    this.discoveryFailed = false;
  }

  /** rosapi could not be asked: role topics fall back to the types the topic map expects. */
  setDiscoveryFailed(): void {
    this.discoveryFailed = true;
  }

  /** From now on this topic travels as JSON (it was found silent over CBOR). */
  preferJson(topic: string): void {
    this.jsonOnly.add(topic);
  }

  route(topic: string): RouteOutcome {
    const role = this.roleOf(topic);
    const discoveredType = this.discovered?.get(topic);
    if (role !== undefined && (discoveredType !== undefined || this.discoveryFailed)) {
      return this.routeAs(topic, discoveredType ?? this.options.roleTypes[role], ROLE_KINDS[role], role);
    }
    if (this.discovered === undefined && !this.discoveryFailed) return { ok: false, wait: true };
    if (discoveredType === undefined) {
      return refuse(
        topic,
        `${topic} is not offered by the robot`,
        'Check the topic name (rostopic list / ros2 topic list shows what it offers); the link subscribes when it appears.',
      );
    }
    const kind = kindOfType(discoveredType);
    if (kind === undefined)
      return refuse(
        topic,
        `${topic} carries ${discoveredType}, which the cockpit does not decode`,
        'Subscribe to a topic of a supported type (Image, CompressedImage, LaserScan, PointCloud2, JointState, Imu, Odometry, Twist).',
      );
    return this.routeAs(topic, discoveredType, kind, undefined);
  }

  /**
   * The ROS type to advertise and publish a command topic in: what rosapi lists, else (rosapi not
   * asked yet, or missing) the topic map's command type. A listed robot that lacks the topic, or
   * carries it in a type other than Twist or TwistStamped, is refused with an alert, never guessed at.
   */
  commandRoute(topic: string): CommandRoute {
    const discoveredType = this.discovered?.get(topic);
    const key = `command-type:${topic}`;
    if (this.discovered !== undefined && discoveredType === undefined) {
      const alert: CoreAlert = {
        key,
        severity: 'error',
        message: `The robot does not offer the command topic ${topic} (rosapi lists no such topic), so no command is sent.`,
        hint: "Point the command role at the topic the robot's base controller takes (ros2 topic list -t / rostopic list shows them), or start that controller.",
      };
      return { ok: false, alert };
    }
    const rosType = discoveredType ?? this.options.roleTypes.command;
    const shape = commandShapeOf(rosType);
    if (shape === undefined) {
      const alert: CoreAlert = {
        key,
        severity: 'error',
        message: `${topic} carries ${rosType}; the cockpit sends geometry_msgs/Twist or geometry_msgs/TwistStamped, so nothing was sent.`,
        hint: 'Point the command role at a Twist or TwistStamped topic (a twist_mux input, say), or relay one to this type on the robot.',
      };
      return { ok: false, alert };
    }
    return { ok: true, rosType, shape };
  }

  /** What the robot offers in kinds the link delivers; the topic map's sensors where rosapi is missing. */
  offered(): TopicInfo[] {
    if (this.discovered === undefined) {
      return SENSOR_ROLES.map((role) => ({ topic: this.options.topicMap[role], kind: ROLE_KINDS[role], type: this.options.roleTypes[role] }));
    }
    const offered: TopicInfo[] = [];
    for (const [topic, type] of this.discovered) {
      const outcome = this.route(topic);
      if (outcome.ok) offered.push({ topic, kind: outcome.route.kind, type });
    }
    return offered;
  }

  private routeAs(topic: string, rosType: string, kind: MessageKind, role: TopicRole | undefined): RouteOutcome {
    const decode = decoderFor(rosType, kind);
    if (decode === undefined) {
      const who = role === undefined ? 'the cockpit' : `the ${role} role`;
      return refuse(
        topic,
        `${topic} carries ${rosType}, but ${who} needs ${kind}`,
        `Point the ${role ?? 'subscription'} at a topic that carries ${kind} (the topic map sets each role's topic).`,
      );
    }
    // A topic found silent over CBOR stays on JSON whatever was configured: CBOR cannot work there.
    const configured = this.options.compression[topic] ?? (prefersCbor(kindOfType(rosType) ?? kind) ? 'cbor' : 'none');
    const compression = this.jsonOnly.has(topic) ? 'none' : configured;
    return { ok: true, route: { topic, rosType, kind, decode, compression } };
  }

  private roleOf(topic: string): TopicRole | undefined {
    return (Object.keys(this.options.topicMap) as TopicRole[]).find((role) => this.options.topicMap[role] === topic);
  }
}

function refuse(topic: string, message: string, hint: string): RouteOutcome {
  return { ok: false, wait: false, alert: { key: `topic:${topic}`, severity: 'warn', message, hint } };
}
