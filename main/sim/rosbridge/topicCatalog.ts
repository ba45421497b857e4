// The topics the simulated robot offers over rosbridge, with their ROS 1 types, as `rostopic list`
// would show them on a robot running rosbridge_server, and how names and types are compared.
import type { SensorStream } from '../simRobot.ts';

export type TopicSource = SensorStream | 'groundTruth';

export interface PublishedTopic {
  name: string;
  type: string;
  source: TopicSource;
  /**
   * Messages kept per subscription for a client that reads slower than the robot publishes, when
   * the client sets no `queue_length`: one image (a stale frame is worthless), a little of the rest.
   */
  defaultQueueLength: number;
}

export const PUBLISHED_TOPICS: readonly PublishedTopic[] = Object.freeze([
  { name: '/camera/image_raw', type: 'sensor_msgs/Image', source: 'camera', defaultQueueLength: 1 },
  { name: '/scan', type: 'sensor_msgs/LaserScan', source: 'scan', defaultQueueLength: 2 },
  { name: '/points', type: 'sensor_msgs/PointCloud2', source: 'points', defaultQueueLength: 1 },
  { name: '/joint_states', type: 'sensor_msgs/JointState', source: 'joints', defaultQueueLength: 10 },
  { name: '/imu', type: 'sensor_msgs/Imu', source: 'imu', defaultQueueLength: 20 },
  { name: '/odom', type: 'nav_msgs/Odometry', source: 'odom', defaultQueueLength: 10 },
  { name: '/sim/ground_truth', type: 'reins_sim/GroundTruth', source: 'groundTruth', defaultQueueLength: 10 },
]);

/** The robot's one input: velocity commands, which other clients may also watch. */
export const CMD_VEL_TOPIC = Object.freeze({ name: '/cmd_vel', type: 'geometry_msgs/Twist', defaultQueueLength: 10 });

export type KnownTopic = { name: string; type: string; defaultQueueLength: number };

export const ALL_TOPICS: readonly KnownTopic[] = Object.freeze([...PUBLISHED_TOPICS, CMD_VEL_TOPIC]);

/** The topics a robot offers: the sensor streams it has (the point cloud may be off), ground truth and /cmd_vel (in the type it takes). */
export function topicsOffered(hasStream: (stream: SensorStream) => boolean, commandTopic: KnownTopic = CMD_VEL_TOPIC): KnownTopic[] {
  return ALL_TOPICS.filter((topic) => !('source' in topic) || topic.source === 'groundTruth' || hasStream(topic.source as SensorStream)).map((topic) =>
    topic.name === commandTopic.name ? commandTopic : topic,
  );
}

export function topicNamed(name: string): KnownTopic | undefined {
  return ALL_TOPICS.find((topic) => topic.name === name);
}

export function topicOfSource(source: TopicSource): PublishedTopic {
  const topic = PUBLISHED_TOPICS.find((candidate) => candidate.source === source);
  if (topic === undefined) throw new Error(`no topic publishes ${source}`);
  return topic;
}

/** ROS resolves a relative name against the root namespace: roslib asks for "rosapi/topics". */
export function resolveRosName(name: string): string {
  return name.startsWith('/') ? name : `/${name}`;
}

/** ROS 1 writes `pkg/Type`, ROS 2 `pkg/msg/Type`; a client speaking either is understood. */
export function sameRosType(given: string, expected: string): boolean {
  const ros1Name = (type: string) => type.replace(/^([^/]+)\/(?:msg|srv)\//, '$1/');
  return ros1Name(given) === ros1Name(expected);
}

export function describeTopics(): string {
  return ALL_TOPICS.map((topic) => topic.name).join(', ');
}
