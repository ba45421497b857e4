// The topics the simulated robot offers over rosbridge, with their ROS 1 types, as `rostopic list`
// would show them on a robot running rosbridge_server, and how names and types are compared.
import type { SensorStream } from '../simRobot.ts';

/** What the robot publishes besides its sensors and ground truth: its model, its frames, its map, its planned route and markers (scenePublisher.ts). */
export type SceneSource = 'robotDescription' | 'tfStatic' | 'tf' | 'map' | 'plan' | 'markers';
export type TopicSource = SensorStream | 'groundTruth' | SceneSource;

export interface PublishedTopic {
  name: string;
  type: string;
  source: TopicSource;
  /**
   * Messages kept per subscription for a client that reads slower than the robot publishes, when
   * the client sets no `queue_length`: one image (a stale frame is worthless), a little of the rest.
   */
  defaultQueueLength: number;
  /** Latched (ROS 1), transient local (ROS 2): its last message goes to each new subscriber, however late. */
  latched: boolean;
}

export const PUBLISHED_TOPICS: readonly PublishedTopic[] = Object.freeze([
  { name: '/camera/image_raw', type: 'sensor_msgs/Image', source: 'camera', defaultQueueLength: 1, latched: false },
  { name: '/scan', type: 'sensor_msgs/LaserScan', source: 'scan', defaultQueueLength: 2, latched: false },
  { name: '/points', type: 'sensor_msgs/PointCloud2', source: 'points', defaultQueueLength: 1, latched: false },
  { name: '/joint_states', type: 'sensor_msgs/JointState', source: 'joints', defaultQueueLength: 10, latched: false },
  { name: '/imu', type: 'sensor_msgs/Imu', source: 'imu', defaultQueueLength: 20, latched: false },
  { name: '/odom', type: 'nav_msgs/Odometry', source: 'odom', defaultQueueLength: 10, latched: false },
  { name: '/tf', type: 'tf2_msgs/TFMessage', source: 'tf', defaultQueueLength: 10, latched: false },
  { name: '/tf_static', type: 'tf2_msgs/TFMessage', source: 'tfStatic', defaultQueueLength: 1, latched: true },
  { name: '/robot_description', type: 'std_msgs/String', source: 'robotDescription', defaultQueueLength: 1, latched: true },
  { name: '/map', type: 'nav_msgs/OccupancyGrid', source: 'map', defaultQueueLength: 1, latched: true },
  { name: '/plan', type: 'nav_msgs/Path', source: 'plan', defaultQueueLength: 1, latched: false },
  { name: '/markers', type: 'visualization_msgs/MarkerArray', source: 'markers', defaultQueueLength: 1, latched: false },
  { name: '/sim/ground_truth', type: 'reins_sim/GroundTruth', source: 'groundTruth', defaultQueueLength: 10, latched: false },
]);

const SENSOR_SOURCES: ReadonlySet<TopicSource> = new Set<SensorStream>(['camera', 'scan', 'points', 'joints', 'imu', 'odom']);

export function isSensorSource(source: TopicSource): source is SensorStream {
  return SENSOR_SOURCES.has(source);
}

/** The robot's one input: velocity commands, which other clients may also watch. */
export const CMD_VEL_TOPIC = Object.freeze({ name: '/cmd_vel', type: 'geometry_msgs/Twist', defaultQueueLength: 10 });

export type KnownTopic = { name: string; type: string; defaultQueueLength: number };

export const ALL_TOPICS: readonly KnownTopic[] = Object.freeze([...PUBLISHED_TOPICS, CMD_VEL_TOPIC]);

/** The topics a robot offers: the sensor streams it has (the point cloud may be off), its model, frames, map, plan and markers, ground truth and /cmd_vel (in the type it takes). */
export function topicsOffered(hasStream: (stream: SensorStream) => boolean, commandTopic: KnownTopic = CMD_VEL_TOPIC): KnownTopic[] {
  const isOffered = (topic: KnownTopic): boolean => {
    const source = (topic as Partial<PublishedTopic>).source;
    return source === undefined || !isSensorSource(source) || hasStream(source);
  };
  return ALL_TOPICS.filter(isOffered).map((topic) => (topic.name === commandTopic.name ? commandTopic : topic));
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
