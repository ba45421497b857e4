// The two clips of a preference question, read back from the session's recording by time: camera
// frames (served one by one as PNG or as the robot's own JPEG/PNG), and the scans and odometry path
// the cockpit draws top-down beside them. Read once per question and kept while it is open.
import { encode as encodePng } from 'fast-png';
import type { RecordedMessage } from '../recording/recordingReader.ts';

/** At most this many camera frames per clip: enough to see the motion, bounded for the wire. */
export const MAX_CLIP_FRAMES = 30;
/** Scans are thinned to at most this many beams for the top-down view. */
const MAX_CLIP_BEAMS = 180;

export interface ClipTopics {
  camera: string;
  scan: string;
  odom: string;
}

/** Where clips come from: the recording's messages of some topics in a time range. */
export interface ClipRecording {
  messages(range: { topics: readonly string[]; startMs: number; endMs: number }): Promise<RecordedMessage[]>;
}

export interface ClipFrameImage {
  contentType: 'image/png' | 'image/jpeg';
  bytes: Uint8Array;
}

export interface ClipScan {
  timeMs: number;
  angleMinRad: number;
  angleIncrementRad: number;
  rangeMaxM: number;
  /** Metres; null where the beam has no valid reading. */
  rangesM: Array<number | null>;
}

export interface Clip {
  startMs: number;
  endMs: number;
  frames: Array<{ timeMs: number; image: () => ClipFrameImage }>;
  scans: ClipScan[];
  path: Array<{ timeMs: number; xM: number; yM: number; yawRad: number }>;
}

export async function readClip(recording: ClipRecording, topics: ClipTopics, span: { startMs: number; endMs: number }): Promise<Clip> {
  const messages = await recording.messages({ topics: [topics.camera, topics.scan, topics.odom], startMs: span.startMs, endMs: span.endMs });
  const frames: Clip['frames'] = [];
  const scans: ClipScan[] = [];
  const path: Clip['path'] = [];
  for (const message of messages) {
    if (message.topic === topics.camera) {
      const image = cameraImage(message.value);
      if (image) frames.push({ timeMs: message.logTimeMs, image });
    } else if (message.topic === topics.scan) {
      const scan = clipScan(message.value, message.logTimeMs);
      if (scan) scans.push(scan);
    } else if (message.topic === topics.odom) {
      const pose = odomPose(message.value, message.logTimeMs);
      if (pose) path.push(pose);
    }
  }
  return { ...span, frames: evenlyThinned(frames, MAX_CLIP_FRAMES), scans: evenlyThinned(scans, MAX_CLIP_FRAMES), path };
}

function evenlyThinned<T>(items: T[], most: number): T[] {
  if (items.length <= most) return items;
  return Array.from({ length: most }, (_, i) => items[Math.round((i * (items.length - 1)) / (most - 1))]!);
}

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null;
}

/** A sensor_msgs/Image (rgb8, bgr8, mono8) as a lazily encoded PNG, or a CompressedImage as it came. */
function cameraImage(value: unknown): (() => ClipFrameImage) | undefined {
  if (!isFields(value) || !(value['data'] instanceof Uint8Array)) return undefined;
  const data = value['data'];
  if (typeof value['format'] === 'string') {
    const contentType = value['format'].toLowerCase().includes('png') ? 'image/png' : 'image/jpeg';
    return () => ({ contentType, bytes: data });
  }
  const width = Number(value['width']);
  const height = Number(value['height']);
  const step = Number(value['step']);
  const encoding = String(value['encoding']);
  const channels = encoding === 'mono8' ? 1 : encoding === 'rgb8' || encoding === 'bgr8' ? 3 : 0;
  if (channels === 0 || !(width > 0 && height > 0) || step < width * channels || data.length < step * height) return undefined;
  let png: ClipFrameImage | undefined;
  return () => {
    if (png) return png;
    const rgb = new Uint8Array(width * height * 3);
    const [r, g, b] = encoding === 'bgr8' ? [2, 1, 0] : encoding === 'mono8' ? [0, 0, 0] : [0, 1, 2];
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const from = y * step + x * channels;
        const to = (y * width + x) * 3;
        rgb[to] = data[from + r]!;
        rgb[to + 1] = data[from + g]!;
        rgb[to + 2] = data[from + b]!;
      }
    }
    png = { contentType: 'image/png', bytes: encodePng({ width, height, data: rgb, channels: 3, depth: 8 }) };
    return png;
  };
}

function clipScan(value: unknown, timeMs: number): ClipScan | undefined {
  if (!isFields(value)) return undefined;
  const ranges = value['ranges'];
  const angleMinRad = Number(value['angle_min']);
  const angleIncrementRad = Number(value['angle_increment']);
  const rangeMaxM = Number(value['range_max']);
  if (!(ranges instanceof Float32Array || Array.isArray(ranges)) || ![angleMinRad, angleIncrementRad, rangeMaxM].every(Number.isFinite)) return undefined;
  const every = Math.max(1, Math.ceil(ranges.length / MAX_CLIP_BEAMS));
  const rangesM: Array<number | null> = [];
  for (let i = 0; i < ranges.length; i += every) {
    const range = Number(ranges[i]);
    rangesM.push(Number.isFinite(range) ? Math.round(range * 100) / 100 : null);
  }
  return { timeMs, angleMinRad, angleIncrementRad: angleIncrementRad * every, rangeMaxM, rangesM };
}

function odomPose(value: unknown, timeMs: number): Clip['path'][number] | undefined {
  const pose = isFields(value) && isFields(value['pose']) && isFields(value['pose']['pose']) ? value['pose']['pose'] : undefined;
  const position = pose && isFields(pose['position']) ? pose['position'] : undefined;
  const orientation = pose && isFields(pose['orientation']) ? pose['orientation'] : undefined;
  if (!position || !orientation) return undefined;
  const [x, y, qz, qw] = [position['x'], position['y'], orientation['z'], orientation['w']].map(Number) as [number, number, number, number];
  if (![x, y, qz, qw].every(Number.isFinite)) return undefined;
  return { timeMs, xM: x, yM: y, yawRad: 2 * Math.atan2(qz, qw) };
}
