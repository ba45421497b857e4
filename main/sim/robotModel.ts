// The simulated robot's model, as a ROS robot's /robot_description gives it: a URDF generated from
// the sim's own constants (the drive train's body and wheels; each sensor where the sim casts its
// rays from), so that the model a 3D view draws, the frames the sensors are stamped in and the
// transforms on /tf_static agree with what is simulated. base_link, on the floor under the robot's
// centre, is the root; fixed joints hold the sensors, continuous ones the wheels (named as in
// /joint_states). Simple shapes (cylinders, boxes) with coloured materials; where the robot serves its
// files (the foxglove sim: foxglove_bridge's assets) the LiDAR housing is a mesh (robotMeshes.ts), with a
// collision cylinder of its size that a viewer can draw when it cannot fetch the mesh.
import { CAMERA_FORWARD_OFFSET_M, CAMERA_FRAME_ID, CAMERA_HEIGHT_M } from './camera.ts';
import { DIFF_DRIVE_SPEC, WHEEL_JOINT_NAMES } from './diffDrive.ts';
import { IMU_FRAME_ID } from './imu.ts';
import { LASER_FRAME_ID, LASER_MOUNT_HEIGHT_M } from './lidar.ts';
import { BASE_FRAME_ID } from './odometry.ts';
import type { RangeCloudOptions } from './rangeCloud.ts';

export type Xyz = readonly [number, number, number];

/** A joint's origin as URDF writes it: the child frame in the parent's, translation in metres, then roll, pitch and yaw in radians. */
export interface JointOrigin {
  xyzM: Xyz;
  rpyRad: Xyz;
}

export interface RobotJoint {
  name: string;
  type: 'fixed' | 'continuous';
  parentFrame: string;
  childFrame: string;
  /** The child's pose in the parent's frame, at joint position zero. */
  origin: JointOrigin;
  /** The axis a continuous joint turns about, in the child's frame (positive: the robot rolls forward); undefined when fixed. */
  axis: Xyz | undefined;
}

export interface RobotModel {
  name: string;
  rootFrame: string;
  joints: readonly RobotJoint[];
  /** The URDF's XML, as /robot_description carries it. */
  urdf: string;
}

/** What of the robot's configuration its model shows: the 3D range sensor on its mast (the cloud is stamped in base_link). */
export interface RobotModelOptions {
  points: Pick<RangeCloudOptions, 'enabled' | 'mountHeightM'>;
  /** The LiDAR housing's mesh, by the URI the robot serves it at; absent: a cylinder (the robot serves no files). */
  laserMeshUri?: string;
}

export const ROBOT_MODEL_NAME = 'reins_sim';
/** The node that holds the model as its robot_description parameter, as on a ROS 2 robot. */
export const ROBOT_STATE_PUBLISHER_NODE = '/robot_state_publisher';
export const LEFT_WHEEL_FRAME_ID = 'left_wheel';
export const RIGHT_WHEEL_FRAME_ID = 'right_wheel';

// Sizes the sim does not simulate (it casts each sensor's rays from a point): what the parts look like.
const WHEEL_WIDTH_M = 0.03;
export const LASER_RADIUS_M = 0.035;
export const LASER_HEIGHT_M = 0.04;
const CAMERA_SIZE_M: Xyz = [0.03, 0.08, 0.03];
const IMU_SIZE_M: Xyz = [0.03, 0.03, 0.01];
const RANGE_SENSOR_RADIUS_M = 0.04;
const RANGE_SENSOR_HEIGHT_M = 0.05;
/** The side of the square posts that hold the camera and the range sensor above what is below them. */
const POST_SIDE_M = 0.012;

type Rgba = readonly [number, number, number, number];
const MATERIALS = {
  body: [0.25, 0.27, 0.31, 1],
  wheel: [0.08, 0.08, 0.08, 1],
  sensor: [0.12, 0.12, 0.14, 1],
  laser: [0.15, 0.35, 0.75, 1],
  imu: [0.2, 0.6, 0.3, 1],
} as const satisfies Record<string, Rgba>;
type MaterialName = keyof typeof MATERIALS;

