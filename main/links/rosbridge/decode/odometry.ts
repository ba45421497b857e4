// nav_msgs/Odometry → Odometry: the planar pose (x, y, yaw) in the odometry frame and the body-frame
// forward and turn rates a differential-drive robot reports. Covariances are not carried.
import type { Odometry } from '../../../core/messages.ts';
import { decodeWith, readHeader, type Decoded } from './decoded.ts';
import { readQuaternion, readVector3, yawRad } from './geometry.ts';

const ODOM_HINT = 'Check the odometry publisher: pose and twist must be finite numbers.';

export function decodeOdometry(wire: unknown): Decoded<Odometry> {
  return decodeWith(wire, 'nav_msgs/Odometry', ODOM_HINT, (message) => {
    const header = readHeader(message);
    const pose = message.object('pose').object('pose');
    const position = readVector3(pose, 'position');
    const twist = message.object('twist').object('twist');
    return {
      msg: {
        kind: 'Odometry',
        frameId: header.frameId,
        childFrameId: message.string('child_frame_id'),
        odomFromBaseXM: position.x,
        odomFromBaseYM: position.y,
        odomFromBaseYawRad: yawRad(readQuaternion(pose, 'orientation')),
        linearMps: readVector3(twist, 'linear').x,
        angularRadps: readVector3(twist, 'angular').z,
      },
      stampMs: header.stampMs,
    };
  });
}
