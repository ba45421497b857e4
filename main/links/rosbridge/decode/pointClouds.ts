// sensor_msgs/PointCloud2 → PointCloud2. The point bytes stay packed (consumers read the fields they
// need); the layout is checked so that every declared field of every point lies inside `data`.
import type { PointCloud2, PointField, PointFieldDatatype } from '../../../core/messages.ts';
import { DecodeProblem, decodeWith, readHeader, type Decoded } from './decoded.ts';
import type { WireObject } from './wireFields.ts';

/** sensor_msgs/PointField datatype constants, 1…8, with their sizes in bytes. */
const DATATYPES: ReadonlyArray<readonly [PointFieldDatatype, number]> = [
  ['int8', 1],
  ['uint8', 1],
  ['int16', 2],
  ['uint16', 2],
  ['int32', 4],
  ['uint32', 4],
  ['float32', 4],
  ['float64', 8],
];

const CLOUD_HINT = 'Check the point cloud publisher: point_step, row_step and the fields must describe the data it sends.';

export function decodePointCloud2(wire: unknown): Decoded<PointCloud2> {
  return decodeWith(wire, 'sensor_msgs/PointCloud2', CLOUD_HINT, (message) => {
    const header = readHeader(message);
    const height = message.count('height');
    const width = message.count('width');
    const pointStepBytes = message.count('point_step');
    const rowStepBytes = message.count('row_step');
    const fields = message.objects('fields').map((field) => readField(field, pointStepBytes));
    if (rowStepBytes < width * pointStepBytes) {
      throw new DecodeProblem(`row_step ${rowStepBytes} is less than width × point_step (${width} × ${pointStepBytes})`);
    }
    const data = message.bytes('data');
    if (data.length < rowStepBytes * height) {
      throw new DecodeProblem(`data has ${data.length} bytes; row_step × height is ${rowStepBytes * height}`);
    }
    return {
      msg: {
        kind: 'PointCloud2',
        frameId: header.frameId,
        height,
        width,
        fields,
        bigEndian: message.boolean('is_bigendian'),
        pointStepBytes,
        rowStepBytes,
        isDense: message.boolean('is_dense'),
        data: data.subarray(0, rowStepBytes * height),
      },
      stampMs: header.stampMs,
    };
  });
}

function readField(field: WireObject, pointStepBytes: number): PointField {
  const name = field.string('name');
  const offsetBytes = field.count('offset');
  const code = field.count('datatype');
  const count = field.count('count');
  const datatype = DATATYPES[code - 1];
  if (datatype === undefined) throw new DecodeProblem(`field "${name}": datatype ${code} is not a PointField datatype (1…8)`);
  if (offsetBytes + datatype[1] * count > pointStepBytes) {
    throw new DecodeProblem(`field "${name}" (${count} × ${datatype[0]} at offset ${offsetBytes}) does not fit in point_step ${pointStepBytes}`);
  }
  return { name, offsetBytes, datatype: datatype[0], count };
}
