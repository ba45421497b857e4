import { describe, expect, it } from 'vitest';
import type { PointCloud2, Received } from '../core/messages.ts';
import type { TopicInfo } from '../core/link.ts';
import { FRAME_HEADER_BYTES, MAX_PREVIEW_POINTS, decodeBinaryFrame, encodePointCloudFrame } from '../core/contract.ts';
import { choosePointCloudTopic } from './pointCloudFeed.ts';
import { MIN_POINT_CLOUD_PERIOD_MS, PreviewCache, previewPointsXyz } from './previews.ts';

/** A cloud of x, y, z (+ one padding float) per point, in the layout most drivers use. */
function cloudOf(points: ReadonlyArray<readonly [number, number, number]>, options: { bigEndian?: boolean; float64?: boolean } = {}): PointCloud2 {
  const size = options.float64 ? 8 : 4;
  const pointStepBytes = size * 4;
  const data = new Uint8Array(points.length * pointStepBytes);
  const view = new DataView(data.buffer);
  points.forEach((point, index) =>
    point.forEach((value, axis) => {
      const at = index * pointStepBytes + axis * size;
      if (options.float64) view.setFloat64(at, value, !options.bigEndian);
      else view.setFloat32(at, value, !options.bigEndian);
    }),
  );
  const datatype = options.float64 ? 'float64' : 'float32';
  return {
    kind: 'PointCloud2',
    frameId: 'base_link',
    height: 1,
    width: points.length,
    fields: ['x', 'y', 'z'].map((name, axis) => ({ name, offsetBytes: axis * size, datatype, count: 1 })),
    bigEndian: options.bigEndian ?? false,
    pointStepBytes,
    rowStepBytes: points.length * pointStepBytes,
    isDense: false,
    data,
  };
}

const received = (msg: PointCloud2, sourceTimeMs = 1000): Received<PointCloud2> => ({ topic: '/points', receiveTimeMs: sourceTimeMs, sourceTimeMs, msg });

describe('point-cloud frames', () => {
  it('carry x, y, z float32 per point and the source stamp, and decode from a view into a larger buffer', () => {
    const xyzM = new Float32Array([1, 2, 3, -0.5, 0.25, 0]);
    const bytes = encodePointCloudFrame(1_763_733_600_123.25, xyzM);
    expect(bytes.length).toBe(FRAME_HEADER_BYTES + 24);
    const padded = new Uint8Array(bytes.length + 4);
    padded.set(bytes, 4);
    const frame = decodeBinaryFrame(padded.subarray(4));
    expect(frame).toMatchObject({ kind: 'points', stampMs: 1_763_733_600_123.25 });
    expect(Array.from(frame.kind === 'points' ? frame.xyzM : [])).toEqual([1, 2, 3, -0.5, 0.25, 0]);
  });

  it('refuse a frame whose length does not match its point count', () => {
    const bytes = encodePointCloudFrame(0, new Float32Array(6));
    expect(() => decodeBinaryFrame(bytes.subarray(0, bytes.length - 4))).toThrow(/point cloud frame of 2 points/);
    expect(() => encodePointCloudFrame(0, new Float32Array(4))).toThrow(/x, y, z/);
  });
});

describe('point-cloud previews', () => {
  it('read x, y, z whatever their type and byte order, leaving out points with no return', () => {
    const points: Array<[number, number, number]> = [
      [1, 2, 3],
      [Number.NaN, 0, 0],
      [4, 5, 6],
    ];
    for (const options of [{}, { bigEndian: true }, { float64: true }]) {
      expect(Array.from(previewPointsXyz(cloudOf(points, options), 100))).toEqual([1, 2, 3, 4, 5, 6]);
    }
  });

  it('thin a large cloud to exactly the cap, keeping points from all of it and none without a return', () => {
    const count = MAX_PREVIEW_POINTS * 3 + 7;
    // Every other point of an organised cloud is a "no return" (NaN), as a real LiDAR's upward beams are.
    const cloud = cloudOf(Array.from({ length: count }, (_, index) => (index % 2 === 0 ? ([index, 0, 0] as const) : ([Number.NaN, 0, 0] as const))));
    const xyzM = previewPointsXyz(cloud, MAX_PREVIEW_POINTS);
    expect(xyzM.length / 3).toBe(MAX_PREVIEW_POINTS);
    expect(xyzM.every(Number.isFinite)).toBe(true);
    expect(xyzM[0]).toBe(0);
    expect(xyzM[xyzM.length - 3]).toBeGreaterThan(count * 0.99);
  });

  it('are encoded once per new cloud, and no faster than the UI draws', () => {
    const cache = new PreviewCache();
    const first = received(cloudOf([[1, 1, 1]]));
    const preview = cache.pointCloudPreview(first, 0)!;
    expect(decodeBinaryFrame(preview.bytes)).toMatchObject({ kind: 'points', stampMs: 1000 });
    expect(cache.pointCloudPreview(first, 500)).toBe(preview);
    // A second cloud hard on the heels of the first is skipped; one a period later goes out.
    expect(cache.pointCloudPreview(received(cloudOf([[2, 2, 2]])), 10)).toBe(preview);
    const later = cache.pointCloudPreview(received(cloudOf([[3, 3, 3]]), 1100), MIN_POINT_CLOUD_PERIOD_MS + 1)!;
    expect(later.sequence).toBeGreaterThan(preview.sequence);
    expect(cache.pointCloudPreview(undefined, 10_000)).toBe(later);
  });
});

describe('the point-cloud topic', () => {
  const topics = (...infos: Array<[string, TopicInfo['kind']]>): TopicInfo[] => infos.map(([topic, kind]) => ({ topic, kind }));

  it('is the one the operator named, else /points, else the first PointCloud2 the robot offers, else none', () => {
    const offered = topics(['/scan', 'LaserScan'], ['/velodyne_points', 'PointCloud2'], ['/points', 'PointCloud2']);
    expect(choosePointCloudTopic(offered, '/depth/points')).toBe('/depth/points');
    expect(choosePointCloudTopic(offered, undefined)).toBe('/points');
    expect(choosePointCloudTopic(offered.slice(0, 2), undefined)).toBe('/velodyne_points');
    expect(choosePointCloudTopic(topics(['/scan', 'LaserScan']), undefined)).toBeUndefined();
  });
});
