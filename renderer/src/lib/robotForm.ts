// The connection manager's form, as data: the addresses it builds, the topic names it checks, and
// how a connection's state reads to the operator.
import { DEFAULT_ROBOT_TOPICS, ROS_TOPIC_PATTERN, type RobotConnection, type RobotTopicRole, type RobotTopicsInput } from './contract.ts';

export const BAUD_RATES = [9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1000000] as const;
export const DEFAULT_BAUD = 115200;

export const TOPIC_ROLES: readonly { role: RobotTopicRole; label: string }[] = [
  { role: 'camera', label: 'Camera topic' },
  { role: 'scan', label: 'LiDAR scan topic' },
  { role: 'joints', label: 'Joint states topic' },
  { role: 'imu', label: 'IMU topic' },
  { role: 'odom', label: 'Odometry topic' },
  { role: 'command', label: 'Command topic (Twist)' },
];

export type TopicFields = Record<RobotTopicRole, string>;

export function defaultTopicFields(): TopicFields {
  return { ...DEFAULT_ROBOT_TOPICS };
}

export function serialAddress(path: string, baud: number): string {
  return `serial:${path}?baud=${baud}`;
}

/** What is wrong with a topic field, in words; undefined when it is a ROS topic name. */
export function topicProblem(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return 'give a topic name, such as /scan';
  if (!ROS_TOPIC_PATTERN.test(trimmed)) return 'letters, digits, _ and / only, not starting with a digit (such as /camera/image_raw)';
  return undefined;
}

/** The topic map to send: every field, trimmed. */
export function topicsToSend(fields: TopicFields): RobotTopicsInput {
  const out: RobotTopicsInput = {};
  for (const { role } of TOPIC_ROLES) out[role] = fields[role].trim();
  return out;
}

/** What a rosbridge URL field lacks before it is worth sending; the core checks the rest. */
export function rosbridgeUrlProblem(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return 'enter the robot’s address: rosbridge such as ws://192.168.1.20:9090, or foxglove_bridge such as foxglove://192.168.1.20:8765';
  // foxglove://HOST:PORT reaches foxglove_bridge instead of rosbridge_server, through the same field.
  if (!/^(wss?|foxglove(\+wss)?):\/\//.test(trimmed))
    return 'a robot address starts with ws:// or wss:// for rosbridge (such as ws://192.168.1.20:9090), or foxglove:// for foxglove_bridge (foxglove://HOST:8765)';
  return undefined;
}

export type ConnectionTone = 'ok' | 'warn' | 'error';

export function connectionLine(connection: RobotConnection): { text: string; tone: ConnectionTone } {
  switch (connection.status) {
    case 'connecting':
      return { text: `Connecting to ${connection.robot}…`, tone: 'warn' };
    case 'connected':
      return { text: `Connected to ${connection.robot}${commandFacts(connection)}`, tone: connection.command?.problem === undefined ? 'ok' : 'warn' };
    case 'failed':
      return { text: `Could not connect to ${connection.robot}: ${connection.error ?? 'no reason given'}`, tone: 'error' };
  }
}

/** The attached robot's command topic and type (or why no command can be sent) and its clock offset, for the status line. */
function commandFacts(connection: RobotConnection): string {
  const facts: string[] = [];
  const command = connection.command;
  if (command !== undefined) facts.push(command.problem ?? `commands on ${command.topic} as ${command.type ?? 'an unknown type'}`);
  if (connection.clockOffsetMs !== undefined) {
    const secs = connection.clockOffsetMs / 1000;
    facts.push(`robot clock ${secs >= 0 ? '+' : '−'}${Math.abs(secs).toFixed(3)} s`);
  }
  return facts.length === 0 ? '' : ` — ${facts.join('; ')}`;
}
