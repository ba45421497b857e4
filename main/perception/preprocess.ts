// Turns sensor messages into encoder inputs, into buffers the caller owns and reuses every tick.
// The models' build script uses these same functions, so training and runtime prepare data alike.
import type { Image, Imu, JointState, LaserScan } from '../core/messages.ts';
import type { ImagePreprocessing, ProprioField, ProprioPreprocessing, RangesPreprocessing } from './manifest.ts';

/** The number of floats an encoder input of this shape holds. */
export function elementCount(shape: readonly number[]): number {
  return shape.reduce((product, dim) => product * dim, 1);
}

/** For one output row or column: the span of source pixels it averages. */
interface BoxSpan {
  first: number;
  count: number;
}

const spanCache = new Map<string, BoxSpan[]>();

/** Output pixel i averages the source pixels whose centres fall inside its footprint (at least one). */
function boxSpans(sourcePx: number, targetPx: number): BoxSpan[] {
  const key = `${sourcePx}>${targetPx}`;
  const cached = spanCache.get(key);
  if (cached) return cached;
  const spans: BoxSpan[] = [];
  const scale = sourcePx / targetPx;
  for (let i = 0; i < targetPx; i++) {
    const first = Math.min(sourcePx - 1, Math.max(0, Math.ceil(i * scale - 0.5)));
    const end = Math.min(sourcePx, Math.max(first + 1, Math.ceil((i + 1) * scale - 0.5)));
    spans.push({ first, count: end - first });
  }
  spanCache.set(key, spans);
  return spans;
}

/**
 * Resizes (box filter) and normalises an image into `out`, in the manifest's layout and channel
 * order. Mono images are repeated across the three channels.
 */
export function prepareImage(image: Image, spec: ImagePreprocessing, out: Float32Array): void {
  const { widthPx, heightPx } = spec;
  if (out.length !== widthPx * heightPx * 3) throw new RangeError(`image buffer holds ${out.length} floats, needs ${widthPx * heightPx * 3}`);
  const channels = image.encoding === 'mono8' ? 1 : 3;
  if (image.step < image.width * channels || image.data.length < image.step * image.height) {
    throw new RangeError(`image ${image.width}×${image.height} ${image.encoding} has too few bytes (${image.data.length}, step ${image.step})`);
  }
  // Source byte offset of the red, green and blue values of a pixel.
  const sourceIsBgr = image.encoding === 'bgr8';
  const redAt = channels === 1 ? 0 : sourceIsBgr ? 2 : 0;
  const greenAt = channels === 1 ? 0 : 1;
  const blueAt = channels === 1 ? 0 : sourceIsBgr ? 0 : 2;
  const wantBgr = spec.channelOrder === 'bgr';
  const sourceFor = wantBgr ? [blueAt, greenAt, redAt] : [redAt, greenAt, blueAt];
  const scale = [0, 1, 2].map((c) => 1 / (255 * spec.std[c]!));
  const offset = [0, 1, 2].map((c) => spec.mean[c]! / spec.std[c]!);
  const columns = boxSpans(image.width, widthPx);
  const rows = boxSpans(image.height, heightPx);
  const plane = widthPx * heightPx;
  const data = image.data;

  for (let y = 0; y < heightPx; y++) {
    const row = rows[y]!;
    for (let x = 0; x < widthPx; x++) {
      const column = columns[x]!;
      let sum0 = 0;
      let sum1 = 0;
      let sum2 = 0;
      for (let sy = row.first; sy < row.first + row.count; sy++) {
        let at = sy * image.step + column.first * channels;
        for (let sx = 0; sx < column.count; sx++, at += channels) {
          sum0 += data[at + sourceFor[0]!]!;
          sum1 += data[at + sourceFor[1]!]!;
          sum2 += data[at + sourceFor[2]!]!;
        }
      }
      const inverseCount = 1 / (row.count * column.count);
      const v0 = sum0 * inverseCount * scale[0]! - offset[0]!;
      const v1 = sum1 * inverseCount * scale[1]! - offset[1]!;
      const v2 = sum2 * inverseCount * scale[2]! - offset[2]!;
      if (spec.layout === 'nhwc') {
        const at = (y * widthPx + x) * 3;
        out[at] = v0;
        out[at + 1] = v1;
        out[at + 2] = v2;
      } else {
        const at = y * widthPx + x;
        out[at] = v0;
        out[plane + at] = v1;
        out[2 * plane + at] = v2;
      }
    }
  }
}

