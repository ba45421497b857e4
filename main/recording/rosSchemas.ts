// The ROS 1 message definitions the recorder writes, as MCAP `ros1msg` schemas: the text a ROS 1 bag
// carries (the type's own definition, then each dependency after a `MSG:` separator), so Foxglove
// and Lichtblick open the streams as the standard types.
import { parse } from '@foxglove/rosmsg';

type MessageDefinition = ReturnType<typeof parse>[number];

export type RosSchemaName =
  | 'sensor_msgs/Image'
  | 'sensor_msgs/CompressedImage'
  | 'sensor_msgs/LaserScan'
  | 'sensor_msgs/JointState'
  | 'sensor_msgs/Imu'
  | 'nav_msgs/Odometry'
  | 'geometry_msgs/Twist';

const SEPARATOR = '================================================================================';

const DEPENDENCIES: Readonly<Record<string, string>> = {
  'std_msgs/Header': 'uint32 seq\ntime stamp\nstring frame_id',
  'geometry_msgs/Vector3': 'float64 x\nfloat64 y\nfloat64 z',
  'geometry_msgs/Point': 'float64 x\nfloat64 y\nfloat64 z',
  'geometry_msgs/Quaternion': 'float64 x\nfloat64 y\nfloat64 z\nfloat64 w',
  'geometry_msgs/Pose': 'geometry_msgs/Point position\ngeometry_msgs/Quaternion orientation',
  'geometry_msgs/PoseWithCovariance': 'geometry_msgs/Pose pose\nfloat64[36] covariance',
  'geometry_msgs/Twist': 'geometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular',
  'geometry_msgs/TwistWithCovariance': 'geometry_msgs/Twist twist\nfloat64[36] covariance',
};

const DEFINITIONS: Readonly<Record<RosSchemaName, { body: string; uses: string[] }>> = {
  'sensor_msgs/Image': {
    body: 'Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data',
    uses: ['std_msgs/Header'],
  },
  'sensor_msgs/CompressedImage': { body: 'Header header\nstring format\nuint8[] data', uses: ['std_msgs/Header'] },
  'sensor_msgs/LaserScan': {
    body: [
      'Header header',
      'float32 angle_min',
      'float32 angle_max',
      'float32 angle_increment',
      'float32 time_increment',
      'float32 scan_time',
      'float32 range_min',
      'float32 range_max',
      'float32[] ranges',
      'float32[] intensities',
    ].join('\n'),
    uses: ['std_msgs/Header'],
  },
  'sensor_msgs/JointState': {
    body: 'Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort',
    uses: ['std_msgs/Header'],
  },
  'sensor_msgs/Imu': {
    body: [
      'Header header',
      'geometry_msgs/Quaternion orientation',
      'float64[9] orientation_covariance',
      'geometry_msgs/Vector3 angular_velocity',
      'float64[9] angular_velocity_covariance',
      'geometry_msgs/Vector3 linear_acceleration',
      'float64[9] linear_acceleration_covariance',
    ].join('\n'),
    uses: ['std_msgs/Header', 'geometry_msgs/Quaternion', 'geometry_msgs/Vector3'],
  },
  'nav_msgs/Odometry': {
    body: 'Header header\nstring child_frame_id\ngeometry_msgs/PoseWithCovariance pose\ngeometry_msgs/TwistWithCovariance twist',
    uses: [
      'std_msgs/Header',
      'geometry_msgs/PoseWithCovariance',
      'geometry_msgs/Pose',
      'geometry_msgs/Point',
      'geometry_msgs/Quaternion',
      'geometry_msgs/TwistWithCovariance',
      'geometry_msgs/Twist',
      'geometry_msgs/Vector3',
    ],
  },
  'geometry_msgs/Twist': { body: 'geometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular', uses: ['geometry_msgs/Vector3'] },
};

/** The full ROS 1 definition text of a type, as it goes into an MCAP schema record. */
export function rosDefinitionText(name: RosSchemaName): string {
  const { body, uses } = DEFINITIONS[name];
  return [body, ...uses.map((dependency) => `${SEPARATOR}\nMSG: ${dependency}\n${DEPENDENCIES[dependency]}`)].join('\n');
}

const parsed = new Map<string, MessageDefinition[]>();

/** Parsed definitions for a schema's text (cached), for rosmsg-serialization's writer and reader. */
export function parsedDefinitions(text: string): MessageDefinition[] {
  let definitions = parsed.get(text);
  if (definitions === undefined) {
    definitions = parse(text);
    parsed.set(text, definitions);
  }
  return definitions;
}
