// Everything an episode reset rebuilds: the physics world with what the task adds to the arena in it
// (the goal, the corridor, the dock's marker), a drive train and odometry at rest, sensors that see
// the episode's solids, and the task that judges it. A fresh
// Rapier world per episode makes each episode depend on its seeds alone, not on the ones before.
import { DROPPED_OBSTACLE_COLOUR, type Arena, type SolidPillar } from './arena.ts';
import { CameraRenderer, type CameraOptions } from './camera.ts';
import { DiffDriveBase, DIFF_DRIVE_SPEC } from './diffDrive.ts';
import type { EpisodeSolids } from './episodeSolids.ts';
import type { BodyMotion } from './imu.ts';
import { Lidar, type ScanOptions } from './lidar.ts';
import { WheelOdometry } from './odometry.ts';
import { RangeCloudSensor, type RangeCloudOptions } from './rangeCloud.ts';
import type { BodyStepOutcome, RobotBodyPhysics } from './physics.ts';
import { deriveSeed, SeededRandom } from './random.ts';
import { RapierPhysics } from './rapierPhysics.ts';
import { createSimTask, type TaskOptions } from './tasks/simTasks.ts';
import type { EpisodeState, SimTask } from './tasks/task.ts';
import { episodeSolids, type TaskEpisode } from './tasks/taskEpisode.ts';

export interface EpisodeWorld {
  episode: TaskEpisode;
  solids: EpisodeSolids;
  dropped: SolidPillar[];
  physics: RobotBodyPhysics;
  drive: DiffDriveBase;
  odometry: WheelOdometry;
  camera: CameraRenderer;
  lidar: Lidar;
  rangeCloud: RangeCloudSensor;
  task: SimTask;
  state: EpisodeState;
  startSecs: number;
  noiseSeed: number;
  motion: BodyMotion;
  /** The body's velocity in the world frame after the last step, to difference into acceleration. */
  velocity: { xMps: number; yMps: number };
}

export interface EpisodeSetup {
  arena: Arena;
  episode: TaskEpisode;
  seed: number;
  index: number;
  noiseSeed: number;
  startSecs: number;
  camera: CameraOptions;
  scan: ScanOptions;
  points: RangeCloudOptions;
  tasks: TaskOptions;
  physicsStepSecs: number;
}

export function beginEpisodeWorld(setup: EpisodeSetup): EpisodeWorld {
  const { arena, episode } = setup;
  const solids: EpisodeSolids = episodeSolids(arena, episode);
  const spec = DIFF_DRIVE_SPEC;
  const physics = new RapierPhysics(
    solids,
    { radiusM: spec.bodyRadiusM, heightM: spec.bodyHeightM, massKg: spec.massKg, halfTrackM: spec.trackM / 2 },
    episode.startPose,
    setup.physicsStepSecs,
  );
  return {
    episode,
    solids,
    dropped: [],
    physics,
    drive: new DiffDriveBase(),
    odometry: new WheelOdometry(new SeededRandom(deriveSeed(setup.noiseSeed, 'odometry'))),
    camera: new CameraRenderer(setup.camera, arena, solids),
    lidar: new Lidar(setup.scan, solids),
    rangeCloud: new RangeCloudSensor(setup.points, solids),
    task: createSimTask(arena.sizeM, solids, episode, setup.tasks),
    state: { index: setup.index, seed: setup.seed, status: 'running', reason: undefined, elapsedSecs: 0, progress: 0 },
    startSecs: setup.startSecs,
    noiseSeed: setup.noiseSeed,
    motion: restingMotion(episode.startPose.yawRad),
    velocity: { xMps: 0, yMps: 0 },
  };
}

const DROPPED_OBSTACLE_HEIGHT_M = 0.5;

/** Puts an upright cylinder on the robot's heading: in the physics, in the sensors' view and in the task's plan. */
export function dropObstacleAhead(world: EpisodeWorld, distanceM: number, radiusM: number): void {
  const pose = world.physics.pose();
  const nearestM = DIFF_DRIVE_SPEC.bodyRadiusM + radiusM;
  if (distanceM < nearestM) {
    throw new RangeError(`drop-obstacle: radius ${radiusM} m at ${distanceM} m would overlap the robot; drop it at least ${nearestM.toFixed(3)} m away`);
  }
  const pillar: SolidPillar = {
    xM: pose.xM + distanceM * Math.cos(pose.yawRad),
    yM: pose.yM + distanceM * Math.sin(pose.yawRad),
    radiusM,
    heightM: DROPPED_OBSTACLE_HEIGHT_M,
    colour: DROPPED_OBSTACLE_COLOUR,
  };
  world.solids.pillars.push(pillar);
  world.dropped.push(pillar);
  world.physics.addPillar(pillar);
  world.task.solidsChanged(world.solids);
}

/** Takes in a physics step's outcome: the body's acceleration in its own frame, from its change of velocity in the world's. */
export function recordMotion(world: EpisodeWorld, outcome: BodyStepOutcome, dtSecs: number): void {
  const { yawRad } = world.physics.pose();
  const cosYaw = Math.cos(yawRad);
  const sinYaw = Math.sin(yawRad);
  const velocity = {
    xMps: outcome.forwardMps * cosYaw - outcome.leftwardMps * sinYaw,
    yMps: outcome.forwardMps * sinYaw + outcome.leftwardMps * cosYaw,
  };
  const accelXMps2 = (velocity.xMps - world.velocity.xMps) / dtSecs;
  const accelYMps2 = (velocity.yMps - world.velocity.yMps) / dtSecs;
  world.velocity = velocity;
  world.motion = {
    yawRad,
    forwardMps: outcome.forwardMps,
    angularRadps: outcome.angularRadps,
    forwardAccelMps2: accelXMps2 * cosYaw + accelYMps2 * sinYaw,
    leftwardAccelMps2: -accelXMps2 * sinYaw + accelYMps2 * cosYaw,
  };
}

export function restingMotion(yawRad: number): BodyMotion {
  return { yawRad, forwardMps: 0, angularRadps: 0, forwardAccelMps2: 0, leftwardAccelMps2: 0 };
}