type Shape = { kind: 'cylinder'; radiusM: number; lengthM: number } | { kind: 'box'; sizeM: Xyz } | { kind: 'mesh'; uri: string };

interface Visual {
  name: string;
  xyzM: Xyz;
  rpyRad: Xyz;
  shape: Shape;
  material: MaterialName;
}

const UPRIGHT: Xyz = [0, 0, 0];
/** A URDF cylinder stands along z; a wheel's lies along y. */
const ON_ITS_SIDE: Xyz = [Math.PI / 2, 0, 0];

export function robotModel(options: RobotModelOptions): RobotModel {
  const { bodyRadiusM, bodyHeightM, wheelRadiusM, trackM } = DIFF_DRIVE_SPEC;
  const [leftWheelJoint, rightWheelJoint] = WHEEL_JOINT_NAMES;
  if (leftWheelJoint === undefined || rightWheelJoint === undefined) throw new Error('the drive train names no wheel joints');
  const joints: RobotJoint[] = [
    fixedJoint('laser_joint', LASER_FRAME_ID, [0, 0, LASER_MOUNT_HEIGHT_M]),
    fixedJoint('camera_joint', CAMERA_FRAME_ID, [CAMERA_FORWARD_OFFSET_M, 0, CAMERA_HEIGHT_M]),
    // imu.ts reads the body's motion at its centre.
    fixedJoint('imu_joint', IMU_FRAME_ID, [0, 0, bodyHeightM / 2]),
    wheelJoint(leftWheelJoint, LEFT_WHEEL_FRAME_ID, [0, trackM / 2, wheelRadiusM]),
    wheelJoint(rightWheelJoint, RIGHT_WHEEL_FRAME_ID, [0, -trackM / 2, wheelRadiusM]),
  ];

  const body: Visual[] = [{ name: 'body', xyzM: [0, 0, bodyHeightM / 2], rpyRad: UPRIGHT, shape: cylinder(bodyRadiusM, bodyHeightM), material: 'body' }];
  if (options.points.enabled) {
    const { mountHeightM } = options.points;
    body.push({
      name: 'range_sensor',
      xyzM: [0, 0, mountHeightM],
      rpyRad: UPRIGHT,
      shape: cylinder(RANGE_SENSOR_RADIUS_M, RANGE_SENSOR_HEIGHT_M),
      material: 'sensor',
    });
    body.push(...post('range_sensor_mast', [0, 0], LASER_MOUNT_HEIGHT_M + LASER_HEIGHT_M / 2, mountHeightM - RANGE_SENSOR_HEIGHT_M / 2));
  }
  const cameraBottomM = -CAMERA_SIZE_M[2] / 2;
  const laser: Visual = { name: 'laser', xyzM: [0, 0, 0], rpyRad: UPRIGHT, shape: cylinder(LASER_RADIUS_M, LASER_HEIGHT_M), material: 'laser' };
  const visuals: Readonly<Record<string, readonly Visual[]>> = {
    [BASE_FRAME_ID]: body,
    [LASER_FRAME_ID]: [options.laserMeshUri !== undefined ? { ...laser, shape: { kind: 'mesh', uri: options.laserMeshUri } } : laser],
    [CAMERA_FRAME_ID]: [
      { name: 'camera', xyzM: [0, 0, 0], rpyRad: UPRIGHT, shape: { kind: 'box', sizeM: CAMERA_SIZE_M }, material: 'sensor' },
      ...post('camera_post', [0, 0], bodyHeightM - CAMERA_HEIGHT_M, cameraBottomM),
    ],
    [IMU_FRAME_ID]: [{ name: 'imu', xyzM: [0, 0, 0], rpyRad: UPRIGHT, shape: { kind: 'box', sizeM: IMU_SIZE_M }, material: 'imu' }],
    [LEFT_WHEEL_FRAME_ID]: [wheelVisual()],
    [RIGHT_WHEEL_FRAME_ID]: [wheelVisual()],
  };
  const collisions: Readonly<Record<string, Visual>> = {
    [BASE_FRAME_ID]: body[0]!,
    ...(options.laserMeshUri !== undefined ? { [LASER_FRAME_ID]: laser } : {}),
  };
  return { name: ROBOT_MODEL_NAME, rootFrame: BASE_FRAME_ID, joints, urdf: urdfText(ROBOT_MODEL_NAME, visuals, collisions, joints) };
}

