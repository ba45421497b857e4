import { describe, it, expect } from 'vitest';
import { GOAL_COLOUR, placeEpisode, type Episode } from './arena.ts';
import type { Pose2D } from './geometry.ts';
import { SimRobot, type SensorOutput, type SensorSink, type SensorStream } from './simRobot.ts';

/** How far the contact solver lets a body sink into a solid before pushing it out (Rapier allows ~1 mm). */
const RAPIER_SINK_M = 0.002;

/** A 10 m arena with no obstacles, the robot at `startPose` and the goal out of the way. */
function robotInEmptyArena(startPose: Pose2D): SimRobot {
  const robot = new SimRobot({ arenaSeed: 7, episodeSeed: 7, arena: { sizeM: 10, obstacleCount: 0 }, autoReset: false });
  const episode: Episode = {
    startPose,
    goal: { xM: 4, yM: 4, radiusM: 0.15, heightM: 1, colour: GOAL_COLOUR },
  };
  robot.startEpisode(episode);
  return robot;
}

/** Drives with fresh commands every 0.1 s, as an operator holding a key would. */
function holdCommand(robot: SimRobot, linearMps: number, angularRadps: number, durationSecs: number, sink?: SensorSink): void {
  for (let elapsedSecs = 0; elapsedSecs < durationSecs - 1e-9; elapsedSecs += 0.1) {
    robot.drive({ linearMps, angularRadps });
    robot.step(0.1, sink);
  }
}

function collector(streams: readonly SensorStream[]): { sink: SensorSink; outputs: SensorOutput[] } {
  const outputs: SensorOutput[] = [];
  return { outputs, sink: { wants: (stream) => streams.includes(stream), receive: (output) => outputs.push(output) } };
}

