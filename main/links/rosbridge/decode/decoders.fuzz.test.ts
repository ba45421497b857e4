// Generated garbage for every decoder: valid messages with fields replaced by anything a broken robot
// or bridge could send, and arbitrary values outright. A decoder must never throw, and must return
// either a message that keeps its own invariants or a failure that says what was wrong and why.
import { encode as encodePng } from 'fast-png';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzz } from '../../../../test/support/fuzz.ts';
import type { RobotMessage } from '../../../core/messages.ts';
import { decodeCompressedImage, decodeCompressedImageAsImage } from './compressedImages.ts';
import type { Decoded } from './decoded.ts';
import { decodeImage } from './images.ts';
import { decodeImu } from './imus.ts';
import { decodeJointState } from './jointStates.ts';
import { decodeLaserScan } from './laserScans.ts';
import { decodeOdometry } from './odometry.ts';
import { decodePointCloud2 } from './pointClouds.ts';
import { decodeTwist } from './twists.ts';

const HEADER = { seq: 1, stamp: { secs: 10, nsecs: 5 }, frame_id: 'f' };
const VECTOR = { x: 0, y: 1, z: 2 };
const QUATERNION = { x: 0, y: 0, z: 0, w: 1 };
const PNG = encodePng({ width: 2, height: 2, data: new Uint8Array(12).fill(7), channels: 3, depth: 8 });

/** Values a wire message field could hold: numbers (inf, nan, null), text, bytes, arrays, objects. */
const wireValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: -5, max: 70 }),
  fc.double(),
  fc.constantFrom(null, Infinity, -Infinity, Number.NaN, 0, 1, true, false),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('rgb8', 'bgr8', 'mono8', 'rgba8', '16UC1', 'jpeg', 'png', 'AAECAwQF'),
  fc.uint8Array({ maxLength: 80 }),
  fc.float32Array({ maxLength: 20 }),
  fc.array(fc.oneof(fc.double(), fc.constant(null), fc.string({ maxLength: 3 })), { maxLength: 20 }),
  fc.constant(HEADER),
  fc.constant({ stamp: { sec: 3, nanosec: 2_000_000_000 }, frame_id: 1 }),
  fc.dictionary(fc.constantFrom('x', 'y', 'z', 'w', 'secs', 'nsecs'), fc.oneof(fc.double(), fc.constant(null)), { maxKeys: 4 }),
);

/** A valid message with some of its (nested) fields replaced or removed. */
function mutated(template: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = Object.keys(template);
  const patch = fc.dictionary(fc.constantFrom(...keys), fc.option(wireValue, { nil: undefined }), { maxKeys: 3 });
  return fc.oneof({ weight: 6, arbitrary: patch.map((changes) => ({ ...template, ...changes })) }, { weight: 1, arbitrary: fc.anything() });
}

type Decoder = (wire: unknown) => Decoded<RobotMessage>;

function checkNeverThrows(decode: Decoder, messages: fc.Arbitrary<unknown>, invariant: (msg: RobotMessage) => void): void {
  fuzz(
    [messages],
    (wire) => {
      const result = decode(wire);
      if (result.ok) invariant(result.msg);
      else {
        expect(result.problem.length).toBeGreaterThan(0);
        expect(result.hint.length).toBeGreaterThan(0);
      }
    },
    { runs: 2000 },
  );
}

function imageInvariant(msg: RobotMessage): void {
  if (msg.kind !== 'Image') throw new Error(`decoded a ${msg.kind}`);
  const channels = msg.encoding === 'mono8' ? 1 : 3;
  expect(msg.width * msg.height).toBeGreaterThan(0);
  expect(msg.step).toBeGreaterThanOrEqual(msg.width * channels);
  expect(msg.data.length).toBeGreaterThanOrEqual(msg.step * msg.height);
}

function allFinite(...values: number[]): void {
  expect(values.every(Number.isFinite)).toBe(true);
}

