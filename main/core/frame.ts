// One tick's observation: the newest message of each stream with its age (DESIGN §2 step 2). Every
// layer reads it — perception encodes it, policies act on it, memory keeps what it held — so it lives here.
import type { Image, Imu, JointState, LaserScan, Odometry, Received, RobotMessage } from './messages.ts';

export type StreamRole = 'camera' | 'scan' | 'joints' | 'imu' | 'odom';
export const STREAM_ROLES: readonly StreamRole[] = ['camera', 'scan', 'joints', 'imu', 'odom'];

export interface RoleMessages {
  camera: Image;
  scan: LaserScan;
  joints: JointState;
  imu: Imu;
  odom: Odometry;
}

/**
 * The streams perception reads over the whole tick, not at its newest message: the IMU and the wheels
 * publish faster than the tick, and one latest sample would miss what happened between two ticks (a
 * shove). Odometry is made of the same wheel readings and perception does not read it.
 */
export type HighRateRole = 'imu' | 'joints';
export const HIGH_RATE_ROLES: readonly HighRateRole[] = ['imu', 'joints'];

export interface StreamSample<M extends RobotMessage> {
  received: Received<M>;
  ageMs: number;
  /**
   * For the IMU and the wheels: every message received since the previous tick's frame, oldest first
   * (the newest is `received`); empty when none came since. Perception summarises them (peak, mean, last).
   */
  sinceLastTick?: readonly M[];
}

export type ObservationFrame = {
  timeMs: number;
  missing: StreamRole[];
} & { [R in StreamRole]?: StreamSample<RoleMessages[R]> };
