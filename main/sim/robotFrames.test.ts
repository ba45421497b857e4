// The robot's TF: the fixed joints as the URDF has them, the wheels turned by their angles, and
// map → odom → base_link landing on the robot's true pose however far its odometry has drifted.
import { describe, expect, it } from 'vitest';
import type { Odometry } from '../core/messages.ts';
import { ROSLIB } from '../links/rosbridge/roslib.ts';
import { GOAL_COLOUR } from './arena.ts';
import { DEFAULT_RANGE_CLOUD_OPTIONS } from './rangeCloud.ts';
import { LOCALISER_RATE_HZ, RobotFrames, type FrameTransform } from './robotFrames.ts';
import { robotModel } from './robotModel.ts';
import { SimRobot } from './simRobot.ts';

function robotInEmptyArena(): SimRobot {
  const robot = new SimRobot({ arenaSeed: 7, episodeSeed: 7, arena: { sizeM: 10, obstacleCount: 0 }, autoReset: false });
  robot.startEpisode({ startPose: { xM: -2, yM: 1, yawRad: 0.4 }, goal: { xM: 4, yM: 4, radiusM: 0.15, heightM: 1, colour: GOAL_COLOUR } });
  return robot;
}

function odometryOf(robot: SimRobot): Odometry {
  const output = robot.senseNow('odom');
  if (output.stream !== 'odom') throw new Error('expected odometry');
  return output.msg;
}

function named(transforms: readonly FrameTransform[], childFrame: string): FrameTransform {
  const found = transforms.find((transform) => transform.childFrame === childFrame);
  if (found === undefined) throw new Error(`no transform to ${childFrame} in ${transforms.map((each) => each.childFrame).join(', ')}`);
  return found;
}

/** A pose in the parent's frame, as roslib's tf math puts it there (an independent check of the composition). */
function applied(transform: FrameTransform, pose: InstanceType<typeof ROSLIB.Pose>): InstanceType<typeof ROSLIB.Pose> {
  const result = pose.clone();
  result.applyTransform(new ROSLIB.Transform({ translation: transform.translationM, rotation: transform.rotation }));
  return result;
}

describe('the robot frames the simulated robot publishes on /tf and /tf_static', () => {
  const model = robotModel({ points: DEFAULT_RANGE_CLOUD_OPTIONS });

  it('latches the fixed joints, base_link to each sensor, at their URDF mounts', () => {
    const frames = new RobotFrames(robotInEmptyArena(), model);
    expect(frames.staticTransforms.map(({ parentFrame, childFrame }) => `${parentFrame}→${childFrame}`)).toEqual([
      'base_link→laser',
      'base_link→camera_link',
      'base_link→imu_link',
    ]);
    for (const joint of model.joints.filter((each) => each.type === 'fixed')) {
      const { translationM, rotation } = named(frames.staticTransforms, joint.childFrame);
      expect([translationM.x, translationM.y, translationM.z]).toEqual(joint.origin.xyzM);
      expect(rotation).toEqual({ x: 0, y: 0, z: 0, w: 1 });
    }
  });

  it('puts the robot where it truly is through map → odom → base_link after its odometry has drifted, and turns the wheels', () => {
    const robot = robotInEmptyArena();
    const frames = new RobotFrames(robot, model);
    for (let step = 0; step < 40; step++) {
      robot.drive({ linearMps: 0.5, angularRadps: 0.8 });
      robot.step(0.1);
    }
    const odometry = odometryOf(robot);
    const truth = robot.groundTruth().pose;
    const transforms = frames.withOdometry(odometry, robot.simTimeSecs());
    const odomFromBase = named(transforms, 'base_link');
    expect(odomFromBase.parentFrame).toBe('odom');
    expect([odomFromBase.translationM.x, odomFromBase.translationM.y]).toEqual([odometry.odomFromBaseXM, odometry.odomFromBaseYM]);
    const mapFromOdom = named(transforms, 'odom');
    expect(mapFromOdom.parentFrame).toBe('map');
    // The odometry started at zero where the robot started; map → odom has taken up its drift since.
    const odomYawRad = 2 * Math.atan2(mapFromOdom.rotation.z, mapFromOdom.rotation.w);
    const driftM = Math.hypot(mapFromOdom.translationM.x + 2, mapFromOdom.translationM.y - 1);
    expect(driftM + Math.abs(odomYawRad - 0.4)).toBeGreaterThan(1e-3);
    expect(driftM).toBeLessThan(0.1);
    const inMap = applied(mapFromOdom, applied(odomFromBase, new ROSLIB.Pose()));
    expect(inMap.position.x).toBeCloseTo(truth.xM, 9);
    expect(inMap.position.y).toBeCloseTo(truth.yM, 9);
    expect(inMap.position.z).toBeCloseTo(0, 9);
    expect(2 * Math.atan2(inMap.orientation.z, inMap.orientation.w)).toBeCloseTo(truth.yawRad, 9);

    // Each wheel turned about its axle (y) by its joint angle, at the axle.
    const wheelAnglesRad = robot.wheelPositionsRad();
    for (const [joint, frame] of [
      ['left_wheel_joint', 'left_wheel'],
      ['right_wheel_joint', 'right_wheel'],
    ] as const) {
      const wheel = named(transforms, frame);
      const angleRad = wheelAnglesRad.get(joint)!;
      expect(angleRad).toBeGreaterThan(10);
      expect(wheel.rotation.x).toBeCloseTo(0, 12);
      expect(wheel.rotation.z).toBeCloseTo(0, 12);
      expect(wheel.rotation.y).toBeCloseTo(Math.sin(angleRad / 2), 9);
      expect(wheel.rotation.w).toBeCloseTo(Math.cos(angleRad / 2), 9);
    }
  });

  it('sends map → odom at the localiser rate and odom → base_link with every odometry reading', () => {
    const robot = robotInEmptyArena();
    const frames = new RobotFrames(robot, model);
    let localised = 0;
    const odomRateHz = 50;
    for (let reading = 1; reading <= odomRateHz; reading++) {
      const transforms = frames.withOdometry(odometryOf(robot), reading / odomRateHz);
      expect(transforms.map((each) => each.childFrame).slice(0, 3)).toEqual(['base_link', 'left_wheel', 'right_wheel']);
      if (transforms.some((each) => each.childFrame === 'odom')) localised++;
    }
    expect(localised).toBe(LOCALISER_RATE_HZ);
  });
});