describe('decoders under generated garbage', () => {
  it('Image', () => {
    const image = { header: HEADER, height: 2, width: 3, encoding: 'rgb8', is_bigendian: 0, step: 9, data: new Uint8Array(18) };
    checkNeverThrows(decodeImage, mutated(image), imageInvariant);
  });

  it('CompressedImage, kept and decoded to an Image', () => {
    const damagedPng = fc.uint8Array({ minLength: 1, maxLength: 8 }).map((noise) => {
      const bytes = PNG.slice();
      noise.forEach((value, i) => (bytes[(i * 7919) % bytes.length] = value));
      return bytes;
    });
    const jpegish = fc.uint8Array({ maxLength: 200 }).map((rest) => Uint8Array.from([0xff, 0xd8, ...rest]));
    const compressed = fc.oneof(
      mutated({ header: HEADER, format: 'png', data: PNG }),
      fc.record({ header: fc.constant(HEADER), format: fc.constant('rgb8; png compressed bgr8'), data: damagedPng }),
      fc.record({ header: fc.constant(HEADER), format: fc.constant('jpeg'), data: jpegish }),
    );
    checkNeverThrows(decodeCompressedImage, compressed, (msg) => expect(msg.kind).toBe('CompressedImage'));
    checkNeverThrows(decodeCompressedImageAsImage, compressed, imageInvariant);
  });

  it('LaserScan', () => {
    const scan = {
      header: HEADER,
      angle_min: -1,
      angle_max: 1,
      angle_increment: 0.1,
      time_increment: 0,
      scan_time: 0.1,
      range_min: 0.1,
      range_max: 8,
      ranges: [1, null, 2],
      intensities: [],
    };
    checkNeverThrows(decodeLaserScan, mutated(scan), (msg) => {
      if (msg.kind !== 'LaserScan') throw new Error(msg.kind);
      allFinite(msg.angleMinRad, msg.angleMaxRad, msg.angleIncrementRad, msg.rangeMinM, msg.rangeMaxM);
      expect(msg.rangesM).toBeInstanceOf(Float32Array);
    });
  });

  it('PointCloud2', () => {
    const cloud = {
      header: HEADER,
      height: 1,
      width: 2,
      fields: [{ name: 'x', offset: 0, datatype: 7, count: 1 }],
      is_bigendian: 0,
      point_step: 4,
      row_step: 8,
      data: new Uint8Array(8),
      is_dense: true,
    };
    checkNeverThrows(decodePointCloud2, mutated(cloud), (msg) => {
      if (msg.kind !== 'PointCloud2') throw new Error(msg.kind);
      expect(msg.data.length).toBeGreaterThanOrEqual(msg.rowStepBytes * msg.height);
      for (const field of msg.fields) expect(field.offsetBytes).toBeLessThan(msg.pointStepBytes);
    });
  });

  it('JointState', () => {
    const joints = { header: HEADER, name: ['a', 'b'], position: [1, 2], velocity: [0, 0], effort: [] };
    checkNeverThrows(decodeJointState, mutated(joints), (msg) => {
      if (msg.kind !== 'JointState') throw new Error(msg.kind);
      for (const values of [msg.positionsRad, msg.velocitiesRadps, msg.effortsNm]) {
        expect([0, msg.names.length]).toContain(values.length);
        allFinite(...values);
      }
    });
  });

  it('Imu', () => {
    const imu = { header: HEADER, orientation: QUATERNION, angular_velocity: VECTOR, linear_acceleration: VECTOR, orientation_covariance: [] };
    checkNeverThrows(decodeImu, mutated(imu), (msg) => {
      if (msg.kind !== 'Imu') throw new Error(msg.kind);
      allFinite(...Object.values(msg.orientation), ...Object.values(msg.angularVelocityRadps), ...Object.values(msg.linearAccelerationMps2));
    });
  });

  it('Odometry', () => {
    const odom = {
      header: HEADER,
      child_frame_id: 'base',
      pose: { pose: { position: VECTOR, orientation: QUATERNION } },
      twist: { twist: { linear: VECTOR, angular: VECTOR } },
    };
    checkNeverThrows(decodeOdometry, mutated(odom), (msg) => {
      if (msg.kind !== 'Odometry') throw new Error(msg.kind);
      allFinite(msg.odomFromBaseXM, msg.odomFromBaseYM, msg.odomFromBaseYawRad, msg.linearMps, msg.angularRadps);
    });
  });

  it('Twist', () => {
    checkNeverThrows(decodeTwist, mutated({ linear: VECTOR, angular: VECTOR }), (msg) => {
      if (msg.kind !== 'Twist') throw new Error(msg.kind);
      allFinite(...Object.values(msg.linearMps), ...Object.values(msg.angularRadps));
    });
  });
});
