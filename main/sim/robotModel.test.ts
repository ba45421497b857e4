// The robot's URDF read as a ROS web tool reads it (roslib's UrdfModel, which ros3djs draws from; its
// XML parsed by @xmldom/xmldom): the tree of links, and joints at the sim's own mounts.
import { describe, expect, it } from 'vitest';
import { ROSLIB } from '../links/rosbridge/roslib.ts';
import { CAMERA_FORWARD_OFFSET_M, CAMERA_HEIGHT_M } from './camera.ts';
import { DIFF_DRIVE_SPEC, WHEEL_JOINT_NAMES } from './diffDrive.ts';
import { LASER_MOUNT_HEIGHT_M } from './lidar.ts';
import { DEFAULT_RANGE_CLOUD_OPTIONS } from './rangeCloud.ts';
import { quaternionFromRpy } from './robotFrames.ts';
import { LIDAR_HOUSING_URI } from './robotMeshes.ts';
import { LASER_HEIGHT_M, LASER_RADIUS_M, robotModel } from './robotModel.ts';
import { SimRobot } from './simRobot.ts';

type ParsedModel = InstanceType<typeof ROSLIB.UrdfModel>;

function parse(urdf: string): ParsedModel {
  return new ROSLIB.UrdfModel({ string: urdf });
}

function jointOf(model: ParsedModel, name: string) {
  const joint = model.joints[name];
  if (joint === undefined) throw new Error(`the URDF has no joint ${name}`);
  const { position, orientation } = joint.origin;
  return {
    type: joint.type,
    parent: joint.parent,
    child: joint.child,
    xyz: [position.x, position.y, position.z],
    quaternion: [orientation.x, orientation.y, orientation.z, orientation.w],
    axis: joint.type === 'fixed' ? undefined : [joint.axis.x, joint.axis.y, joint.axis.z],
  };
}

function expectClose(actual: readonly number[], expected: readonly number[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, index) => expect(value, `component ${index} of [${actual.join(', ')}]`).toBeCloseTo(expected[index]!, 6));
}

