// sensor_msgs/Imu → Imu. Covariances are not carried; every value must be finite.
import type { Imu } from '../../../core/messages.ts';
import { decodeWith, readHeader, type Decoded } from './decoded.ts';
import { readQuaternion, readVector3 } from './geometry.ts';

const IMU_HINT = 'Check the IMU driver: orientation, angular_velocity and linear_acceleration must be finite numbers.';

export function decodeImu(wire: unknown): Decoded<Imu> {
  return decodeWith(wire, 'sensor_msgs/Imu', IMU_HINT, (message) => {
    const header = readHeader(message);
    return {
      msg: {
        kind: 'Imu',
        frameId: header.frameId,
        orientation: readQuaternion(message, 'orientation'),
        angularVelocityRadps: readVector3(message, 'angular_velocity'),
        linearAccelerationMps2: readVector3(message, 'linear_acceleration'),
      },
      stampMs: header.stampMs,
    };
  });
}
