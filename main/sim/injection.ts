// Events a test or benchmark injects into the simulated robot (through the `/sim/inject` service or
// the lockstep API) to produce the moments the cockpit must handle: shoves, sudden obstacles, frozen
// or blind sensors, floods and stalls. Durations are in simulated time.
import type { SensorStream } from './simRobot.ts';

export type SimInjection =
  /** Kicks the body: an instantaneous velocity change in the robot's frame (forward, leftward). */
  | { kind: 'shove'; forwardMps: number; leftwardMps: number }
  /** Puts a cylindrical obstacle on the robot's heading, `distanceM` from its centre. */
  | { kind: 'drop-obstacle'; distanceM: number; radiusM: number }
  /** The camera keeps publishing its last frame unchanged. */
  | { kind: 'freeze-camera'; durationMs: number }
  /** Every LiDAR beam reads NaN (no return). */
  | { kind: 'blackout-lidar'; durationMs: number }
  /** One stream publishes at `rateHz`, far above its declared rate. */
  | { kind: 'flood'; stream: SensorStream; rateHz: number; durationMs: number }
  /** Nothing is published at all (the robot keeps moving on its last command, up to its timeout). */
  | { kind: 'stall'; durationMs: number };

export type SimInjectionKind = SimInjection['kind'];
