// Normalised robot messages in their ROS 1 shapes (snake_case fields, stamps as sec/nsec), ready
// for rosmsg-serialization's writer. The inverse of what the rosbridge link normalises.
import type { PointFieldDatatype, Received, RobotMessage, Twist } from '../core/messages.ts';
import { nsFromMs, rosTimeFromNs } from './logTimes.ts';
import type { RosSchemaName } from './rosSchemas.ts';

export interface RosMessage {
  schemaName: RosSchemaName;
  value: Record<string, unknown>;
}

const ZERO_COVARIANCE_9 = new Float64Array(9);
const ZERO_COVARIANCE_36 = new Float64Array(36);

function header(frameId: string, stampNs: bigint, seq: number) {
  return { seq, stamp: rosTimeFromNs(stampNs), frame_id: frameId };
}

export function rosTwist(twist: Twist): Record<string, unknown> {
  return { linear: twist.linearMps, angular: twist.angularRadps };
}

/** The ROS 1 message for a received one, or undefined for kinds recorded otherwise (AnalogInputs as JSON; RosFields as its fields, rosFieldsEntries.ts). */
export function rosMessageFor(received: Received<RobotMessage>, seq: number): RosMessage | undefined {
  const msg = received.msg;
  // The conversion the log's publish time goes through (entryEncoding.ts): the stamp equals it to the nanosecond.
  const stampNs = nsFromMs(received.sourceTimeMs);
  switch (msg.kind) {
    case 'Image':
      return {
        schemaName: 'sensor_msgs/Image',
        value: {
          header: header(msg.frameId, stampNs, seq),
          height: msg.height,
          width: msg.width,
          encoding: msg.encoding,
          is_bigendian: 0,
          step: msg.step,
          data: msg.data,
        },
      };
    case 'CompressedImage':
      return { schemaName: 'sensor_msgs/CompressedImage', value: { header: header(msg.frameId, stampNs, seq), format: msg.format, data: msg.data } };
    case 'LaserScan':
      return {
        schemaName: 'sensor_msgs/LaserScan',
        value: {
          header: header(msg.frameId, stampNs, seq),
          angle_min: msg.angleMinRad,
          angle_max: msg.angleMaxRad,
          angle_increment: msg.angleIncrementRad,
          time_increment: 0,
          scan_time: 0,
          range_min: msg.rangeMinM,
          range_max: msg.rangeMaxM,
          ranges: msg.rangesM,
          intensities: new Float32Array(0),
        },
      };
    case 'JointState':
      return {
        schemaName: 'sensor_msgs/JointState',
        value: { header: header('', stampNs, seq), name: msg.names, position: msg.positionsRad, velocity: msg.velocitiesRadps, effort: msg.effortsNm },
      };
    case 'Imu':
      return {
        schemaName: 'sensor_msgs/Imu',
        value: {
          header: header(msg.frameId, stampNs, seq),
          orientation: msg.orientation,
          orientation_covariance: ZERO_COVARIANCE_9,
          angular_velocity: msg.angularVelocityRadps,
          angular_velocity_covariance: ZERO_COVARIANCE_9,
          linear_acceleration: msg.linearAccelerationMps2,
          linear_acceleration_covariance: ZERO_COVARIANCE_9,
        },
      };
    case 'Odometry': {
      const halfYawRad = msg.odomFromBaseYawRad / 2;
      return {
        schemaName: 'nav_msgs/Odometry',
        value: {
          header: header(msg.frameId, stampNs, seq),
          child_frame_id: msg.childFrameId,
          pose: {
            pose: {
              position: { x: msg.odomFromBaseXM, y: msg.odomFromBaseYM, z: 0 },
              orientation: { x: 0, y: 0, z: Math.sin(halfYawRad), w: Math.cos(halfYawRad) },
            },
            covariance: ZERO_COVARIANCE_36,
          },
          twist: { twist: { linear: { x: msg.linearMps, y: 0, z: 0 }, angular: { x: 0, y: 0, z: msg.angularRadps } }, covariance: ZERO_COVARIANCE_36 },
        },
      };
    }
    case 'Twist':
      return { schemaName: 'geometry_msgs/Twist', value: rosTwist(msg) };
    case 'PointCloud2':
      return {
        schemaName: 'sensor_msgs/PointCloud2',
        value: {
          header: header(msg.frameId, stampNs, seq),
          height: msg.height,
          width: msg.width,
          fields: msg.fields.map((field) => ({
            name: field.name,
            offset: field.offsetBytes,
            datatype: POINT_FIELD_DATATYPES.indexOf(field.datatype) + 1,
            count: field.count,
          })),
          is_bigendian: msg.bigEndian,
          point_step: msg.pointStepBytes,
          row_step: msg.rowStepBytes,
          data: msg.data,
          is_dense: msg.isDense,
        },
      };
    case 'AnalogInputs':
    case 'RosFields':
      return undefined;
  }
}

/** sensor_msgs/PointField's datatype constants, in order from INT8 = 1 to FLOAT64 = 8. */
const POINT_FIELD_DATATYPES: readonly PointFieldDatatype[] = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'float32', 'float64'];
