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

export interface StreamSample<M extends RobotMessage> {
  received: Received<M>;
  ageMs: number;
}

export type ObservationFrame = {
  timeMs: number;
  missing: StreamRole[];
} & { [R in StreamRole]?: StreamSample<RoleMessages[R]> };