/** How many floats prepareRanges writes for this spec. */
export function rangesInputSize(spec: RangesPreprocessing): number {
  return spec.bins * (1 + (spec.validityFlags ? 1 : 0) + (spec.proximityScaleM === undefined ? 0 : 1));
}

/**
 * Bins a scan over a full turn (bin 0 starts straight behind, at −π, counter-clockwise), keeping the
 * nearest return per bin, clipped and scaled to 0..1. A beam that hit nothing within range (Infinity)
 * reads as free space (1); a beam with no reading (NaN, or below the sensor's minimum) is ignored, and
 * a bin with no usable beam reads 1 with its validity flag at 0.
 */
export function prepareRanges(scan: LaserScan, spec: RangesPreprocessing, out: Float32Array): void {
  const { bins, maxRangeM, proximityScaleM } = spec;
  const expected = rangesInputSize(spec);
  if (out.length !== expected) throw new RangeError(`scan buffer holds ${out.length} floats, needs ${expected}`);
  out.fill(1, 0, bins);
  out.fill(0, bins);
  const proximityAt = spec.validityFlags ? 2 * bins : bins;
  const turn = 2 * Math.PI;
  for (let i = 0; i < scan.rangesM.length; i++) {
    const rangeM = scan.rangesM[i]!;
    if (Number.isNaN(rangeM) || rangeM < scan.rangeMinM) continue;
    let angle = (scan.angleMinRad + i * scan.angleIncrementRad + Math.PI) % turn;
    if (angle < 0) angle += turn;
    const bin = Math.min(bins - 1, Math.floor((angle / turn) * bins));
    const value = Math.min(rangeM, maxRangeM, scan.rangeMaxM) / maxRangeM;
    if (value < out[bin]!) out[bin] = value;
    if (spec.validityFlags) out[bins + bin] = 1;
    if (proximityScaleM !== undefined && Number.isFinite(rangeM))
      out[proximityAt + bin] = Math.max(out[proximityAt + bin]!, Math.exp(-rangeM / proximityScaleM));
  }
}

export interface ProprioSources {
  joints: JointState;
  imu: Imu;
  command: { linearMps: number; angularRadps: number };
  /** The IMU's readings since the previous tick, oldest first; none (or empty) reads the latest alone. */
  imuSinceLastTick?: readonly Imu[];
  /** The wheels' readings since the previous tick, oldest first; none (or empty) reads the latest alone. */
  jointsSinceLastTick?: readonly JointState[];
}

/** Wheel velocities by joint name where the names say left and right, else by position (left first). */
function wheelVelocityRadps(joints: JointState, side: 'left' | 'right'): number {
  const named = joints.names.findIndex((name) => name.toLowerCase().includes(side));
  const index = named >= 0 ? named : side === 'left' ? 0 : 1;
  return joints.velocitiesRadps[index] ?? 0;
}

/** The reading of largest magnitude (with its sign), or the mean, over a tick's readings; the latest alone when none came since. */
function summarise<M>(readings: readonly M[] | undefined, latest: M, read: (message: M) => number, how: 'peak' | 'mean'): number {
  const over = readings !== undefined && readings.length > 0 ? readings : [latest];
  let peak = 0;
  let sum = 0;
  for (const message of over) {
    const value = read(message);
    sum += value;
    if (Math.abs(value) > Math.abs(peak) || Number.isNaN(value)) peak = value;
  }
  return how === 'peak' ? peak : sum / over.length;
}

