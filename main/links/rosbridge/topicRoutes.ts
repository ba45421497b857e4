// How each topic travels and is decoded: its ROS type (what rosapi discovered, else the type the
// topic map expects for its role), the kind it is delivered as (a role's kind, so a camera role on a
// CompressedImage topic delivers decoded Images; else the type's own kind, or RosFields for a type
// without one), and its compression (CBOR for bulky types, maps included, JSON for the rest, unless
// configured, or learned to be silent over CBOR; on a ROS 2 robot whose rosapi gave their
// definitions, bulky types come as `cbor-raw`, the CDR read here). On a ROS 2 robot the definitions
// of every type are asked for, so a recording keeps RosFields topics in the robot's own encoding.
import type { CoreAlert } from '../../core/alert.ts';
import { ROLE_KINDS, type TopicInfo, type TopicMap, type TopicRole } from '../../core/link.ts';
import type { MessageKind, Ros2Origin } from '../../core/messages.ts';
import { ros1TypeName, ros2TypeName } from '../../core/rosMessageDefinitions.ts';
import { commandShapeOf, type CommandShape } from './commandMessage.ts';
import { cborRawDecoder, cdrReaderFor, type CdrReading } from './decode/cborRaw.ts';
import { decoderFor, deliveredKindOf, isBulkyType, type MessageDecoder } from './decode/messageTypes.ts';
import { rosVersionOfTypes, type RosVersion } from './rosapi.ts';

export type WireCompression = 'cbor' | 'none' | 'cbor-raw';

export interface TopicRoute {
  topic: string;
  rosType: string;
  kind: MessageKind;
  decode: MessageDecoder;
  compression: WireCompression;
  /** Set on a ROS 2 robot: the type and the robot's definition, for recording in its own encoding. */
  ros2?: Ros2Origin;
}

/**
 * Undecided until discovery has run, or refused with an alert for the operator. A route may come
 * with a notice: why it is not what was wanted (a definition that does not parse, say), for the operator.
 */
export type RouteOutcome = { ok: true; route: TopicRoute; notice?: CoreAlert } | { ok: false; wait: true } | { ok: false; wait: false; alert: CoreAlert };

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
  /** Topics never offered (still routed when subscribed to by name): the simulated robot's back channel. */
  unlisted?: (topic: string) => boolean;
  /** The command type was given (roleTypes.command is the user's, not the default): usable where rosapi is missing. */
  commandTypeGiven?: boolean;
}

/**
 * The simulated robot's own back channel (`/sim/ground_truth`, beside its `/sim/*` services): what a
 * simulator knows and a robot cannot, so a simulated link never offers it to the recorder, plots or probe.
 */
export function isSimulatorBackChannel(topic: string): boolean {
  return topic.startsWith('/sim/');
}

export class TopicRoutes {
  /** topic → ROS type, as rosapi reported; undefined before discovery or where rosapi is missing. */
  private discovered: ReadonlyMap<string, string> | undefined;
  private discoveryFailed = false;
  private readonly jsonOnly = new Set<string>();
  private rosVersionSeen: RosVersion | undefined;
  /** ROS type → the robot's full definition (rosapi's topics_and_raw_types); ROS 2 only. */
  private readonly definitions = new Map<string, string>();
  /** Types whose definitions were asked for (given or not): not asked again on this link. */
  private readonly definitionsAsked = new Set<string>();
  private readonly readers = new Map<string, CdrReading>();

  constructor(private readonly options: Readonly<TopicRouteOptions>) {}

  setDiscovered(types: ReadonlyMap<string, string>): void {
    this.discovered = types;
    this.discoveryFailed = false;
    this.rosVersionSeen = rosVersionOfTypes(types.values()) ?? this.rosVersionSeen;
  }

  /** ROS 1 or ROS 2, as the robot's type names (or, without rosapi, its messages' stamps) tell; undefined until then. */
  rosVersion(): RosVersion | undefined {
    return this.rosVersionSeen;
  }

  /**
   * What a message's stamps said (messageRosVersion.ts), where rosapi could not list the types: taken
   * only while the version is unknown. Returns whether it was news, so live routes are rebuilt.
   */
  setRosVersionFromMessages(version: RosVersion): boolean {
    if (this.rosVersionSeen !== undefined) return false;
    this.rosVersionSeen = version;
    return true;
  }

  /**
   * True on a ROS 2 robot offering a type whose definition has not been asked for yet: bulky types
   * then come as cbor-raw, and RosFields topics are recorded as CDR under the robot's definition.
   */
  wantsDefinitions(): boolean {
    if (this.rosVersionSeen !== 2 || this.discovered === undefined) return false;
    for (const type of this.discovered.values()) {
      if ((isBulkyType(type) || deliveredKindOf(type) === 'RosFields') && !this.definitionsAsked.has(type)) return true;
    }
    return false;
  }

