// Which ROS message types have a normalised kind of their own, under their ROS 1 (`pkg/Type`) and
// ROS 2 (`pkg/msg/Type`) names, and which decoder turns each into it; every other type is delivered
// as `RosFields` (rosFields.ts), its fields as the transport decoded them.
import type { MessageKind, RobotMessage } from '../../../core/messages.ts';
import { decodeCompressedImage, decodeCompressedImageAsImage } from './compressedImages.ts';
import type { Decoded } from './decoded.ts';
import { decodeImage } from './images.ts';
import { decodeImu } from './imus.ts';
import { decodeJointState } from './jointStates.ts';
import { decodeLaserScan } from './laserScans.ts';
import { decodeOdometry } from './odometry.ts';
import { decodePointCloud2 } from './pointClouds.ts';
import { rosFieldsDecoder } from './rosFields.ts';
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

/** The kind a ROS type decodes to of its own, or undefined for a type delivered as RosFields. */
export function kindOfType(rosType: string): MessageKind | undefined {
  return CODECS[canonicalTypeName(rosType)]?.kind;
}

/** The kind a topic of this type is delivered as when no role asks for another: its own, else RosFields. */
export function deliveredKindOf(rosType: string): MessageKind {
  return kindOfType(rosType) ?? 'RosFields';
}

/**
 * The decoder that delivers `rosType` as `kind`: a type's own kind, an Image from a CompressedImage
 * (a camera role pointed at a `/compressed` topic), or RosFields for a type without a kind of its
 * own. Undefined when impossible.
 */
export function decoderFor(rosType: string, kind: MessageKind): MessageDecoder | undefined {
  const codec = CODECS[canonicalTypeName(rosType)];
  if (codec === undefined) return kind === 'RosFields' && rosType !== '' ? rosFieldsDecoder(rosType) : undefined;
  if (codec.kind === kind) return codec.decode;
  if (codec.kind === 'CompressedImage' && kind === 'Image') return decodeCompressedImageAsImage;
  return undefined;
}

/** Bulky kinds that travel as CBOR by default: raw bytes and float arrays instead of base64 and text. */
export function prefersCbor(kind: MessageKind): boolean {
  return kind === 'Image' || kind === 'CompressedImage' || kind === 'LaserScan' || kind === 'PointCloud2';
}

/** Types without a kind of their own that are bulky (large numeric arrays): CBOR too, where typed arrays cost a fraction of JSON's lists. */
const BULKY_FIELDS_TYPES: ReadonlySet<string> = new Set([
  'nav_msgs/OccupancyGrid',
  'map_msgs/OccupancyGridUpdate',
  'sensor_msgs/PointCloud',
  'grid_map_msgs/GridMap',
]);

/** A bulky type, whether it has a kind of its own or is delivered as RosFields. */
export function isBulkyType(rosType: string): boolean {
  const kind = kindOfType(rosType);
  return kind === undefined ? BULKY_FIELDS_TYPES.has(canonicalTypeName(rosType)) : prefersCbor(kind);
}
