// The robot's messages, normalised from whatever transport delivered them. Every link (rosbridge,
// serial, replay, the simulated robot) produces these shapes; nothing downstream sees wire formats.

export interface Vector3 {
  x: number;
  y: number;
  z: number;
}

export interface Quaternion {
  x: number;
  y: number;
  z: number;
  w: number;
}

export type ImageEncoding = 'rgb8' | 'bgr8' | 'mono8';

export interface Image {
  kind: 'Image';
  frameId: string;
  width: number;
  height: number;
  encoding: ImageEncoding;
  /** Bytes per row. */
  step: number;
  data: Uint8Array;
}

/** A JPEG or PNG image as the robot sent it; decoded into an `Image` by the link that receives it. */
export interface CompressedImage {
  kind: 'CompressedImage';
  frameId: string;
  /** The ROS format string as sent, e.g. "jpeg", "png", "rgb8; jpeg compressed bgr8". */
  format: string;
  data: Uint8Array;
}

export type PointFieldDatatype = 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'float32' | 'float64';

export interface PointField {
  name: string;
  offsetBytes: number;
  datatype: PointFieldDatatype;
  count: number;
}

export interface PointCloud2 {
  kind: 'PointCloud2';
  frameId: string;
  height: number;
  width: number;
  fields: PointField[];
  bigEndian: boolean;
  pointStepBytes: number;
  rowStepBytes: number;
  isDense: boolean;
  data: Uint8Array;
}

export interface LaserScan {
  kind: 'LaserScan';
  frameId: string;
  angleMinRad: number;
  angleMaxRad: number;
  angleIncrementRad: number;
  rangeMinM: number;
  rangeMaxM: number;
  /** Infinity where nothing was hit within range, NaN where the beam returned no reading. */
  rangesM: Float32Array;
}

export interface JointState {
  kind: 'JointState';
  names: string[];
  positionsRad: Float64Array;
  velocitiesRadps: Float64Array;
  effortsNm: Float64Array;
}

export interface Imu {
  kind: 'Imu';
  frameId: string;
  orientation: Quaternion;
  angularVelocityRadps: Vector3;
  linearAccelerationMps2: Vector3;
}

export interface Odometry {
  kind: 'Odometry';
  frameId: string;
  childFrameId: string;
  /** The robot's own estimate of its pose (drifts; never ground truth). */
  odomFromBaseXM: number;
  odomFromBaseYM: number;
  odomFromBaseYawRad: number;
  linearMps: number;
  angularRadps: number;
}

/** Voltages a microcontroller read on its analog inputs (a battery divider, potentiometers, line sensors). */
export interface AnalogInputs {
  kind: 'AnalogInputs';
  /** One name per channel, e.g. "a0". */
  names: string[];
  voltagesV: Float64Array;
}

export interface Twist {
  kind: 'Twist';
  linearMps: Vector3;
  angularRadps: Vector3;
}

/**
 * A message of a type the cockpit has no kind of its own for (tf2_msgs/TFMessage, nav_msgs/OccupancyGrid,
 * std_msgs/String, visualization_msgs/MarkerArray, ...): delivered with its ROS fields as the
 * transport decoded them (`Received.raw` holds the same object), for the scene and for plots.
 */
export interface RosFields {
  kind: 'RosFields';
  /** The type as the robot names it (`tf2_msgs/TFMessage` on ROS 1, `tf2_msgs/msg/TFMessage` on ROS 2). */
  rosType: string;
  /** Its fields with their ROS names; arrays of numbers may be typed arrays. */
  fields: Record<string, unknown>;
}

export type RobotMessage = Image | CompressedImage | LaserScan | PointCloud2 | JointState | Imu | Odometry | Twist | AnalogInputs | RosFields;
export type MessageKind = RobotMessage['kind'];

/** A message as it reached the cockpit. */
export interface Received<M extends RobotMessage = RobotMessage> {
  topic: string;
  /** Cockpit wall-clock time when the message arrived, in ms since the epoch. */
  receiveTimeMs: number;
  /** The robot's stamp, on the cockpit's clock (the link corrects for the clock offset it estimates). */
  sourceTimeMs: number;
  msg: M;
  /**
   * The message as the transport carried it, with its ROS field names (rosbridge's JSON or CBOR
   * object, a log's decoded message), where the transport has one: plots of any field read it.
   */
  raw?: unknown;
  /** Set where the robot runs ROS 2: a recording keeps its encoding (`cdr`, `ros2msg` schemas). */
  ros2?: Ros2Origin;
}

/** A message from a ROS 2 robot, as it came: its type, the robot's definition, its CDR where it came as such. */
export interface Ros2Origin {
  /** `pkg/msg/Type`, as the robot names it. */
  rosType: string;
  /** The robot's own full definition (rosapi's topics_and_raw_types), where it gave one. */
  definitionText?: string;
  /** The CDR bytes with their 4-byte encapsulation header, where the message came as rosbridge `cbor-raw`. */
  cdr?: Uint8Array;
}

/** The command a differential-drive robot obeys: forward speed and turn rate. */
export interface DriveCommand {
  linearMps: number;
  angularRadps: number;
}

export const ZERO_DRIVE: Readonly<DriveCommand> = Object.freeze({ linearMps: 0, angularRadps: 0 });

export function isZeroDrive(command: DriveCommand): boolean {
  return command.linearMps === 0 && command.angularRadps === 0;
}

export function twistFromDrive(command: DriveCommand): Twist {
  return {
    kind: 'Twist',
    linearMps: { x: command.linearMps, y: 0, z: 0 },
    angularRadps: { x: 0, y: 0, z: command.angularRadps },
  };
}
