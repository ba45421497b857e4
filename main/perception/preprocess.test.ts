import { describe, expect, it } from 'vitest';
import type { Image, Imu, JointState, LaserScan } from '../core/messages.ts';
import type { ImagePreprocessing, ProprioPreprocessing, RangesPreprocessing } from './manifest.ts';
import { elementCount, prepareImage, prepareProprio, prepareRanges } from './preprocess.ts';

function image(width: number, height: number, encoding: Image['encoding'], pixel: (x: number, y: number) => number[]): Image {
  const channels = encoding === 'mono8' ? 1 : 3;
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * channels);
  return { kind: 'Image', frameId: 'camera', width, height, encoding, step: width * channels, data };
}

const plain = (over: Partial<ImagePreprocessing> = {}): ImagePreprocessing => ({
  kind: 'image',
  widthPx: 2,
  heightPx: 1,
  layout: 'nhwc',
  channelOrder: 'rgb',
  mean: [0, 0, 0],
  std: [1, 1, 1],
  ...over,
});

describe('prepareImage', () => {
  // 4×2 pixels: the left half red 255, the right half red 51; green and blue constant.
  const halves = image(4, 2, 'rgb8', (x) => [x < 2 ? 255 : 51, 102, 204]);

  it('averages each output pixel over its source box (box filter)', () => {
    const out = new Float32Array(6);
    prepareImage(
      image(4, 2, 'rgb8', (x, y) => [x * 10 + y * 100, 0, 0]),
      plain(),
      out,
    );
    // Left output pixel: x 0..1, y 0..1 → mean of 0, 10, 100, 110 = 55.
    expect(out[0]).toBeCloseTo(55 / 255, 6);
    expect(out[3]).toBeCloseTo(75 / 255, 6);
  });

  it('writes NHWC and NCHW layouts', () => {
    const nhwc = new Float32Array(6);
    const nchw = new Float32Array(6);
    prepareImage(halves, plain(), nhwc);
    prepareImage(halves, plain({ layout: 'nchw' }), nchw);
    const [r1, r2, g, b] = [1, 0.2, 0.4, 0.8];
    expect([...nhwc].map((v) => +v.toFixed(4))).toEqual([r1, g, b, r2, g, b]);
    expect([...nchw].map((v) => +v.toFixed(4))).toEqual([r1, r2, g, g, b, b]);
  });

  it('reads bgr8 sources and writes the channel order the encoder asks for', () => {
    const bgrSource = image(4, 2, 'bgr8', (x) => [204, 102, x < 2 ? 255 : 51]);
    const fromBgr = new Float32Array(6);
    const fromRgb = new Float32Array(6);
    prepareImage(bgrSource, plain(), fromBgr);
    prepareImage(halves, plain(), fromRgb);
    expect(fromBgr).toEqual(fromRgb);
    const wantsBgr = new Float32Array(6);
    prepareImage(halves, plain({ channelOrder: 'bgr' }), wantsBgr);
    expect([...wantsBgr.slice(0, 3)].map((v) => +v.toFixed(4))).toEqual([0.8, 0.4, 1]);
  });

  it('repeats a mono8 image across the three channels', () => {
    const out = new Float32Array(6);
    prepareImage(
      image(4, 2, 'mono8', () => [51]),
      plain(),
      out,
    );
    expect([...out].map((v) => +v.toFixed(4))).toEqual([0.2, 0.2, 0.2, 0.2, 0.2, 0.2]);
  });

  it('normalises with the per-channel mean and std', () => {
    const out = new Float32Array(6);
    prepareImage(halves, plain({ mean: [0.5, 0.4, 0.8], std: [0.25, 0.5, 2] }), out);
    expect(out[0]).toBeCloseTo((1 - 0.5) / 0.25, 5);
    expect(out[1]).toBeCloseTo(0, 5);
    expect(out[2]).toBeCloseTo(0, 5);
  });

  it('refuses an image with fewer bytes than its size says', () => {
    const short = { ...halves, data: halves.data.subarray(0, 10) };
    expect(() => prepareImage(short, plain(), new Float32Array(6))).toThrow(/too few bytes/);
  });
});