describe('the simulated robot model (/robot_description)', () => {
  const { bodyRadiusM, bodyHeightM, wheelRadiusM, trackM } = DIFF_DRIVE_SPEC;
  const model = robotModel({ points: DEFAULT_RANGE_CLOUD_OPTIONS });
  const urdf = parse(model.urdf);

  it('is a tree from base_link: each other link the child of one joint', () => {
    expect(urdf.name).toBe(model.name);
    expect(Object.keys(urdf.links).sort()).toEqual(['base_link', 'camera_link', 'imu_link', 'laser', 'left_wheel', 'right_wheel']);
    const children = Object.values(urdf.joints).map((joint) => joint.child);
    expect(children.sort()).toEqual(['camera_link', 'imu_link', 'laser', 'left_wheel', 'right_wheel']);
    expect(Object.values(urdf.joints).every((joint) => joint.parent === 'base_link')).toBe(true);
  });

  it('mounts each sensor where the sim casts its rays from, and the wheels on the drive train axle', () => {
    const level = [0, 0, 0, 1];
    expect(jointOf(urdf, 'laser_joint')).toMatchObject({ type: 'fixed', parent: 'base_link', child: 'laser' });
    expectClose(jointOf(urdf, 'laser_joint').xyz, [0, 0, LASER_MOUNT_HEIGHT_M]);
    expectClose(jointOf(urdf, 'laser_joint').quaternion, level);
    expect(jointOf(urdf, 'camera_joint')).toMatchObject({ type: 'fixed', child: 'camera_link' });
    expectClose(jointOf(urdf, 'camera_joint').xyz, [CAMERA_FORWARD_OFFSET_M, 0, CAMERA_HEIGHT_M]);
    expectClose(jointOf(urdf, 'camera_joint').quaternion, level);
    expect(jointOf(urdf, 'imu_joint')).toMatchObject({ type: 'fixed', child: 'imu_link' });
    expectClose(jointOf(urdf, 'imu_joint').xyz, [0, 0, bodyHeightM / 2]);

    // Named as /joint_states names them, so a robot_state_publisher turns the wheels from it.
    const [leftName, rightName] = WHEEL_JOINT_NAMES;
    const left = jointOf(urdf, leftName!);
    const right = jointOf(urdf, rightName!);
    expect([left.type, left.child, right.type, right.child]).toEqual(['continuous', 'left_wheel', 'continuous', 'right_wheel']);
    expectClose(left.xyz, [0, trackM / 2, wheelRadiusM]);
    expectClose(right.xyz, [0, -trackM / 2, wheelRadiusM]);
    expectClose(left.axis!, [0, 1, 0]);
    expectClose(right.axis!, [0, 1, 0]);

    // The same numbers as the joints the model exports (what /tf_static is built from).
    for (const joint of model.joints) expectClose(jointOf(urdf, joint.name).xyz, joint.origin.xyzM);
  });

  it('draws the body and wheels at their simulated sizes with simple coloured shapes only', () => {
    const body = urdf.links['base_link']!.visuals.find((visual) => visual.name === 'body')!;
    expect(body.geometry).toMatchObject({ radius: bodyRadiusM, length: bodyHeightM });
    expect(body.origin!.position.z).toBeCloseTo(bodyHeightM / 2, 6);
    expect(urdf.links['left_wheel']!.visuals[0]!.geometry).toMatchObject({ radius: wheelRadiusM });
    const visuals = Object.values(urdf.links).flatMap((link) => link.visuals);
    expect(visuals.length).toBeGreaterThanOrEqual(7);
    for (const visual of visuals) {
      expect(visual.geometry?.type, visual.name ?? '').toBeOneOf([ROSLIB.UrdfType.BOX, ROSLIB.UrdfType.CYLINDER]);
      expect(visual.material?.color, visual.name ?? '').toMatchObject({ a: 1 });
    }
    // The 3D range sensor sits at its mount height, on base_link (the frame its cloud is stamped in).
    const rangeSensor = urdf.links['base_link']!.visuals.find((visual) => visual.name === 'range_sensor')!;
    expect(rangeSensor.origin!.position.z).toBeCloseTo(DEFAULT_RANGE_CLOUD_OPTIONS.mountHeightM, 6);
    const withoutCloud = parse(robotModel({ points: { ...DEFAULT_RANGE_CLOUD_OPTIONS, enabled: false } }).urdf);
    expect(withoutCloud.links['base_link']!.visuals.map((visual) => visual.name)).toEqual(['body']);
  });

  it('names the LiDAR housing’s mesh where the robot serves it, with a collision cylinder of its size to draw instead', () => {
    const served = parse(robotModel({ points: DEFAULT_RANGE_CLOUD_OPTIONS, laserMeshUri: LIDAR_HOUSING_URI }).urdf);
    const laser = served.links['laser']!;
    expect(laser.visuals.map((visual) => [visual.name, visual.geometry])).toMatchObject([
      ['laser', { type: ROSLIB.UrdfType.MESH, filename: LIDAR_HOUSING_URI }],
    ]);
    expect(laser.visuals[0]!.material?.color).toMatchObject({ a: 1 });
    expect(model.urdf).not.toContain('<mesh');
    // roslib reads no <collision>: the laser link's, read from the text.
    const laserLink = /<link name="laser">([\s\S]*?)<\/link>/.exec(
      robotModel({ points: DEFAULT_RANGE_CLOUD_OPTIONS, laserMeshUri: LIDAR_HOUSING_URI }).urdf,
    )?.[1];
    expect(laserLink).toContain(`<collision name="laser">`);
    expect(laserLink).toContain(`<geometry><cylinder radius="${LASER_RADIUS_M}" length="${LASER_HEIGHT_M}"/></geometry>`);
    // Everything else the same as the model of a robot that serves no files.
    expect(Object.keys(served.links).sort()).toEqual(Object.keys(urdf.links).sort());
  });

  it('holds every frame the robot stamps its sensors in', () => {
    const robot = new SimRobot({ arenaSeed: 2, episodeSeed: 2 });
    const odom = robot.senseNow('odom');
    const stamped = (['scan', 'camera', 'imu', 'points'] as const).map((stream) => (robot.senseNow(stream).msg as { frameId: string }).frameId);
    if (odom.stream !== 'odom') throw new Error('expected odometry');
    for (const frame of [...stamped, odom.msg.childFrameId]) expect(Object.keys(urdf.links), frame).toContain(frame);
  });

  it("turns URDF's roll, pitch and yaw into the quaternion roslib reads from it", () => {
    const rpyRad = [0.3, -0.2, 1.1] as const;
    const parsed = parse(
      `<robot name="t"><link name="a"/><link name="b"/><joint name="j" type="fixed"><parent link="a"/><child link="b"/><origin xyz="0 0 0" rpy="${rpyRad.join(' ')}"/></joint></robot>`,
    );
    const { x, y, z, w } = quaternionFromRpy(rpyRad);
    expectClose(jointOf(parsed, 'j').quaternion, [x, y, z, w]);
  });
});