describe('SimRobot driving', () => {
  it('drives forward when commanded and brakes once commands have been missing for 0.5 s', () => {
    const robot = robotInEmptyArena({ xM: -3, yM: 0, yawRad: 0 });
    holdCommand(robot, 0.5, 0, 2);
    const driving = robot.groundTruth();
    expect(driving.linearMps).toBeCloseTo(0.5, 2);
    expect(driving.pose.xM).toBeGreaterThan(-3 + 0.85);
    expect(Math.abs(driving.pose.yM)).toBeLessThan(0.05);

    robot.drive({ linearMps: 0.5, angularRadps: 0 });
    robot.step(0.45);
    expect(robot.groundTruth().linearMps, 'still obeying just before the timeout').toBeCloseTo(0.5, 2);
    robot.step(0.15);
    expect(robot.groundTruth().linearMps, 'braking just after the timeout').toBeLessThan(0.45);
    robot.step(0.4);
    const stopped = robot.groundTruth();
    expect(stopped.linearMps).toBe(0);
    robot.step(1);
    expect(robot.groundTruth().pose).toEqual(stopped.pose);
  });

  it('keeps to its speed and acceleration limits whatever it is told', () => {
    const robot = robotInEmptyArena({ xM: -4, yM: 0, yawRad: 0 });
    holdCommand(robot, 5, 0, 0.2);
    expect(robot.groundTruth().linearMps, 'ramps at 1.5 m/s²').toBeCloseTo(0.3, 1);
    holdCommand(robot, 5, 0, 1);
    const before = robot.groundTruth();
    holdCommand(robot, 5, 0, 1);
    const after = robot.groundTruth();
    expect(after.linearMps).toBeLessThanOrEqual(0.6);
    expect(after.linearMps).toBeGreaterThan(0.59);
    expect(after.pose.xM - before.pose.xM).toBeLessThanOrEqual(0.6);
    expect(after.pose.xM - before.pose.xM).toBeGreaterThan(0.58);

    const turning = robotInEmptyArena({ xM: 0, yM: 0, yawRad: 0 });
    holdCommand(turning, 0, -10, 1.5);
    expect(turning.groundTruth().angularRadps).toBeGreaterThanOrEqual(-2);
    expect(turning.groundTruth().angularRadps).toBeLessThan(-1.98);
    expect(Math.hypot(turning.groundTruth().pose.xM, turning.groundTruth().pose.yM), 'turns on the spot').toBeLessThan(1e-3);
  });

  it('cannot drive through a wall: it stops against it and records the collision', () => {
    const robot = robotInEmptyArena({ xM: 3, yM: 0, yawRad: 0 });
    holdCommand(robot, 0.6, 0, 1);
    expect(robot.groundTruth().collisionCount).toBe(0);
    holdCommand(robot, 0.6, 0, 4);
    const truth = robot.groundTruth();
    const wallContactXM = 5 - 0.175;
    expect(truth.pose.xM).toBeLessThanOrEqual(wallContactXM + RAPIER_SINK_M);
    expect(truth.pose.xM).toBeGreaterThan(wallContactXM - 0.01);
    expect(truth.contact).toBe(true);
    expect(truth.collisionCount).toBe(1);
    expect(truth.nearestObstacleM).toBeLessThan(1e-6);
    expect(truth.linearMps).toBeLessThan(0.05);
  });

  it('slides along a wall it meets at a shallow angle', () => {
    // Heading 15° off the east wall's face, towards it.
    const robot = robotInEmptyArena({ xM: 4.75, yM: 0, yawRad: (75 * Math.PI) / 180 });
    holdCommand(robot, 0.5, 0, 1);
    const first = robot.groundTruth();
    expect(first.contact).toBe(true);
    holdCommand(robot, 0.5, 0, 1);
    const second = robot.groundTruth();
    expect(second.pose.xM).toBeLessThanOrEqual(5 - 0.175 + RAPIER_SINK_M);
    expect(second.pose.yM - first.pose.yM).toBeGreaterThan(0.1);
  });

  it('reports wheels, IMU and odometry that agree with its motion, odometry drifting a little', () => {
    const robot = robotInEmptyArena({ xM: -2, yM: -2, yawRad: 0 });
    const { sink, outputs } = collector(['joints', 'imu', 'odom']);
    holdCommand(robot, 0.5, 0, 2, sink);
    const joints = outputs.findLast((output) => output.stream === 'joints');
    expect(joints?.msg.names).toEqual(['left_wheel_joint', 'right_wheel_joint']);
    expect(joints?.msg.velocitiesRadps[0]).toBeCloseTo(0.5 / 0.05, 1);
    expect(joints?.msg.velocitiesRadps[1]).toBeCloseTo(0.5 / 0.05, 1);

    holdCommand(robot, 0.2, 1, 2, sink);
    const imu = outputs.findLast((output) => output.stream === 'imu');
    expect(imu?.msg.angularVelocityRadps.z).toBeCloseTo(1, 1);
    expect(imu?.msg.linearAccelerationMps2.z).toBeCloseTo(9.81, 0);
    const truth = robot.groundTruth();
    const imuYawRad = 2 * Math.atan2(imu?.msg.orientation.z ?? 0, imu?.msg.orientation.w ?? 1);
    expect(Math.abs(imuYawRad - truth.pose.yawRad)).toBeLessThan(0.02);

    const odom = outputs.findLast((output) => output.stream === 'odom');
    const odomErrorM = Math.hypot((odom?.msg.odomFromBaseXM ?? 0) - (truth.pose.xM + 2), (odom?.msg.odomFromBaseYM ?? 0) - (truth.pose.yM + 2));
    expect(odomErrorM, 'odometry is an estimate, not the truth').toBeGreaterThan(1e-4);
    expect(odomErrorM, 'but a good one over a short drive').toBeLessThan(0.05);
    expect(odom?.msg.angularRadps).toBeCloseTo(1, 1);
  });

  it('with pre-rendered camera frames, publishes them in turn at the camera rate while it drives', () => {
    const camera = { widthPx: 16, heightPx: 12, rateHz: 10 };
    const robot = new SimRobot({ arenaSeed: 3, episodeSeed: 5, camera, prerenderedCameraFrames: 3 });
    const { sink, outputs } = collector(['camera']);
    holdCommand(robot, 0.5, 1, 1, sink);
    const frames = outputs.flatMap((output) => (output.stream === 'camera' ? [output] : []));
    expect(frames).toHaveLength(10);
    expect(frames[3]!.msg.data).toEqual(frames[0]!.msg.data);
    expect(frames[4]!.msg.data).toEqual(frames[1]!.msg.data);
    expect(frames[1]!.msg.data, 'each frame has its own noise').not.toEqual(frames[0]!.msg.data);
    expect(frames[1]!.simTimeSecs - frames[0]!.simTimeSecs).toBeCloseTo(0.1, 6);
    expect(() => new SimRobot({ prerenderedCameraFrames: -1 })).toThrow(RangeError);
  });

  it('ignores a command that is not a number', () => {
    const robot = robotInEmptyArena({ xM: 0, yM: 0, yawRad: 0 });
    expect(robot.drive({ linearMps: Number.NaN, angularRadps: 0 })).toBe(false);
    robot.step(0.5);
    expect(robot.groundTruth().pose).toEqual({ xM: 0, yM: 0, yawRad: 0 });
  });
});

