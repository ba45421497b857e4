// Foxglove's own message schemas (foxglove.CompressedImage, RawImage, LaserScan, PointCloud), as
// logs from Foxglove's SDKs and many robots' own code carry them in `protobuf` or `json` channels,
// found by type like their ROS counterparts: each is reshaped into the ROS message it maps to and
// decoded by that type's decoder, so a camera, a scan or a cloud reaches the loop and the panels as a
// ROS one would. Their fields stay as the log holds them for plots; only the delivered kind changes.
import type { MessageKind } from '../../core/messages.ts';
import { decodeCompressedImage, decodeCompressedImageAsImage } from '../rosbridge/decode/compressedImages.ts';
import type { Decoded } from '../rosbridge/decode/decoded.ts';
import { decodeImage } from '../rosbridge/decode/images.ts';
import { decodeLaserScan } from '../rosbridge/decode/laserScans.ts';
import type { MessageDecoder } from '../rosbridge/decode/messageTypes.ts';
import { decodePointCloud2 } from '../rosbridge/decode/pointClouds.ts';

type Fields = Record<string, unknown>;

interface FoxgloveCodec {
  kind: MessageKind;
  /** The ROS message with the same content, or why there is none. */
  toRos(value: Fields): Fields | { problem: string };
  decode: MessageDecoder;
}

const header = (value: Fields): Fields => ({ stamp: value['timestamp'] ?? { secs: 0, nsecs: 0 }, frame_id: value['frame_id'] ?? '' });

/** foxglove.NumericType → sensor_msgs/PointField's datatype (the two number their types differently). */
const POINT_FIELD_DATATYPES: Readonly<Record<string, number>> = {
  1: 2, // UINT8
  2: 1, // INT8
  3: 4, // UINT16
  4: 3, // INT16
  5: 6, // UINT32
  6: 5, // INT32
  7: 7, // FLOAT32
  8: 8, // FLOAT64
  UINT8: 2,
  INT8: 1,
  UINT16: 4,
  INT16: 3,
  UINT32: 6,
  INT32: 5,
  FLOAT32: 7,
  FLOAT64: 8,
};

const CODECS: Readonly<Record<string, FoxgloveCodec>> = {
  'foxglove.CompressedImage': {
    kind: 'CompressedImage',
    toRos: (value) => ({ header: header(value), format: value['format'] ?? '', data: value['data'] }),
    decode: decodeCompressedImage,
  },
  'foxglove.RawImage': {
    kind: 'Image',
    toRos: (value) => ({
      header: header(value),
      height: value['height'],
      width: value['width'],
      encoding: value['encoding'],
      is_bigendian: 0,
      step: value['step'],
      data: value['data'],
    }),
    decode: decodeImage,
  },
  'foxglove.LaserScan': {
    kind: 'LaserScan',
    toRos: (value) => {
      const ranges = (value['ranges'] ?? []) as ArrayLike<number>;
      const unplaced = poseProblem(value['pose']);
      if (unplaced !== undefined) return { problem: `the scan ${unplaced}` };
      const start = Number(value['start_angle']);
      const end = Number(value['end_angle']);
      // foxglove.LaserScan gives no range limits: every finite range is within them.
      const finite = Array.from(ranges).filter((range) => Number.isFinite(range));
      return {
        header: header(value),
        angle_min: start,
        angle_max: end,
        angle_increment: ranges.length > 1 ? (end - start) / (ranges.length - 1) : 0,
        time_increment: 0,
        scan_time: 0,
        range_min: 0,
        range_max: finite.length === 0 ? 0 : Math.max(...finite),
        ranges,
        intensities: value['intensities'] ?? [],
      };
    },
    decode: decodeLaserScan,
  },
  'foxglove.PointCloud': {
    kind: 'PointCloud2',
    toRos: (value) => {
      const unplaced = poseProblem(value['pose']);
      if (unplaced !== undefined) return { problem: `the cloud ${unplaced}` };
      const stride = Number(value['point_stride']);
      const data = value['data'] as ArrayLike<number> | string | undefined;
      const bytes = typeof data === 'string' ? Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0) : (data?.length ?? 0);
      const fields = ((value['fields'] ?? []) as Fields[]).map((field) => ({
        name: field['name'],
        offset: field['offset'],
        datatype: POINT_FIELD_DATATYPES[String(field['type'])] ?? 0,
        count: 1,
      }));
      if (!(stride > 0)) return { problem: `point_stride ${String(value['point_stride'])} is not a positive number of bytes` };
      const width = Math.floor(bytes / stride);
      return { header: header(value), height: 1, width, fields, is_bigendian: false, point_step: stride, row_step: width * stride, data, is_dense: true };
    },
    decode: decodePointCloud2,
  },
};

const FOXGLOVE_HINT = 'The log holds a Foxglove schema message Reins cannot place as its ROS counterpart; the rest of the stream is shown.';

/** How a Foxglove schema's messages are delivered as `asKind` (else their own kind); undefined for any other schema, or a kind they cannot be. */
export function foxgloveSchemaDecoder(schemaName: string, asKind?: MessageKind): { kind: MessageKind; decode: MessageDecoder } | undefined {
  const codec = CODECS[schemaName];
  if (codec === undefined) return undefined;
  const kind = asKind ?? codec.kind;
  const decode = kind === codec.kind ? codec.decode : codec.kind === 'CompressedImage' && kind === 'Image' ? decodeCompressedImageAsImage : undefined;
  if (decode === undefined) return undefined;
  return {
    kind,
    decode: (wire): Decoded<never> => {
      if (typeof wire !== 'object' || wire === null) return { ok: false, problem: `a ${schemaName} message is not an object`, hint: FOXGLOVE_HINT };
      const ros = codec.toRos(wire as Fields);
      if ('problem' in ros && typeof ros.problem === 'string') return { ok: false, problem: `${schemaName}: ${ros.problem}`, hint: FOXGLOVE_HINT };
      return decode(ros) as Decoded<never>;
    },
  };
}

/** Why a Foxglove pose puts the data somewhere other than on its frame (Reins places scans and clouds on their frame); undefined for none or the identity. */
function poseProblem(pose: unknown): string | undefined {
  if (pose === undefined || pose === null) return undefined;
  const { position, orientation } = pose as { position?: Fields; orientation?: Fields };
  const at = (record: Fields | undefined, key: string, otherwise: number) => Number(record?.[key] ?? otherwise);
  const identity =
    at(position, 'x', 0) === 0 &&
    at(position, 'y', 0) === 0 &&
    at(position, 'z', 0) === 0 &&
    at(orientation, 'x', 0) === 0 &&
    at(orientation, 'y', 0) === 0 &&
    at(orientation, 'z', 0) === 0 &&
    // proto3 leaves an unset w as 0: an orientation of all zeros is none given.
    [0, 1].includes(Math.abs(at(orientation, 'w', 1)));
  return identity ? undefined : 'has a pose off its frame’s origin, which Reins cannot place (it draws data on its frame)';
}
