// ROS 1 message definitions of the standard types Reins speaks, in the `gendeps --cat` form that
// rosapi/topics_and_raw_types returns and ROS 1 bags and MCAP `ros1msg` schemas carry (a type's fields,
// then each type it uses after a line of '='): for the sim's rosbridge server and for the recorder,
// so clients that decode by definition (Foxglove, Lichtblick) read both. The ROS 2 forms (a Header
// without `seq`, its stamp a builtin_interfaces/Time) are what rosapi's topics_and_raw_types returns on
// ROS 2 and what `ros2 bag` writes as `ros2msg` schemas (dependencies named `pkg/Type`, as rosbag2 does).
const SEPARATOR = '================================================================================';

const DEFINITIONS: Readonly<Record<string, string>> = {
  'std_msgs/Header': 'uint32 seq\ntime stamp\nstring frame_id',
  'geometry_msgs/Vector3': 'float64 x\nfloat64 y\nfloat64 z',
  'geometry_msgs/Point': 'float64 x\nfloat64 y\nfloat64 z',
  'geometry_msgs/Quaternion': 'float64 x\nfloat64 y\nfloat64 z\nfloat64 w',
  'geometry_msgs/Pose': 'geometry_msgs/Point position\ngeometry_msgs/Quaternion orientation',
  'geometry_msgs/PoseWithCovariance': 'geometry_msgs/Pose pose\nfloat64[36] covariance',
  'geometry_msgs/Twist': 'geometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular',
  'geometry_msgs/TwistStamped': 'std_msgs/Header header\ngeometry_msgs/Twist twist',
  'geometry_msgs/TwistWithCovariance': 'geometry_msgs/Twist twist\nfloat64[36] covariance',
  'sensor_msgs/CompressedImage': 'std_msgs/Header header\nstring format\nuint8[] data',
  'sensor_msgs/Image': 'std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data',
  'sensor_msgs/LaserScan':
    'std_msgs/Header header\nfloat32 angle_min\nfloat32 angle_max\nfloat32 angle_increment\nfloat32 time_increment\n' +
    'float32 scan_time\nfloat32 range_min\nfloat32 range_max\nfloat32[] ranges\nfloat32[] intensities',
  'sensor_msgs/PointField':
    'uint8 INT8=1\nuint8 UINT8=2\nuint8 INT16=3\nuint8 UINT16=4\nuint8 INT32=5\nuint8 UINT32=6\nuint8 FLOAT32=7\nuint8 FLOAT64=8\nstring name\nuint32 offset\nuint8 datatype\nuint32 count',
  'sensor_msgs/PointCloud2':
    'std_msgs/Header header\nuint32 height\nuint32 width\nsensor_msgs/PointField[] fields\nbool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense',
  'sensor_msgs/JointState': 'std_msgs/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort',
  'sensor_msgs/Imu':
    'std_msgs/Header header\ngeometry_msgs/Quaternion orientation\nfloat64[9] orientation_covariance\n' +
    'geometry_msgs/Vector3 angular_velocity\nfloat64[9] angular_velocity_covariance\n' +
    'geometry_msgs/Vector3 linear_acceleration\nfloat64[9] linear_acceleration_covariance',
  'nav_msgs/Odometry': 'std_msgs/Header header\nstring child_frame_id\ngeometry_msgs/PoseWithCovariance pose\ngeometry_msgs/TwistWithCovariance twist',
  'std_msgs/String': 'string data',
  'geometry_msgs/Transform': 'geometry_msgs/Vector3 translation\ngeometry_msgs/Quaternion rotation',
  'geometry_msgs/TransformStamped': 'std_msgs/Header header\nstring child_frame_id\ngeometry_msgs/Transform transform',
  'tf2_msgs/TFMessage': 'geometry_msgs/TransformStamped[] transforms',
  'nav_msgs/MapMetaData': 'time map_load_time\nfloat32 resolution\nuint32 width\nuint32 height\ngeometry_msgs/Pose origin',
  'nav_msgs/OccupancyGrid': 'std_msgs/Header header\nnav_msgs/MapMetaData info\nint8[] data',
  'geometry_msgs/PoseStamped': 'std_msgs/Header header\ngeometry_msgs/Pose pose',
  'nav_msgs/Path': 'std_msgs/Header header\ngeometry_msgs/PoseStamped[] poses',
  'std_msgs/ColorRGBA': 'float32 r\nfloat32 g\nfloat32 b\nfloat32 a',
  'visualization_msgs/Marker':
    'uint8 ARROW=0\nuint8 CUBE=1\nuint8 SPHERE=2\nuint8 CYLINDER=3\nuint8 LINE_STRIP=4\nuint8 LINE_LIST=5\nuint8 CUBE_LIST=6\nuint8 SPHERE_LIST=7\nuint8 POINTS=8\nuint8 TEXT_VIEW_FACING=9\nuint8 MESH_RESOURCE=10\nuint8 TRIANGLE_LIST=11\nuint8 ADD=0\nuint8 MODIFY=0\nuint8 DELETE=2\nuint8 DELETEALL=3\nstd_msgs/Header header\nstring ns\nint32 id\nint32 type\nint32 action\ngeometry_msgs/Pose pose\ngeometry_msgs/Vector3 scale\n' +
    'std_msgs/ColorRGBA color\nduration lifetime\nbool frame_locked\ngeometry_msgs/Point[] points\nstd_msgs/ColorRGBA[] colors\nstring text\nstring mesh_resource\nbool mesh_use_embedded_materials',
  'visualization_msgs/MarkerArray': 'visualization_msgs/Marker[] markers',
};

