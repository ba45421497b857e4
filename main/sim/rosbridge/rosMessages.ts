// The robot's messages as ROS 1 message objects, field for field as rospy fills them in. Array
// fields stay typed arrays (uint8[] as Uint8Array, int8[] as Int8Array, float32[] as Float32Array,
// float64[] as Float64Array) so that each wire encoding can choose its form: base64 or a byte string, a JSON
// array or a tagged CBOR typed array.
import type { Image, Imu, JointState, LaserScan, Odometry, PointCloud2, PointFieldDatatype, Quaternion, Vector3 } from '../../core/messages.ts';
import type { SensorOutput } from '../simRobot.ts';

export type RosValue = number | string | boolean | Uint8Array | Int8Array | Float32Array | Float64Array | readonly RosValue[] | RosMessage;
export interface RosMessage {
  [field: string]: RosValue;
}

// Type aliases, not interfaces, so that they fit RosMessage's index signature.
export type RosTime = { secs: number; nsecs: number };
export type RosHeader = { seq: number; stamp: RosTime; frame_id: string };

/** A wall-clock time in ms as a ROS 1 `time`. */
export function rosTimeFromMs(wallMs: number): RosTime {
  let secs = Math.floor(wallMs / 1000);
  let nsecs = Math.round((wallMs - secs * 1000) * 1e6);
  if (nsecs >= 1e9) {
    secs += 1;
    nsecs -= 1e9;
  }
  return { secs, nsecs };
}

export function rosHeader(seq: number, stampMs: number, frameId: string): RosHeader {
  return { seq, stamp: rosTimeFromMs(stampMs), frame_id: frameId };
}

/** What a sensor message needs besides itself: its header's sequence number and stamp. */
export interface Stamping {
  seq: number;
  stampMs: number;
  /** sensor_msgs/LaserScan carries the scan period, which the normalised message does not. */
  scanPeriodSecs: number;
}

export function rosMessageOf(output: SensorOutput, stamping: Stamping): RosMessage {
  switch (output.stream) {
    case 'camera':
      return rosImage(output.msg, stamping);
    case 'scan':
      return rosLaserScan(output.msg, stamping);
    case 'points':
      return rosPointCloud2(output.msg, stamping);
    case 'joints':
      return rosJointState(output.msg, stamping);
    case 'imu':
      return rosImu(output.msg, stamping);
    case 'odom':
      return rosOdometry(output.msg, stamping);
  }
}

export function rosImage(image: Image, { seq, stampMs }: Stamping): RosMessage {
  return {
    header: rosHeader(seq, stampMs, image.frameId),
    height: image.height,
    width: image.width,
    encoding: image.encoding,
    is_bigendian: 0,
    step: image.step,
    data: image.data,
  };
}

export function rosLaserScan(scan: LaserScan, { seq, stampMs, scanPeriodSecs }: Stamping): RosMessage {
  // These fields are float32 on the wire: round them as rospy would, so they read the same.
  return {
    header: rosHeader(seq, stampMs, scan.frameId),
    angle_min: Math.fround(scan.angleMinRad),
    angle_max: Math.fround(scan.angleMaxRad),
    angle_increment: Math.fround(scan.angleIncrementRad),
    time_increment: 0,
    scan_time: Math.fround(scanPeriodSecs),
    range_min: Math.fround(scan.rangeMinM),
    range_max: Math.fround(scan.rangeMaxM),
    ranges: scan.rangesM,
    intensities: new Float32Array(0),
  };
}

/** sensor_msgs/PointField datatype constants. */
const POINT_FIELD_DATATYPES: Readonly<Record<PointFieldDatatype, number>> = {
  int8: 1,
  uint8: 2,
  int16: 3,
  uint16: 4,
  int32: 5,
  uint32: 6,
  float32: 7,
  float64: 8,
};

export function rosPointCloud2(cloud: PointCloud2, { seq, stampMs }: Stamping): RosMessage {
  return {
    header: rosHeader(seq, stampMs, cloud.frameId),
    height: cloud.height,
    width: cloud.width,
    fields: cloud.fields.map((field) => ({ name: field.name, offset: field.offsetBytes, datatype: POINT_FIELD_DATATYPES[field.datatype], count: field.count })),
    is_bigendian: cloud.bigEndian,
    point_step: cloud.pointStepBytes,
    row_step: cloud.rowStepBytes,
    data: cloud.data,
    is_dense: cloud.isDense,
  };
}

export function rosJointState(joints: JointState, { seq, stampMs }: Stamping): RosMessage {
  return {
    header: rosHeader(seq, stampMs, ''),
    name: [...joints.names],
    position: joints.positionsRad,
    velocity: joints.velocitiesRadps,
    effort: joints.effortsNm,
  };
}

export function rosImu(imu: Imu, { seq, stampMs }: Stamping): RosMessage {
  return {
    header: rosHeader(seq, stampMs, imu.frameId),
    orientation: quaternion(imu.orientation),
    orientation_covariance: new Float64Array(9),
    angular_velocity: vector3(imu.angularVelocityRadps),
    angular_velocity_covariance: new Float64Array(9),
    linear_acceleration: vector3(imu.linearAccelerationMps2),
    linear_acceleration_covariance: new Float64Array(9),
  };
}

export function rosOdometry(odometry: Odometry, { seq, stampMs }: Stamping): RosMessage {
  const halfYawRad = odometry.odomFromBaseYawRad / 2;
  return {
    header: rosHeader(seq, stampMs, odometry.frameId),
    child_frame_id: odometry.childFrameId,
    pose: {
      pose: {
        position: { x: odometry.odomFromBaseXM, y: odometry.odomFromBaseYM, z: 0 },
        orientation: { x: 0, y: 0, z: Math.sin(halfYawRad), w: Math.cos(halfYawRad) },
      },
      covariance: new Float64Array(36),
    },
    twist: {
      twist: {
        linear: { x: odometry.linearMps, y: 0, z: 0 },
        angular: { x: 0, y: 0, z: odometry.angularRadps },
      },
      covariance: new Float64Array(36),
    },
  };
}

function vector3(vector: Vector3): RosMessage {
  return { x: vector.x, y: vector.y, z: vector.z };
}

function quaternion(rotation: Quaternion): RosMessage {
  return { x: rotation.x, y: rotation.y, z: rotation.z, w: rotation.w };
}