describe('SimRobot episodes', () => {
  it('ends an episode at the goal and, with auto reset, starts the next seed at once', () => {
    const robot = new SimRobot({ arenaSeed: 7, episodeSeed: 7, arena: { sizeM: 10, obstacleCount: 0 } });
    robot.startEpisode({ startPose: { xM: 0, yM: 0, yawRad: 0 }, goal: { xM: 2, yM: 0, radiusM: 0.15, heightM: 1, colour: GOAL_COLOUR } });
    expect(robot.groundTruth().episode).toMatchObject({ index: 2, seed: 7, status: 'running', progress: 0 });
    holdCommand(robot, 0.5, 0, 1.5);
    const midway = robot.groundTruth().episode;
    expect(midway.progress).toBeGreaterThan(0.2);
    expect(midway.elapsedSecs).toBeCloseTo(1.5, 6);
    for (let ticks = 0; ticks < 30 && robot.groundTruth().lastEndedEpisode === undefined; ticks++) holdCommand(robot, 0.5, 0, 0.1);

    const truth = robot.groundTruth();
    expect(truth.lastEndedEpisode).toMatchObject({ index: 2, seed: 7, status: 'succeeded', reason: 'reached-goal', progress: 1 });
    expect(truth.lastEndedEpisode?.elapsedSecs).toBeGreaterThan(2.5);
    expect(truth.episode).toMatchObject({ index: 3, seed: 8, status: 'running' });
    const next = placeEpisode(robot.arena, 8);
    expect(truth.goal).toEqual({ xM: next.goal.xM, yM: next.goal.yM, radiusM: next.goal.radiusM });
    // The new episode started at rest, and the leftover command was dropped with the old one.
    expect(Math.hypot(truth.pose.xM - next.startPose.xM, truth.pose.yM - next.startPose.yM)).toBeLessThan(1e-5);
  });

  it('without auto reset, an ended episode stands until reset by hand, with or without a seed', () => {
    const robot = robotInEmptyArena({ xM: 4, yM: 0, yawRad: 0 });
    holdCommand(robot, 0.6, 0, 2);
    const ended = robot.episodeState();
    expect(ended).toMatchObject({ status: 'failed', reason: 'collision' });
    holdCommand(robot, -0.3, 0, 1);
    expect(robot.episodeState()).toEqual(ended);
    expect(robot.groundTruth().lastEndedEpisode).toEqual(ended);

    robot.resetEpisode(42);
    expect(robot.episodeState()).toMatchObject({ seed: 42, index: ended.index + 1, status: 'running', elapsedSecs: 0 });
    robot.resetEpisode();
    expect(robot.episodeState()).toMatchObject({ seed: 43, index: ended.index + 2 });
    expect(robot.groundTruth().pose).toEqual(expect.objectContaining({ xM: expect.closeTo(placeEpisode(robot.arena, 43).startPose.xM, 5) }));
  });

  it('times out an episode after 30 s of simulated time', () => {
    const robot = robotInEmptyArena({ xM: 0, yM: 0, yawRad: 0 });
    robot.step(29.9);
    expect(robot.episodeState().status).toBe('running');
    robot.step(0.2);
    expect(robot.episodeState()).toMatchObject({ status: 'failed', reason: 'timeout', elapsedSecs: expect.closeTo(30, 6) });
  });

  it('plays the same episodes for the same seeds', () => {
    const run = (): unknown[] => {
      const robot = new SimRobot({ arenaSeed: 3, episodeSeed: 5, camera: { widthPx: 16, heightPx: 12 } });
      const truths: unknown[] = [];
      for (let i = 0; i < 60; i++) {
        robot.drive({ linearMps: 0.6, angularRadps: Math.sin(i / 7) });
        robot.step(0.1);
        truths.push(robot.groundTruth());
      }
      return truths;
    };
    expect(run()).toEqual(run());
  });
});