function scan(rangesM: number[], over: Partial<LaserScan> = {}): LaserScan {
  return {
    kind: 'LaserScan',
    frameId: 'laser',
    angleMinRad: -Math.PI,
    angleMaxRad: Math.PI,
    angleIncrementRad: (2 * Math.PI) / rangesM.length,
    rangeMinM: 0.1,
    rangeMaxM: 10,
    rangesM: Float32Array.from(rangesM),
    ...over,
  };
}

describe('prepareRanges', () => {
  const spec: RangesPreprocessing = { kind: 'ranges', bins: 4, maxRangeM: 8, validityFlags: true };

  it('keeps the nearest return per bin, scaled by maxRange, with a validity flag per bin', () => {
    const out = new Float32Array(8);
    // 8 beams over a full turn from −π: two per bin.
    prepareRanges(scan([4, 2, 6, 6, 1, 8, 3, 5]), spec, out);
    expect([...out]).toEqual([0.25, 0.75, 0.125, 0.375, 1, 1, 1, 1]);
  });

  it('reads Infinity as free space, and ignores NaN and returns below the sensor minimum', () => {
    const out = new Float32Array(8);
    prepareRanges(scan([Infinity, Infinity, Number.NaN, Number.NaN, 0.05, Number.NaN, 20, 4]), spec, out);
    // Bin 0: nothing hit → 1, valid. Bins 1, 2: no usable beam → 1, invalid. Bin 3: 20 m clipped, 4 m nearer.
    expect([...out]).toEqual([1, 1, 1, 0.5, 1, 0, 0, 1]);
  });

  it('bins by angle whatever the scan starts at, and leaves out the flags when not asked', () => {
    const out = new Float32Array(4);
    // One beam straight ahead (0 rad) lands in bin 2 of 4 (bins start behind, at −π).
    prepareRanges(scan([2], { angleMinRad: 0, angleIncrementRad: 0.01 }), { ...spec, validityFlags: false }, out);
    expect([...out]).toEqual([1, 1, 0.25, 1]);
  });
});

describe('prepareProprio', () => {
  const joints: JointState = {
    kind: 'JointState',
    names: ['wheel_right_joint', 'wheel_left_joint'],
    positionsRad: new Float64Array(2),
    velocitiesRadps: Float64Array.from([3, 1]),
    effortsNm: new Float64Array(2),
  };
  const imu: Imu = {
    kind: 'Imu',
    frameId: 'imu',
    orientation: { x: 0, y: 0, z: 0, w: 1 },
    angularVelocityRadps: { x: 0, y: 0, z: 0.5 },
    linearAccelerationMps2: { x: 2, y: Number.NaN, z: 9.8 },
  };
  const spec: ProprioPreprocessing = {
    kind: 'proprio',
    fields: ['wheel-left-radps', 'wheel-right-radps', 'gyro-z-radps', 'accel-x-mps2', 'accel-y-mps2', 'command-linear-mps', 'command-angular-radps'],
    mean: [1, 1, 0, 1, 0, 0.1, 0],
    std: [2, 2, 0.5, 4, 1, 0.1, 1],
  };

  it('normalises each field, finds the wheels by name, and reads a non-finite value as the mean', () => {
    const out = new Float32Array(7);
    prepareProprio({ joints, imu, command: { linearMps: 0.3, angularRadps: -0.2 } }, spec, out);
    expect([...out].map((v) => +v.toFixed(4))).toEqual([0, 1, 1, 0.25, 0, 2, -0.2]);
  });
});

describe('elementCount', () => {
  it('multiplies the dims', () => {
    expect(elementCount([1, 48, 64, 3])).toBe(9216);
    expect(elementCount([1])).toBe(1);
  });
});
