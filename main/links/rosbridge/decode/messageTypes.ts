// Which ROS message types the link understands, under their ROS 1 (`pkg/Type`) and ROS 2
// (`pkg/msg/Type`) names, and which decoder turns each into which normalised message kind.
import type { MessageKind, RobotMessage } from '../../../core/messages.ts';
import { decodeCompressedImage, decodeCompressedImageAsImage } from './compressedImages.ts';
import type { Decoded } from './decoded.ts';
import { decodeImage } from './images.ts';
import { decodeImu } from './imus.ts';
import { decodeJointState } from './jointStates.ts';
import { decodeLaserScan } from './laserScans.ts';
import { decodeOdometry } from './odometry.ts';
import { decodePointCloud2 } from './pointClouds.ts';
import { decodeTwist, decodeTwistStamped } from './twists.ts';

export type MessageDecoder = (wire: unknown) => Decoded<RobotMessage>;

interface TypeCodec {
  kind: MessageKind;
  decode: MessageDecoder;
}

const CODECS: Readonly<Record<string, TypeCodec>> = {
  'sensor_msgs/Image': { kind: 'Image', decode: decodeImage },
  'sensor_msgs/CompressedImage': { kind: 'CompressedImage', decode: decodeCompressedImage },
  'sensor_msgs/LaserScan': { kind: 'LaserScan', decode: decodeLaserScan },
  'sensor_msgs/PointCloud2': { kind: 'PointCloud2', decode: decodePointCloud2 },
  'sensor_msgs/JointState': { kind: 'JointState', decode: decodeJointState },
  'sensor_msgs/Imu': { kind: 'Imu', decode: decodeImu },
  'nav_msgs/Odometry': { kind: 'Odometry', decode: decodeOdometry },
  'geometry_msgs/Twist': { kind: 'Twist', decode: decodeTwist },
  'geometry_msgs/TwistStamped': { kind: 'Twist', decode: decodeTwistStamped },
};

/** `sensor_msgs/msg/Image` (ROS 2) and `sensor_msgs/Image` (ROS 1) name the same type. */
export function canonicalTypeName(rosType: string): string {
  const parts = rosType.split('/');
  return parts.length === 3 && parts[1] === 'msg' ? `${parts[0]}/${parts[2]}` : rosType;
}

/** The kind a ROS type decodes to, or undefined for a type the link does not understand. */
export function kindOfType(rosType: string): MessageKind | undefined {
  return CODECS[canonicalTypeName(rosType)]?.kind;
}

/**
 * The decoder that delivers `rosType` as `kind`: a type's own kind, or an Image from a
 * CompressedImage (a camera role pointed at a `/compressed` topic). Undefined when impossible.
 */
export function decoderFor(rosType: string, kind: MessageKind): MessageDecoder | undefined {
  const codec = CODECS[canonicalTypeName(rosType)];
  if (codec === undefined) return undefined;
  if (codec.kind === kind) return codec.decode;
  if (codec.kind === 'CompressedImage' && kind === 'Image') return decodeCompressedImageAsImage;
  return undefined;
}

/** Bulky types that travel as CBOR by default: raw bytes and float arrays instead of base64 and text. */
export function prefersCbor(kind: MessageKind): boolean {
  return kind === 'Image' || kind === 'CompressedImage' || kind === 'LaserScan' || kind === 'PointCloud2';
}