describe('SimRobot tasks', () => {
  it('docks when it rests at the marked pose, and its ground truth says where that is', () => {
    const robot = new SimRobot({ task: 'dock', arenaSeed: 80_001, episodeSeed: 2, autoReset: false });
    const truth = robot.groundTruth();
    const dock = truth.dockPose!;
    expect(truth).toMatchObject({ task: 'dock', goal: { xM: dock.xM, yM: dock.yM, radiusM: 0 } });
    expect(truth.goalDistanceM).toBeCloseTo(Math.hypot(dock.xM - truth.pose.xM, dock.yM - truth.pose.yM), 9);
    expect(truth.taskObstacles.boxes, 'the marker: a panel and its stripe').toHaveLength(2);

    robot.placeRobot(dock);
    robot.step(0.3);
    const docking = robot.groundTruth();
    expect(docking.nearestObstacleM, 'the marker counts as an obstacle').toBeCloseTo(0.06, 3);
    expect(docking.episode.status).toBe('running');
    robot.step(0.3);
    expect(robot.episodeState()).toMatchObject({ status: 'succeeded', reason: 'docked', progress: 1 });
  });

  it('fails a dock episode that touches the marker', () => {
    const robot = new SimRobot({ task: 'dock', arenaSeed: 80_001, episodeSeed: 2, autoReset: false });
    robot.placeRobot(robot.groundTruth().dockPose!);
    holdCommand(robot, 0.3, 0, 1);
    expect(robot.episodeState()).toMatchObject({ status: 'failed', reason: 'collision' });
  });

  it('keeps its task from episode to episode; a reach episode started by hand is a reach episode', () => {
    const robot = new SimRobot({ task: 'corridor', arenaSeed: 80_002, episodeSeed: 1, autoReset: false });
    expect(robot.groundTruth()).toMatchObject({ task: 'corridor', dockPose: undefined });
    expect(robot.groundTruth().taskObstacles.boxes.length).toBeGreaterThanOrEqual(6);
    robot.resetEpisode();
    expect(robot.groundTruth().task).toBe('corridor');
    robot.startEpisode({ startPose: { xM: -2.5, yM: -2.5, yawRad: 0 }, goal: { xM: 2.5, yM: 2.5, radiusM: 0.15, heightM: 1, colour: GOAL_COLOUR } });
    expect(robot.groundTruth()).toMatchObject({ task: 'reach', taskObstacles: { boxes: [], pillars: [] } });
    robot.resetEpisode();
    expect(robot.groundTruth().task).toBe('corridor');
  });
});
