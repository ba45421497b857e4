// sensor_msgs/JointState → JointState. By ROS convention an array is either empty (the robot does not
// measure that quantity) or has one value per joint; values must be finite.
import type { JointState } from '../../../core/messages.ts';
import { DecodeProblem, decodeWith, readHeader, type Decoded } from './decoded.ts';
import type { WireObject } from './wireFields.ts';

const JOINTS_HINT = 'Check the joint state publisher: position, velocity and effort must be empty or have one finite value per name.';

export function decodeJointState(wire: unknown): Decoded<JointState> {
  return decodeWith(wire, 'sensor_msgs/JointState', JOINTS_HINT, (message) => {
    const header = readHeader(message);
    const names = message.strings('name');
    return {
      msg: {
        kind: 'JointState',
        names,
        positionsRad: perJoint(message, 'position', names.length),
        velocitiesRadps: perJoint(message, 'velocity', names.length),
        effortsNm: perJoint(message, 'effort', names.length),
      },
      stampMs: header.stampMs,
    };
  });
}

function perJoint(message: WireObject, name: string, jointCount: number): Float64Array {
  const values = message.float64s(name);
  if (values.length !== 0 && values.length !== jointCount) {
    throw new DecodeProblem(`${name} has ${values.length} values for ${jointCount} joints`);
  }
  const bad = values.findIndex((value) => !Number.isFinite(value));
  if (bad >= 0) throw new DecodeProblem(`${name}[${bad}] is ${values[bad]}, not a finite number`);
  return values;
}
