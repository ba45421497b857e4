// Liveness in the observation (issue 30): per modality, how much its stream changed since the previous
// tick and how old its newest message is, written into the embedding's liveness slot. The world model
// predicts them like any other input, so a camera whose picture stops changing while the robot drives
// is a prediction error of the model, not a separate rule. A stream that is merely quiet (a robot that
// stands still) changes little too: telling the two apart is the model's, from what else it sees.
import type { ObservationFrame } from '../core/frame.ts';
import { MODALITIES, type EmbeddingSlot, type Modality } from '../core/perception.ts';
import { LIVENESS_SIZE } from './manifest.ts';

/**
 * A change is compared with the previous tick's only if that tick is at most this old: after a pause
 * (a new episode, a stalled loop) there is nothing to compare with, and the change reads 0.
 */
export const LIVENESS_GAP_MS = 1000;
/** Ages are written as a share of this (and capped at 1): the synchroniser's staleness limits are 200–500 ms. */
export const LIVENESS_AGE_SCALE_MS = 500;
/** The change's floor under the logarithm: a change of 0 reads 0, one of 1e-3 about 0.1. */
const CHANGE_FLOOR = 1e-3;
/**
 * What a new message that repeats the previous one bit for bit reads: no live sensor does that (a
 * camera's pixels, a LiDAR's ranges and an IMU's readings carry fresh noise every message), so a stream
 * whose new messages carry exactly what the last one did (a driver republishing a stuck buffer) reads
 * apart from every change a live stream makes, where the log scale would put a mean change of 1e-6. In
 * standardised units it lies about 12 spreads below the camera's mean change, where a change of 0 on
 * the scale alone lay 5 below it: close enough that a model expecting a quiet view (2 below) missed it
 * by little. The same message handed to two ticks (none came between them: a stream slower than the
 * tick, or a phase slip of one as fast; told by its receive time) is no repeat: nothing new came, its
 * change reads 0 and its age grows.
 */
export const REPEATED_CHANGE = -1;

/**
 * A mean absolute change of the prepared input (its units: standardised pixels, ranges as shares of
 * the maximum, standardised proprioception) as a number from 0 (nothing changed) to about 1 (a change
 * of one unit on average): log-scaled, so a picture repeated bit for bit (0), one redrawn with fresh
 * sensor noise (a few hundredths) and a view that moves (tenths) lie apart.
 */
export function changeFeature(meanAbsoluteChange: number): number {
  if (!(meanAbsoluteChange > 0)) return 0;
  return Math.max(0, Math.log10(meanAbsoluteChange + CHANGE_FLOOR) / 3 + 1);
}

export function ageFeature(ageMs: number): number {
  return Math.min(1, Math.max(0, ageMs / LIVENESS_AGE_SCALE_MS));
}

/** The age of the newest message a modality reads (for proprioception, the older of the IMU and the wheels). */
export function modalityAgeMs(frame: ObservationFrame, modality: Modality): number | undefined {
  if (modality === 'camera') return frame.camera?.ageMs;
  if (modality === 'lidar') return frame.scan?.ageMs;
  const ages = [frame.imu?.ageMs, frame.joints?.ageMs].filter((age): age is number => age !== undefined);
  return ages.length > 0 ? Math.max(...ages) : undefined;
}

/** The liveness slot split by modality, named `liveness-<modality>`: two floats each (change, age). */
export function livenessSlots(offset: number): EmbeddingSlot[] {
  return MODALITIES.map((modality, i) => ({ name: `liveness-${modality}`, offset: offset + 2 * i, size: 2 }));
}

/** The modality a `liveness-<modality>` slot speaks for; undefined for any other slot. */
export function livenessModality(slotName: string): Modality | undefined {
  const modality = slotName.startsWith('liveness-') ? slotName.slice('liveness-'.length) : undefined;
  return (MODALITIES as readonly string[]).includes(modality ?? '') ? (modality as Modality) : undefined;
}

/** When the newest messages a modality reads this tick were received (for proprioception, the IMU's and the wheels'). */
function receiveTimesMs(frame: ObservationFrame, modality: Modality): number[] {
  const samples = modality === 'camera' ? [frame.camera] : modality === 'lidar' ? [frame.scan] : [frame.imu, frame.joints];
  return samples.flatMap((sample) => (sample === undefined ? [] : [sample.received.receiveTimeMs]));
}

function sameMessages(before: readonly number[], now: readonly number[]): boolean {
  return before.length === now.length && before.every((receivedMs, i) => receivedMs === now[i]);
}

export class LivenessTracker {
  private readonly previous = new Map<Modality, { input: Float32Array; timeMs: number; receivedMs: number[] }>();

  /**
   * Writes the slot's six floats for one tick at `offset`: for each modality its change since the
   * previous tick's prepared input (`REPEATED_CHANGE` for a new message repeating the last bit for
   * bit; 0 where there is nothing to compare with, or nothing new came) and its age; a modality with no
   * input this tick reads 0 and 0 (its presence flag says it is missing) and leaves nothing to compare
   * the next tick with.
   */
  write(frame: ObservationFrame, inputs: Readonly<Partial<Record<Modality, Float32Array>>>, out: Float32Array, offset: number): void {
    if (offset + LIVENESS_SIZE > out.length) throw new RangeError(`the liveness slot at ${offset} lies beyond the ${out.length}-float embedding`);
    MODALITIES.forEach((modality, i) => {
      const at = offset + 2 * i;
      const input = inputs[modality];
      const ageMs = modalityAgeMs(frame, modality);
      if (input === undefined || ageMs === undefined) {
        out[at] = 0;
        out[at + 1] = 0;
        this.previous.delete(modality);
        return;
      }
      const before = this.previous.get(modality);
      const receivedMs = receiveTimesMs(frame, modality);
      const elapsedMs = before === undefined ? Infinity : frame.timeMs - before.timeMs;
      let change = 0;
      if (before !== undefined && before.input.length === input.length && elapsedMs > 0 && elapsedMs <= LIVENESS_GAP_MS) {
        let sum = 0;
        for (let k = 0; k < input.length; k++) sum += Math.abs(input[k]! - before.input[k]!);
        if (sum > 0) change = changeFeature(sum / input.length);
        else if (!sameMessages(before.receivedMs, receivedMs)) change = REPEATED_CHANGE;
      }
      out[at] = change;
      out[at + 1] = ageFeature(ageMs);
      if (before !== undefined && before.input.length === input.length) {
        before.input.set(input);
        before.timeMs = frame.timeMs;
        before.receivedMs = receivedMs;
      } else this.previous.set(modality, { input: Float32Array.from(input), timeMs: frame.timeMs, receivedMs });
    });
  }

  /**
   * Takes back what `write` wrote for a modality whose encoder then failed this tick: it reads 0 and 0,
   * as a missing stream does, and leaves nothing to compare the next tick with.
   */
  forget(modality: Modality, out: Float32Array, offset: number): void {
    const at = offset + 2 * MODALITIES.indexOf(modality);
    out[at] = 0;
    out[at + 1] = 0;
    this.previous.delete(modality);
  }

  reset(): void {
    this.previous.clear();
  }
}