  /** What topics_and_raw_types answered (type → definition); undefined when it could not be asked. */
  setDefinitions(definitions: ReadonlyMap<string, string> | undefined): void {
    for (const type of this.discovered?.values() ?? []) this.definitionsAsked.add(type);
    for (const [type, text] of definitions ?? []) {
      this.definitionsAsked.add(type);
      if (this.definitions.get(type) === text) continue;
      this.definitions.set(type, text);
      this.readers.delete(type);
    }
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
      return this.routeAs(topic, discoveredType ?? this.roleType(role), ROLE_KINDS[role], role);
    }
    if (this.discovered === undefined && !this.discoveryFailed) return { ok: false, wait: true };
    if (discoveredType === undefined) {
      return refuse(
        topic,
        `${topic} is not offered by the robot`,
        'Check the topic name (rostopic list / ros2 topic list shows what it offers); the link subscribes when it appears.',
      );
    }
    if (discoveredType === '') {
      return refuse(
        topic,
        `${topic} has no type (rosapi lists it without one)`,
        'Its publisher may have gone; the link subscribes when rosapi lists its type.',
      );
    }
    return this.routeAs(topic, discoveredType, deliveredKindOf(discoveredType), undefined);
  }

  /**
   * The ROS type to advertise and publish a command topic in: what rosapi lists, else (rosapi
   * missing) the topic map's command type where the user named it. Until rosapi answers, or where it
   * cannot and no type was named, a robot that lacks the topic, or carries it in a type other than
   * Twist or TwistStamped, nothing is sent: an alert says why, never a guess.
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
    if (this.discovered === undefined && !this.discoveryFailed && this.options.commandTypeGiven !== true) {
      // A publish in a guessed type could leave a Twist publisher on a TwistStamped topic (rosbridge advertises as it is told).
      const alert: CoreAlert = {
        key,
        severity: 'warn',
        message: `The type ${topic} takes (geometry_msgs/Twist or TwistStamped) is not known yet: the robot's rosapi has not answered, so no command is sent until it does.`,
        hint: 'This lasts one round trip to the robot after connecting; if it stays, rosapi is slow to answer.',
      };
      return { ok: false, alert };
    }
    if (discoveredType === undefined && this.discoveryFailed && this.options.commandTypeGiven !== true) {
      const alert: CoreAlert = {
        key,
        severity: 'error',
        message: `The type ${topic} takes (geometry_msgs/Twist or TwistStamped) cannot be learned: the robot's rosapi does not answer, so no command is sent.`,
        hint: "Run rosapi next to rosbridge_server (rosbridge_websocket_launch.xml starts both), or name the command topic's type in the link's topic types.",
      };
      return { ok: false, alert };
    }
    const rosType = discoveredType ?? this.roleType('command');
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

  /** What the robot offers, each topic in the kind the link delivers it as; the topic map's sensors where rosapi is missing. */
  offered(): TopicInfo[] {
    if (this.discovered === undefined) {
      // Without rosapi the types are the topic map's, spelled as the robot's ROS does; unknown until that is known.
      return SENSOR_ROLES.map((role) => {
        const type = this.rosVersionSeen === undefined ? undefined : this.roleType(role);
        return { topic: this.options.topicMap[role], kind: ROLE_KINDS[role], ...(type === undefined ? {} : { type }) };
      });
    }
    const offered: TopicInfo[] = [];
    for (const [topic, type] of this.discovered) {
      if (this.options.unlisted?.(topic)) continue;
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
    const ros2 = this.rosVersionSeen === 2 ? { rosType, definitionText: this.definitions.get(rosType) } : undefined;
    // A topic found silent over CBOR stays on JSON whatever was configured: CBOR cannot work there.
    if (this.jsonOnly.has(topic)) return { ok: true, route: { topic, rosType, kind, decode, compression: 'none', ros2 } };
    const bulky = isBulkyType(rosType);
    const configured = this.options.compression[topic];
    if (configured === 'cbor-raw' && this.rosVersionSeen !== 2) {
      // A ROS 1 rosbridge serves cbor-raw too, but as ROS 1 serialised bytes, which the link does not read: never asked for.
      const notice: CoreAlert = {
        key: `schema:${topic}`,
        severity: 'info',
        message: `${topic} is set to cbor-raw, which the cockpit reads only from a ROS 2 robot (this one is ${this.rosVersionSeen === 1 ? 'ROS 1' : 'not known to be ROS 2'}); receiving it as CBOR instead.`,
        hint: 'Set this topic\'s compression to "cbor" (or leave it unset) for a ROS 1 robot.',
      };
      return { ok: true, route: { topic, rosType, kind, decode, compression: 'cbor', ros2 }, notice };
    }
    const wantsRaw = configured === 'cbor-raw' || (configured === undefined && bulky && this.rosVersionSeen === 2 && this.definitions.has(rosType));
    if (!wantsRaw) return { ok: true, route: { topic, rosType, kind, decode, compression: configured ?? (bulky ? 'cbor' : 'none'), ros2 } };
    const reading = this.readerOf(rosType);
    if (!reading.ok) {
      const notice: CoreAlert = {
        key: `schema:${topic}`,
        severity: 'warn',
        message: `${topic} cannot come as cbor-raw: ${reading.problem}; receiving it as CBOR instead.`,
        hint: 'Check the message package on the robot (ros2 interface show shows the definition rosapi reads); CBOR works, only slower.',
      };
      return { ok: true, route: { topic, rosType, kind, decode, compression: 'cbor', ros2 }, notice };
    }
    return { ok: true, route: { topic, rosType, kind, decode: cborRawDecoder(rosType, reading.read, decode), compression: 'cbor-raw', ros2 } };
  }

  private readerOf(rosType: string): CdrReading {
    let reading = this.readers.get(rosType);
    if (reading === undefined) {
      reading = cdrReaderFor(rosType, this.definitions.get(rosType));
      this.readers.set(rosType, reading);
    }
    return reading;
  }

  /** A role's type from the topic map, in the robot's own spelling once its ROS version is known. */
  private roleType(role: TopicRole): string {
    const type = this.options.roleTypes[role];
    if (this.rosVersionSeen === 2) return ros2TypeName(type);
    return this.rosVersionSeen === 1 ? ros1TypeName(type) : type;
  }

  private roleOf(topic: string): TopicRole | undefined {
    return (Object.keys(this.options.topicMap) as TopicRole[]).find((role) => this.options.topicMap[role] === topic);
  }
}

function refuse(topic: string, message: string, hint: string): RouteOutcome {
  return { ok: false, wait: false, alert: { key: `topic:${topic}`, severity: 'warn', message, hint } };
}
