import { describe, it, expect } from 'vitest';
import { SimRobot } from '../simRobot.ts';
import { rosGroundTruth } from './groundTruthMessage.ts';
import { rosHeader } from './rosMessages.ts';

const HEADER = rosHeader(1, 0, 'map');

describe('/sim/ground_truth', () => {
  it('carries the task, and for dock the pose to rest at and the marker, in ROS field names', () => {
    const truth = new SimRobot({ task: 'dock', arenaSeed: 80_000, episodeSeed: 1 }).groundTruth();
    const msg = rosGroundTruth(truth, HEADER);
    expect(msg).toMatchObject({
      header: HEADER,
      task: 'dock',
      goal: { x_m: truth.goal.xM, y_m: truth.goal.yM, radius_m: 0 },
      goal_distance_m: truth.goalDistanceM,
      dock_pose: { x_m: truth.dockPose!.xM, y_m: truth.dockPose!.yM, yaw_rad: truth.dockPose!.yawRad },
    });
    expect(msg.task_obstacles).toMatchObject({ boxes: [{ min_x_m: truth.taskObstacles.boxes[0]!.minXM }, {}], pillars: [] });
  });

  it('leaves the dock pose out of a reach episode', () => {
    const msg = rosGroundTruth(new SimRobot({ arenaSeed: 3, episodeSeed: 5 }).groundTruth(), HEADER);
    expect(msg).toMatchObject({ task: 'reach', task_obstacles: { boxes: [], pillars: [] } });
    expect(msg).not.toHaveProperty('dock_pose');
  });
});