function fixedJoint(name: string, childFrame: string, xyzM: Xyz): RobotJoint {
  return { name, type: 'fixed', parentFrame: BASE_FRAME_ID, childFrame, origin: { xyzM, rpyRad: [0, 0, 0] }, axis: undefined };
}

/** A wheel on its axle: it turns about y, positive as the robot rolls forward (as /joint_states counts it). */
function wheelJoint(name: string, childFrame: string, xyzM: Xyz): RobotJoint {
  return { name, type: 'continuous', parentFrame: BASE_FRAME_ID, childFrame, origin: { xyzM, rpyRad: [0, 0, 0] }, axis: [0, 1, 0] };
}

function wheelVisual(): Visual {
  return { name: 'wheel', xyzM: [0, 0, 0], rpyRad: ON_ITS_SIDE, shape: cylinder(DIFF_DRIVE_SPEC.wheelRadiusM, WHEEL_WIDTH_M), material: 'wheel' };
}

function cylinder(radiusM: number, lengthM: number): Shape {
  return { kind: 'cylinder', radiusM, lengthM };
}

/** A square post standing from one height to another, in its link's frame; none where there is no gap to fill. */
function post(name: string, [xM, yM]: readonly [number, number], fromZM: number, toZM: number): Visual[] {
  const lengthM = toZM - fromZM;
  if (!(lengthM > 1e-6)) return [];
  return [
    { name, xyzM: [xM, yM, (fromZM + toZM) / 2], rpyRad: UPRIGHT, shape: { kind: 'box', sizeM: [POST_SIDE_M, POST_SIDE_M, lengthM] }, material: 'sensor' },
  ];
}

function urdfText(
  name: string,
  visuals: Readonly<Record<string, readonly Visual[]>>,
  collisions: Readonly<Record<string, Visual>>,
  joints: readonly RobotJoint[],
): string {
  const lines = ['<?xml version="1.0"?>', `<robot name="${name}">`];
  for (const [material, rgba] of Object.entries(MATERIALS)) lines.push(`  <material name="${material}"><color rgba="${numbers(rgba)}"/></material>`);
  for (const [link, linkVisuals] of Object.entries(visuals)) {
    lines.push(`  <link name="${link}">`);
    for (const visual of linkVisuals) {
      lines.push(`    <visual name="${visual.name}">`, ...placedShape(visual), `      <material name="${visual.material}"/>`, '    </visual>');
    }
    const collision = collisions[link];
    if (collision !== undefined) lines.push(`    <collision name="${collision.name}">`, ...placedShape(collision), '    </collision>');
    lines.push('  </link>');
  }
  for (const joint of joints) {
    lines.push(
      `  <joint name="${joint.name}" type="${joint.type}">`,
      `    <parent link="${joint.parentFrame}"/>`,
      `    <child link="${joint.childFrame}"/>`,
      `    <origin xyz="${numbers(joint.origin.xyzM)}" rpy="${numbers(joint.origin.rpyRad)}"/>`,
    );
    if (joint.axis !== undefined) lines.push(`    <axis xyz="${numbers(joint.axis)}"/>`);
    lines.push('  </joint>');
  }
  lines.push('</robot>', '');
  return lines.join('\n');
}

function placedShape(visual: Visual): string[] {
  const { shape } = visual;
  const geometry =
    shape.kind === 'cylinder'
      ? `<cylinder radius="${numbers([shape.radiusM])}" length="${numbers([shape.lengthM])}"/>`
      : shape.kind === 'box'
        ? `<box size="${numbers(shape.sizeM)}"/>`
        : `<mesh filename="${shape.uri}"/>`;
  return [`      <origin xyz="${numbers(visual.xyzM)}" rpy="${numbers(visual.rpyRad)}"/>`, `      <geometry>${geometry}</geometry>`];
}

/** Space-separated, to a micrometre (or microradian): no float noise such as 0.30000000000000004. */
function numbers(values: readonly number[]): string {
  return values.map((value) => String(Number(value.toFixed(6)))).join(' ');
}
