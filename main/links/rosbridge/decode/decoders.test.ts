import { encode as encodePng } from 'fast-png';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { decodeCompressedImageAsImage } from './compressedImages.ts';
import type { Decoded } from './decoded.ts';
import { decodeImage } from './images.ts';
import { decodeImu } from './imus.ts';
import { decodeJointState } from './jointStates.ts';
import { decodeLaserScan } from './laserScans.ts';
import { canonicalTypeName, decoderFor, kindOfType } from './messageTypes.ts';
import { decodeOdometry } from './odometry.ts';
import { decodePointCloud2 } from './pointClouds.ts';

const ROS1_HEADER = { seq: 1, stamp: { secs: 100, nsecs: 500_000_000 }, frame_id: 'camera' };
const ROS2_HEADER = { stamp: { sec: 100, nanosec: 250_000_000 }, frame_id: 'camera' };

function image(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { header: ROS1_HEADER, height: 2, width: 3, encoding: 'rgb8', is_bigendian: 0, step: 9, data: new Uint8Array(18).map((_, i) => i), ...overrides };
}

function problemOf(result: Decoded<unknown>): string {
  return result.ok ? 'decoded' : result.problem;
}

describe('message decoders', () => {
  it('accept ROS 1 and ROS 2 stamps and type names', () => {
    expect(decodeImage(image())).toMatchObject({ ok: true, stampMs: 100_500 });
    expect(decodeImage(image({ header: ROS2_HEADER }))).toMatchObject({ ok: true, stampMs: 100_250 });
    expect(canonicalTypeName('sensor_msgs/msg/Image')).toBe('sensor_msgs/Image');
    expect(kindOfType('nav_msgs/msg/Odometry')).toBe('Odometry');
    expect(kindOfType('std_msgs/String')).toBeUndefined();
    expect(decoderFor('sensor_msgs/msg/CompressedImage', 'Image')).toBeDefined();
    expect(decoderFor('sensor_msgs/LaserScan', 'Image')).toBeUndefined();
  });

  it('treat a zero stamp as unstamped', () => {
    expect(decodeImage(image({ header: { stamp: { secs: 0, nsecs: 0 }, frame_id: '' } }))).toMatchObject({ ok: true, stampMs: undefined });
  });

  it('refuse an image whose data is shorter than step × height, with a hint', () => {
    const result = decodeImage(image({ data: new Uint8Array(17) }));
    expect(result).toMatchObject({ ok: false, problem: expect.stringContaining('data has 17 bytes; step × height is 18') });
    expect(result.ok ? '' : result.hint).toMatch(/truncated/);
  });

  it('refuse unsupported encodings, a short step and wrong field types', () => {
    expect(problemOf(decodeImage(image({ encoding: '16UC1' })))).toMatch(/encoding "16UC1" is not supported/);
    expect(problemOf(decodeImage(image({ step: 8 })))).toMatch(/step 8 is less than/);
    expect(problemOf(decodeImage(image({ width: '3' })))).toMatch(/msg\.width: expected a non-negative integer, got string/);
    expect(problemOf(decodeImage(image({ data: 42 })))).toMatch(/msg\.data: expected bytes/);
    expect(problemOf(decodeImage({ height: 1 }))).toMatch(/msg\.header: missing/);
    expect(problemOf(decodeImage('nope'))).toMatch(/expected an object/);
  });

  it('drop the alpha channel of rgba8 and accept data as a plain byte list', () => {
    const rgba = decodeImage(image({ width: 1, height: 1, step: 4, encoding: 'rgba8', data: [10, 20, 30, 255] }));
    expect(rgba).toMatchObject({ ok: true, msg: { encoding: 'rgb8', step: 3 } });
    expect(rgba.ok && [...rgba.msg.data]).toEqual([10, 20, 30]);
  });

  it('decode JPEG and PNG CompressedImages to RGB, and refuse anything else', () => {
    const pixels = new Uint8Array([255, 0, 0, 0, 255, 0]);
    const png = encodePng({ width: 2, height: 1, data: pixels, channels: 3, depth: 8 });
    const fromPng = decodeCompressedImageAsImage({ header: ROS1_HEADER, format: 'png', data: png });
    expect(fromPng.ok && [...fromPng.msg.data]).toEqual([...pixels]);
    const rgba = new Uint8Array(16 * 16 * 4).fill(200);
    const jpg = jpeg.encode({ width: 16, height: 16, data: rgba }, 90).data;
    const fromJpeg = decodeCompressedImageAsImage({ header: ROS1_HEADER, format: 'rgb8; jpeg compressed bgr8', data: new Uint8Array(jpg) });
    expect(fromJpeg).toMatchObject({ ok: true, msg: { width: 16, height: 16, encoding: 'rgb8' } });
    expect(fromJpeg.ok && Math.abs(fromJpeg.msg.data[0]! - 200)).toBeLessThan(4);
    expect(
      problemOf(decodeCompressedImageAsImage({ header: ROS1_HEADER, format: '16UC1; compressedDepth', data: new Uint8Array([0, 0, 0, 0, 1, 2]) })),
    ).toMatch(/neither JPEG nor PNG/);
    expect(problemOf(decodeCompressedImageAsImage({ header: ROS1_HEADER, format: 'jpeg', data: new Uint8Array([0xff, 0xd8, 1, 2, 3]) }))).toMatch(
      /damaged JPEG/,
    );
  });

  it('refuse a PNG that declares an absurd size before decoding it', () => {
    const png = encodePng({ width: 1, height: 1, data: new Uint8Array(3), channels: 3, depth: 8 });
    new DataView(png.buffer, png.byteOffset).setUint32(16, 100_000);
    new DataView(png.buffer, png.byteOffset).setUint32(20, 100_000);
    expect(problemOf(decodeCompressedImageAsImage({ header: ROS1_HEADER, format: 'png', data: png }))).toMatch(/larger than/);
  });

  it('keep non-finite ranges in a scan but refuse non-finite angles', () => {
    const scan = {
      header: ROS1_HEADER,
      angle_min: -1,
      angle_max: 1,
      angle_increment: 0.5,
      time_increment: 0,
      scan_time: 0.1,
      range_min: 0.1,
      range_max: 10,
      ranges: new Float32Array([1, Infinity, NaN]),
      intensities: [],
    };
    const result = decodeLaserScan(scan);
    expect(result.ok && [...result.msg.rangesM]).toEqual([1, Infinity, NaN]);
    expect(problemOf(decodeLaserScan({ ...scan, angle_increment: null }))).toMatch(/angle_increment: expected a finite number, got NaN/);
    expect(problemOf(decodeLaserScan({ ...scan, ranges: [1, 'far'] }))).toMatch(/ranges\[1\]: expected a number/);
  });

  it('refuse joint states with mismatched or non-finite arrays, accept empty ones', () => {
    const joints = { header: ROS1_HEADER, name: ['a', 'b'], position: [1, 2], velocity: [], effort: [] };
    expect(decodeJointState(joints)).toMatchObject({ ok: true, msg: { names: ['a', 'b'] } });
    expect(problemOf(decodeJointState({ ...joints, velocity: [1] }))).toMatch(/velocity has 1 values for 2 joints/);
    expect(problemOf(decodeJointState({ ...joints, position: [1, null] }))).toMatch(/position\[1\] is NaN/);
  });

  it('refuse IMU and odometry with non-finite values', () => {
    const imu = {
      header: ROS1_HEADER,
      orientation: { x: 0, y: 0, z: 0, w: 1 },
      angular_velocity: { x: 0, y: 0, z: null },
      linear_acceleration: { x: 0, y: 0, z: 9.8 },
    };
    expect(problemOf(decodeImu(imu))).toMatch(/angular_velocity\.z: expected a finite number/);
    const pose = { position: { x: 1, y: 2, z: 0 }, orientation: { x: 0, y: 0, z: Math.sin(0.25), w: Math.cos(0.25) } };
    const odom = {
      header: ROS1_HEADER,
      child_frame_id: 'base',
      pose: { pose, covariance: [] },
      twist: { twist: { linear: { x: 0.3, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.2 } }, covariance: [] },
    };
    const decoded = decodeOdometry(odom);
    expect(decoded).toMatchObject({ ok: true, msg: { odomFromBaseXM: 1, odomFromBaseYM: 2, linearMps: 0.3, angularRadps: 0.2 } });
    expect(decoded.ok && decoded.msg.odomFromBaseYawRad).toBeCloseTo(0.5, 9);
  });

  it('check that every point cloud field fits its point', () => {
    const cloud = {
      header: ROS1_HEADER,
      height: 1,
      width: 2,
      fields: [
        { name: 'x', offset: 0, datatype: 7, count: 1 },
        { name: 'y', offset: 4, datatype: 7, count: 1 },
      ],
      is_bigendian: false,
      point_step: 8,
      row_step: 16,
      data: new Uint8Array(16),
      is_dense: true,
    };
    expect(decodePointCloud2(cloud)).toMatchObject({
      ok: true,
      msg: {
        fields: [
          { name: 'x', datatype: 'float32' },
          { name: 'y', offsetBytes: 4 },
        ],
      },
    });
    expect(problemOf(decodePointCloud2({ ...cloud, fields: [{ name: 'z', offset: 6, datatype: 7, count: 1 }] }))).toMatch(/does not fit in point_step 8/);
    expect(problemOf(decodePointCloud2({ ...cloud, data: new Uint8Array(15) }))).toMatch(/data has 15 bytes/);
    expect(problemOf(decodePointCloud2({ ...cloud, fields: [{ name: 'x', offset: 0, datatype: 9, count: 1 }] }))).toMatch(/datatype 9/);
  });
});
