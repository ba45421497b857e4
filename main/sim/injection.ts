// Events a test or benchmark injects into the simulated robot (through the `/sim/inject` service or
// the lockstep API) to produce the moments the cockpit must handle: shoves, sudden obstacles, frozen
// or blind sensors, floods and stalls. Durations are in simulated time.
import type { SensorStream } from './sensorStream.ts';

export type SimInjection =
  /** Kicks the body: an instantaneous velocity change in the robot's frame (forward, leftward). */
  | { kind: 'shove'; forwardMps: number; leftwardMps: number }
  /** Puts a cylindrical obstacle on the robot's heading, `distanceM` from its centre. */
  | { kind: 'drop-obstacle'; distanceM: number; radiusM: number }
  /**
   * The camera keeps publishing its last frame: unchanged, bit for bit, or (freshNoise) the view it
   * showed drawn again with new pixel noise each frame, as a real camera's stuck pipeline looks.
   */
  | { kind: 'freeze-camera'; durationMs: number; freshNoise?: boolean }
  /** Every LiDAR beam reads NaN (no return). */
  | { kind: 'blackout-lidar'; durationMs: number }
  /** One stream publishes at `rateHz`, far above its declared rate. */
  | { kind: 'flood'; stream: SensorStream; rateHz: number; durationMs: number }
  /** Nothing is published at all (the robot keeps moving on its last command, up to its timeout). */
  | { kind: 'stall'; durationMs: number };

export type SimInjectionKind = SimInjection['kind'];

/** Above these an injection would break the simulation rather than test the cockpit. */
const MAX_SHOVE_MPS = 3;
const MAX_DROPPED_RADIUS_M = 1;
const MIN_FLOOD_RATE_HZ = 0.1;
const MAX_FLOOD_RATE_HZ = 10_000;
const MAX_DURATION_MS = 600_000;
/** Typed as a record so that a new stream cannot be forgotten here. */
const KNOWN_STREAMS: Readonly<Record<SensorStream, true>> = { camera: true, scan: true, points: true, joints: true, imu: true, odom: true };

/** Throws a RangeError that names the bad field when an injection (e.g. from a service call) makes no sense. */
export function checkInjection(injection: SimInjection): void {
  const within = (name: string, value: number, min: number, max: number): void => {
    if (!(Number.isFinite(value) && value >= min && value <= max)) {
      const range = max === Infinity ? `≥ ${min}` : `from ${min} to ${max}`;
      throw new RangeError(`${injection.kind}: ${name} must be a number ${range}, got ${value}`);
    }
  };
  switch (injection.kind) {
    case 'shove':
      within('forwardMps', injection.forwardMps, -MAX_SHOVE_MPS, MAX_SHOVE_MPS);
      within('leftwardMps', injection.leftwardMps, -MAX_SHOVE_MPS, MAX_SHOVE_MPS);
      return;
    case 'drop-obstacle':
      within('radiusM', injection.radiusM, 0.01, MAX_DROPPED_RADIUS_M);
      within('distanceM', injection.distanceM, 0, Infinity);
      return;
    case 'flood':
      if (!Object.hasOwn(KNOWN_STREAMS, injection.stream)) {
        throw new RangeError(`flood: unknown stream "${String(injection.stream)}"; streams: ${Object.keys(KNOWN_STREAMS).join(', ')}`);
      }
      within('rateHz', injection.rateHz, MIN_FLOOD_RATE_HZ, MAX_FLOOD_RATE_HZ);
      within('durationMs', injection.durationMs, 0, MAX_DURATION_MS);
      return;
    case 'freeze-camera':
      if (injection.freshNoise !== undefined && typeof injection.freshNoise !== 'boolean')
        throw new RangeError(`freeze-camera: freshNoise must be true or false, got ${String(injection.freshNoise)}`);
      within('durationMs', injection.durationMs, 0, MAX_DURATION_MS);
      return;
    case 'blackout-lidar':
    case 'stall':
      within('durationMs', injection.durationMs, 0, MAX_DURATION_MS);
      return;
    default: {
      // Only reachable from untyped input; the type says every kind is handled above.
      const { kind } = injection as { kind: unknown };
      throw new RangeError(`unknown injection kind "${String(kind)}"`);
    }
  }
}