type Over = 'last' | 'peak' | 'mean';
/** How a field is read: from which stream, which value of a message, over which of the tick's readings. */
type FieldReading =
  | { stream: 'imu'; read: (imu: Imu) => number; over: Over }
  | { stream: 'joints'; read: (joints: JointState) => number; over: Over }
  | { stream: 'command'; read: (command: ProprioSources['command']) => number; over: 'last' };

const accelX = (imu: Imu) => imu.linearAccelerationMps2.x;
const accelY = (imu: Imu) => imu.linearAccelerationMps2.y;
const gyroZ = (imu: Imu) => imu.angularVelocityRadps.z;
const wheelLeft = (joints: JointState) => wheelVelocityRadps(joints, 'left');
const wheelRight = (joints: JointState) => wheelVelocityRadps(joints, 'right');
const imuReading = (read: (imu: Imu) => number, over: Over): FieldReading => ({ stream: 'imu', read, over });
const wheelReading = (read: (joints: JointState) => number, over: Over): FieldReading => ({ stream: 'joints', read, over });

const FIELD_READINGS: Readonly<Record<ProprioField, FieldReading>> = {
  'wheel-left-radps': wheelReading(wheelLeft, 'last'),
  'wheel-right-radps': wheelReading(wheelRight, 'last'),
  'gyro-z-radps': imuReading(gyroZ, 'last'),
  'accel-x-mps2': imuReading(accelX, 'last'),
  'accel-y-mps2': imuReading(accelY, 'last'),
  'command-linear-mps': { stream: 'command', read: (command) => command.linearMps, over: 'last' },
  'command-angular-radps': { stream: 'command', read: (command) => command.angularRadps, over: 'last' },
  'accel-x-peak-mps2': imuReading(accelX, 'peak'),
  'accel-y-peak-mps2': imuReading(accelY, 'peak'),
  'gyro-z-peak-radps': imuReading(gyroZ, 'peak'),
  'accel-x-mean-mps2': imuReading(accelX, 'mean'),
  'accel-y-mean-mps2': imuReading(accelY, 'mean'),
  'gyro-z-mean-radps': imuReading(gyroZ, 'mean'),
  'wheel-left-peak-radps': wheelReading(wheelLeft, 'peak'),
  'wheel-right-peak-radps': wheelReading(wheelRight, 'peak'),
  'wheel-left-mean-radps': wheelReading(wheelLeft, 'mean'),
  'wheel-right-mean-radps': wheelReading(wheelRight, 'mean'),
};

/** The stream a proprioceptive field is read from (the last command is the core's own). */
export function proprioFieldStream(field: ProprioField): FieldReading['stream'] {
  return FIELD_READINGS[field].stream;
}

export function proprioValue(field: ProprioField, sources: ProprioSources): number {
  const reading = FIELD_READINGS[field];
  switch (reading.stream) {
    case 'command':
      return reading.read(sources.command);
    case 'imu':
      return reading.over === 'last' ? reading.read(sources.imu) : summarise(sources.imuSinceLastTick, sources.imu, reading.read, reading.over);
    case 'joints':
      return reading.over === 'last' ? reading.read(sources.joints) : summarise(sources.jointsSinceLastTick, sources.joints, reading.read, reading.over);
  }
}

/** Proprioception, normalised per field; a non-finite reading becomes the field's mean (0 after scaling). */
export function prepareProprio(sources: ProprioSources, spec: ProprioPreprocessing, out: Float32Array): void {
  if (out.length !== spec.fields.length) throw new RangeError(`proprio buffer holds ${out.length} floats, needs ${spec.fields.length}`);
  for (let i = 0; i < spec.fields.length; i++) {
    const value = proprioValue(spec.fields[i]!, sources);
    out[i] = Number.isFinite(value) ? (value - spec.mean[i]!) / spec.std[i]! : 0;
  }
}
