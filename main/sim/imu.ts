// An IMU on the robot's centre: orientation from the true heading (a fused IMU holds yaw well over
// minutes), a gyro with a small bias, and an accelerometer that feels speed changes, the centripetal
// pull of turns and gravity. The accelerometer is what notices a bump into a wall or a shove.
import type { Imu } from '../core/messages.ts';
import type { SeededRandom } from './random.ts';

/** What the body did over the last physics step, in the robot frame. */
export interface BodyMotion {
  yawRad: number;
  forwardMps: number;
  angularRadps: number;
  /** The body's acceleration in the robot frame, centripetal pull included. */
  forwardAccelMps2: number;
  leftwardAccelMps2: number;
}

/** The frame IMU readings are stamped in; the IMU sits at the body's centre. */
export const IMU_FRAME_ID = 'imu_link';
const GRAVITY_MPS2 = 9.81;
const YAW_NOISE_SIGMA_RAD = 0.002;
const GYRO_BIAS_RADPS = 0.003;
const GYRO_NOISE_SIGMA_RADPS = 0.005;
const ACCEL_NOISE_SIGMA_MPS2 = 0.05;

/** One IMU reading of the body's motion; `random` supplies the sensor noise. */
export function sampleImu(motion: BodyMotion, random: SeededRandom): Imu {
  const yawRad = motion.yawRad + YAW_NOISE_SIGMA_RAD * random.gaussian();
  return {
    kind: 'Imu',
    frameId: IMU_FRAME_ID,
    orientation: { x: 0, y: 0, z: Math.sin(yawRad / 2), w: Math.cos(yawRad / 2) },
    angularVelocityRadps: {
      x: GYRO_NOISE_SIGMA_RADPS * random.gaussian(),
      y: GYRO_NOISE_SIGMA_RADPS * random.gaussian(),
      z: motion.angularRadps + GYRO_BIAS_RADPS + GYRO_NOISE_SIGMA_RADPS * random.gaussian(),
    },
    linearAccelerationMps2: {
      x: motion.forwardAccelMps2 + ACCEL_NOISE_SIGMA_MPS2 * random.gaussian(),
      y: motion.leftwardAccelMps2 + ACCEL_NOISE_SIGMA_MPS2 * random.gaussian(),
      z: GRAVITY_MPS2 + ACCEL_NOISE_SIGMA_MPS2 * random.gaussian(),
    },
  };
}
