// The simulated robot's TF, as the nodes of a real ROS robot publish it: robot_state_publisher (the
// model's fixed joints once, on /tf_static; the wheels from their angles), the base controller's
// odometry (odom → base_link, the pose /odom carries) and a localiser (map → odom, at 10 Hz as AMCL
// would). The sim's localiser knows the truth, so map → odom → base_link puts the robot exactly
// where it is in the arena, whose frame is `map`; map → odom takes up the odometry's drift.
import type { Odometry, Quaternion, Vector3 } from '../core/messages.ts';
import type { Pose2D } from './geometry.ts';
import { ODOM_FRAME_ID } from './odometry.ts';
import type { RobotJoint, RobotModel, Xyz } from './robotModel.ts';
import { RateSchedule } from './schedule.ts';
import type { SimRobot } from './simRobot.ts';

/** The frame of the arena: where ground truth is given, and the map drawn. */
export const MAP_FRAME_ID = 'map';
/** How often the localiser publishes map → odom. */
export const LOCALISER_RATE_HZ = 10;

/** A child frame's pose in its parent's, as geometry_msgs/TransformStamped carries it (without the stamp). */
export interface FrameTransform {
  parentFrame: string;
  childFrame: string;
  translationM: Vector3;
  rotation: Quaternion;
}

export class RobotFrames {
  /** The fixed joints: what robot_state_publisher latches on /tf_static. */
  readonly staticTransforms: readonly FrameTransform[];
  private readonly wheelJoints: readonly RobotJoint[];
  private readonly localiserSchedule = new RateSchedule(LOCALISER_RATE_HZ);

  constructor(
    private readonly robot: SimRobot,
    readonly model: RobotModel,
  ) {
    this.staticTransforms = model.joints.filter((joint) => joint.type === 'fixed').map((joint) => jointTransform(joint, 0));
    this.wheelJoints = model.joints.filter((joint) => joint.type === 'continuous');
  }

  /**
   * What /tf carries with an odometry reading: odom → base_link (the pose the reading holds), the
   * wheels at their angles now, and map → odom when the localiser is due. One message rather than
   * one per node: the same transforms at a third of the messages.
   */
  withOdometry(odometry: Odometry, simTimeSecs: number): FrameTransform[] {
    const transforms = [odomFromBase(odometry), ...this.wheelTransforms()];
    if (this.localiserSchedule.takeDue(simTimeSecs)) transforms.push(mapFromOdom(this.robot.groundTruth().pose, odometry));
    return transforms;
  }

  private wheelTransforms(): FrameTransform[] {
    const positionsRad = this.robot.wheelPositionsRad();
    return this.wheelJoints.map((joint) => jointTransform(joint, positionsRad.get(joint.name) ?? 0));
  }
}

/** A joint's child in its parent: the origin, then the turn about the axis (continuous joints). */
export function jointTransform(joint: RobotJoint, positionRad: number): FrameTransform {
  const [xM, yM, zM] = joint.origin.xyzM;
  const originRotation = quaternionFromRpy(joint.origin.rpyRad);
  const rotation = joint.axis === undefined ? originRotation : multiply(originRotation, quaternionAboutAxis(joint.axis, positionRad));
  return { parentFrame: joint.parentFrame, childFrame: joint.childFrame, translationM: { x: xM, y: yM, z: zM }, rotation };
}

export function odomFromBase(odometry: Odometry): FrameTransform {
  return planarTransform(odometry.frameId, odometry.childFrameId, {
    xM: odometry.odomFromBaseXM,
    yM: odometry.odomFromBaseYM,
    yawRad: odometry.odomFromBaseYawRad,
  });
}

/** map → odom = (map → base_link, the truth) ∘ (odom → base_link)⁻¹: where the odometry's origin lies in the arena. */
export function mapFromOdom(mapFromBase: Pose2D, odometry: Odometry): FrameTransform {
  const yawRad = mapFromBase.yawRad - odometry.odomFromBaseYawRad;
  const cosYaw = Math.cos(yawRad);
  const sinYaw = Math.sin(yawRad);
  const { odomFromBaseXM: xM, odomFromBaseYM: yM } = odometry;
  return planarTransform(MAP_FRAME_ID, ODOM_FRAME_ID, {
    xM: mapFromBase.xM - (cosYaw * xM - sinYaw * yM),
    yM: mapFromBase.yM - (sinYaw * xM + cosYaw * yM),
    yawRad,
  });
}

/** A pose in the floor plane, its rotation written as rosOdometry writes /odom's. */
function planarTransform(parentFrame: string, childFrame: string, pose: Pose2D): FrameTransform {
  const halfYawRad = pose.yawRad / 2;
  return {
    parentFrame,
    childFrame,
    translationM: { x: pose.xM, y: pose.yM, z: 0 },
    rotation: { x: 0, y: 0, z: Math.sin(halfYawRad), w: Math.cos(halfYawRad) },
  };
}

/** URDF's rpy: fixed axes, roll about x, then pitch about y, then yaw about z. */
export function quaternionFromRpy([rollRad, pitchRad, yawRad]: Xyz): Quaternion {
  return multiply(quaternionAboutAxis([0, 0, 1], yawRad), multiply(quaternionAboutAxis([0, 1, 0], pitchRad), quaternionAboutAxis([1, 0, 0], rollRad)));
}

function quaternionAboutAxis([x, y, z]: Xyz, angleRad: number): Quaternion {
  const sinHalf = Math.sin(angleRad / 2);
  const length = Math.hypot(x, y, z);
  return { x: (x / length) * sinHalf, y: (y / length) * sinHalf, z: (z / length) * sinHalf, w: Math.cos(angleRad / 2) };
}

function multiply(a: Quaternion, b: Quaternion): Quaternion {
  return {
    x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
    y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
    z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
    w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
  };
}