const ROS2_DEFINITIONS: Readonly<Record<string, string>> = {
  ...DEFINITIONS,
  'std_msgs/Header': 'builtin_interfaces/Time stamp\nstring frame_id',
  'builtin_interfaces/Time': 'int32 sec\nuint32 nanosec',
  'nav_msgs/MapMetaData': 'builtin_interfaces/Time map_load_time\nfloat32 resolution\nuint32 width\nuint32 height\ngeometry_msgs/Pose origin',
  'builtin_interfaces/Duration': 'int32 sec\nuint32 nanosec',
  // ROS 2's Marker: int32 constants, a Duration, and the texture and mesh-file fields Humble added.
  'visualization_msgs/Marker':
    'int32 ARROW=0\nint32 CUBE=1\nint32 SPHERE=2\nint32 CYLINDER=3\nint32 LINE_STRIP=4\nint32 LINE_LIST=5\nint32 CUBE_LIST=6\nint32 SPHERE_LIST=7\nint32 POINTS=8\nint32 TEXT_VIEW_FACING=9\nint32 MESH_RESOURCE=10\nint32 TRIANGLE_LIST=11\nint32 ADD=0\nint32 MODIFY=0\nint32 DELETE=2\nint32 DELETEALL=3\nstd_msgs/Header header\nstring ns\nint32 id\nint32 type\nint32 action\ngeometry_msgs/Pose pose\ngeometry_msgs/Vector3 scale\n' +
    'std_msgs/ColorRGBA color\nbuiltin_interfaces/Duration lifetime\nbool frame_locked\ngeometry_msgs/Point[] points\nstd_msgs/ColorRGBA[] colors\n' +
    'string texture_resource\nsensor_msgs/CompressedImage texture\nvisualization_msgs/UVCoordinate[] uv_coordinates\nstring text\nstring mesh_resource\n' +
    'visualization_msgs/MeshFile mesh_file\nbool mesh_use_embedded_materials',
  'visualization_msgs/UVCoordinate': 'float32 u\nfloat32 v',
  'visualization_msgs/MeshFile': 'string filename\nuint8[] data',
};

/** The full text for a type; '' for one without a fixed definition (reins_sim/GroundTruth grows with the sim). */
export function fullMessageDefinition(type: string): string {
  return fullText(DEFINITIONS, type);
}

/** The ROS 2 full text for a type named `pkg/msg/Type` or `pkg/Type`; '' for one without a fixed definition. */
export function fullRos2MessageDefinition(type: string): string {
  return fullText(ROS2_DEFINITIONS, ros1TypeName(type));
}

/** `pkg/msg/Type` → `pkg/Type`; a ROS 1 name is returned as it is. */
export function ros1TypeName(type: string): string {
  return type.replace(/^([^/]+)\/msg\//, '$1/');
}

/** `pkg/Type` → `pkg/msg/Type`; a ROS 2 name is returned as it is. */
export function ros2TypeName(type: string): string {
  const parts = type.split('/');
  return parts.length === 2 ? `${parts[0]}/msg/${parts[1]}` : type;
}

function fullText(definitions: Readonly<Record<string, string>>, type: string): string {
  const main = definitions[type];
  if (main === undefined) return '';
  const dependencies: string[] = [];
  collectDependencies(definitions, main, dependencies);
  return [main, ...dependencies.map((name) => `${SEPARATOR}\nMSG: ${name}\n${definitions[name]}`)].join('\n');
}

function collectDependencies(definitions: Readonly<Record<string, string>>, definition: string, into: string[]): void {
  for (const line of definition.split('\n')) {
    const fieldType = line.split(' ')[0]!.replace(/\[\d*\]$/, '');
    if (!fieldType.includes('/') || into.includes(fieldType) || definitions[fieldType] === undefined) continue;
    into.push(fieldType);
    collectDependencies(definitions, definitions[fieldType]!, into);
  }
}
