// What each modality reads from the tick's frame, written into its encoder's input buffer. A stream
// the synchroniser marked missing (never arrived, or stale) means no input this tick: the caller puts
// zeros and a 0 flag in the embedding, never the previous tick's features.
import type { ObservationFrame } from '../core/frame.ts';
import type { DriveCommand, Imu, JointState } from '../core/messages.ts';
import type { EncoderEntry } from './manifest.ts';
import { prepareImage, prepareProprio, prepareRanges, proprioFieldStream } from './preprocess.ts';

/** Stands in for a stream the encoder's fields never read. */
const NO_JOINTS: JointState = {
  kind: 'JointState',
  names: [],
  positionsRad: new Float64Array(0),
  velocitiesRadps: new Float64Array(0),
  effortsNm: new Float64Array(0),
};
const NO_IMU: Imu = {
  kind: 'Imu',
  frameId: '',
  orientation: { x: 0, y: 0, z: 0, w: 1 },
  angularVelocityRadps: { x: 0, y: 0, z: 0 },
  linearAccelerationMps2: { x: 0, y: 0, z: 0 },
};

/**
 * Fills `out` for one encoder from the frame; false when a stream it needs is missing. Throws a
 * RangeError for a message it cannot read (an image with too few bytes, say).
 */
export function prepareModalityInput(entry: EncoderEntry, frame: ObservationFrame, lastCommand: DriveCommand, out: Float32Array): boolean {
  const prep = entry.preprocessing;
  switch (prep.kind) {
    case 'image': {
      const image = frame.camera?.received.msg;
      if (!image) return false;
      prepareImage(image, prep, out);
      return true;
    }
    case 'ranges': {
      const scan = frame.scan?.received.msg;
      if (!scan) return false;
      prepareRanges(scan, prep, out);
      return true;
    }
    case 'proprio': {
      const joints = frame.joints?.received.msg;
      const imu = frame.imu?.received.msg;
      if (!joints && prep.fields.some((field) => proprioFieldStream(field) === 'joints')) return false;
      if (!imu && prep.fields.some((field) => proprioFieldStream(field) === 'imu')) return false;
      prepareProprio(
        {
          joints: joints ?? NO_JOINTS,
          imu: imu ?? NO_IMU,
          command: lastCommand,
          ...(frame.imu?.sinceLastTick ? { imuSinceLastTick: frame.imu.sinceLastTick } : {}),
          ...(frame.joints?.sinceLastTick ? { jointsSinceLastTick: frame.joints.sinceLastTick } : {}),
        },
        prep,
        out,
      );
      return true;
    }
  }
}
