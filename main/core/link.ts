// One interface for every way the cockpit reaches a robot (the shape follows Foxglove's data-source
// "player"): presence, capabilities, keyed alerts with a hint, topics, subscriptions, publish, close.
import type { CoreAlert } from './alert.ts';
import type { MessageKind, Received, RobotMessage, Twist } from './messages.ts';

export type LinkPresence = 'connecting' | 'present' | 'reconnecting' | 'error' | 'closed';

export interface LinkCapabilities {
  /** The link can send drive commands to the robot (a replay cannot). */
  sendsCommands: boolean;
  /** The link is a simulation (auto-promote and other sim-only conveniences may apply). */
  simulated: boolean;
}

export interface TopicInfo {
  topic: string;
  kind: MessageKind;
  /** The transport's own name for the type, where it has one (e.g. `sensor_msgs/Image` over rosbridge). */
  type?: string;
}

/** Which topic carries which stream; links ship defaults, users override them. */
export interface TopicMap {
  camera: string;
  scan: string;
  joints: string;
  imu: string;
  odom: string;
  command: string;
}

export const DEFAULT_TOPIC_MAP: Readonly<TopicMap> = Object.freeze({
  camera: '/camera/image_raw',
  scan: '/scan',
  joints: '/joint_states',
  imu: '/imu',
  odom: '/odom',
  command: '/cmd_vel',
});

export type TopicRole = keyof TopicMap;

/** The message kind each role's topic delivers, whatever the transport carries underneath. */
export const ROLE_KINDS: Readonly<Record<TopicRole, MessageKind>> = Object.freeze({
  camera: 'Image',
  scan: 'LaserScan',
  joints: 'JointState',
  imu: 'Imu',
  odom: 'Odometry',
  command: 'Twist',
});

export type Unsubscribe = () => void;

export interface LinkEvents {
  presence: (presence: LinkPresence) => void;
  alerts: (alerts: readonly CoreAlert[]) => void;
}

/** A ROS node's parameter, as JSON-like values; `ok: false` says why it could not be read (no such node or parameter, no answer). */
export type NodeParameterRead = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * Why a robot's file did not come: the link has no way to fetch files, it is not connected, the robot
 * refused or lacks it, it is too large, or no answer came in time.
 */
export type RobotAssetFailure = 'unsupported' | 'not-connected' | 'refused' | 'too-large' | 'timeout';

/** A file the robot serves (foxglove_bridge's `assets`: a mesh by its `package://` URI); `ok: false` says why not. */
export type RobotAssetFetch = { ok: true; bytes: Uint8Array } | { ok: false; problem: string; failure: RobotAssetFailure };

export interface Link {
  /** What the robot calls itself, for the status bar and memory rows. */
  readonly robotName: string;
  readonly capabilities: LinkCapabilities;
  presence(): LinkPresence;
  alerts(): readonly CoreAlert[];
  topics(): readonly TopicInfo[];
  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe;
  /**
   * Sends a command now, or drops it: a command that cannot go out while the link is down is never
   * queued for later. Returns whether it went out.
   */
  publish(topic: string, twist: Twist): boolean;
  on<E extends keyof LinkEvents>(event: E, listener: LinkEvents[E]): Unsubscribe;
  close(): Promise<void>;
  /** Reads a ROS 2 node's parameter (rosapi's get_param, foxglove_bridge's parameters); absent on a link with no way to. */
  readNodeParameter?(node: string, name: string): Promise<NodeParameterRead>;
  /** Fetches a file the robot serves by its URI (foxglove_bridge's assets); absent on a link with no way to. */
  fetchAsset?(uri: string): Promise<RobotAssetFetch>;
}
