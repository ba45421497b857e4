// The simulated robot: arena, body, drive train and sensors advanced together at a fixed physics
// step. It obeys the last drive command until that command is 0.5 s old, then brakes, like a real
// base whose firmware will not trust a silent operator.
import {
  ZERO_DRIVE,
  type DriveCommand,
  type Image,
  type Imu,
  type JointState,
  type LaserScan,
  type Odometry,
} from '../links/messages.ts';
import { clearanceM, createArena, placeEpisode, solidsOf, type Arena, type ArenaOptions, type Episode } from './arena.ts';
import { CameraRenderer, DEFAULT_CAMERA_OPTIONS, type CameraOptions } from './camera.ts';
import { DiffDriveBase, DIFF_DRIVE_SPEC } from './diffDrive.ts';
import type { Circle, Pose2D } from './geometry.ts';
import { sampleImu, type BodyMotion } from './imu.ts';
import { DEFAULT_SCAN_OPTIONS, Lidar, type ScanOptions } from './lidar.ts';
import { WheelOdometry } from './odometry.ts';
import { KinematicDiscPhysics, type RobotBodyPhysics } from './physics.ts';
import { deriveSeed, SeededRandom } from './random.ts';
import { RateSchedule } from './schedule.ts';

export const PHYSICS_STEP_SECS = 0.01;
export const COMMAND_TIMEOUT_SECS = 0.5;
const JOINTS_RATE_HZ = 50;
const IMU_RATE_HZ = 100;
const ODOM_RATE_HZ = 50;

export type SensorStream = 'camera' | 'scan' | 'joints' | 'imu' | 'odom';
const STREAMS: readonly SensorStream[] = ['camera', 'scan', 'joints', 'imu', 'odom'];

export type SensorOutput =
  | { stream: 'camera'; simTimeSecs: number; msg: Image }
  | { stream: 'scan'; simTimeSecs: number; msg: LaserScan }
  | { stream: 'joints'; simTimeSecs: number; msg: JointState }
  | { stream: 'imu'; simTimeSecs: number; msg: Imu }
  | { stream: 'odom'; simTimeSecs: number; msg: Odometry };

/** Where a step's sensor messages go. Streams nobody wants are not rendered at all. */
export interface SensorSink {
  wants(stream: SensorStream): boolean;
  receive(output: SensorOutput): void;
}

export interface SimRobotOptions {
  arenaSeed: number;
  episodeSeed: number;
  arena: Partial<ArenaOptions>;
  camera: Partial<CameraOptions>;
  scan: Partial<ScanOptions>;
}

/** The truth about the world, for tests and benchmarks only: no link ever carries it. */
export interface GroundTruth {
  simTimeSecs: number;
  pose: Pose2D;
  linearMps: number;
  angularRadps: number;
  goal: Circle;
  /** From the robot's centre to the goal's centre. */
  goalDistanceM: number;
  /** From the robot's rim to the nearest wall or obstacle (the goal is not an obstacle). */
  nearestObstacleM: number;
  /** The robot pressed against something during the last step() call. */
  contact: boolean;
  /** Times the robot has run into something since it was made. */
  collisionCount: number;
}

/** Everything that an episode reset rebuilds. */
interface EpisodeState {
  episode: Episode;
  physics: RobotBodyPhysics;
  drive: DiffDriveBase;
  odometry: WheelOdometry;
  camera: CameraRenderer;
  lidar: Lidar;
  motion: BodyMotion;
  noiseSeed: number;
}

const NO_SINK: SensorSink = { wants: () => false, receive: () => undefined };

export class SimRobot {
  readonly arena: Arena;
  readonly cameraOptions: CameraOptions;
  readonly scanOptions: ScanOptions;
  private readonly arenaSeed: number;
  private state: EpisodeState;
  private readonly schedules: Readonly<Record<SensorStream, RateSchedule>>;
  private ticks = 0;
  private pendingSecs = 0;
  private command: DriveCommand = ZERO_DRIVE;
  private commandTimeSecs = -Infinity;
  private touching = false;
  private contactDuringStep = false;
  private collisionCount = 0;

  constructor(options: Partial<SimRobotOptions> = {}) {
    this.arenaSeed = options.arenaSeed ?? 1;
    this.arena = createArena(this.arenaSeed, options.arena);
    this.cameraOptions = { ...DEFAULT_CAMERA_OPTIONS, ...options.camera };
    this.scanOptions = { ...DEFAULT_SCAN_OPTIONS, ...options.scan };
    this.schedules = {
      camera: new RateSchedule(this.cameraOptions.rateHz),
      scan: new RateSchedule(this.scanOptions.rateHz),
      joints: new RateSchedule(JOINTS_RATE_HZ),
      imu: new RateSchedule(IMU_RATE_HZ),
      odom: new RateSchedule(ODOM_RATE_HZ),
    };
    this.state = this.beginEpisode(...this.seededEpisode(options.episodeSeed ?? 1));
  }

  simTimeSecs(): number {
    return this.ticks * PHYSICS_STEP_SECS;
  }

  /** Takes a new drive command (clamped to the limits on the robot); refuses non-finite ones. */
  drive(command: DriveCommand): boolean {
    if (!Number.isFinite(command.linearMps) || !Number.isFinite(command.angularRadps)) return false;
    this.command = { linearMps: command.linearMps, angularRadps: command.angularRadps };
    this.commandTimeSecs = this.simTimeSecs();
    return true;
  }

  /** Advances simulated time; whole physics steps run now, the remainder carries to the next call. */
  step(dtSecs: number, sink: SensorSink = NO_SINK): void {
    if (!(dtSecs >= 0 && Number.isFinite(dtSecs))) throw new RangeError(`step must be a finite time ≥ 0 s, got ${dtSecs}`);
    this.pendingSecs += dtSecs;
    // The small slack absorbs rounding, so ten steps of 0.001 s make exactly one physics step.
    const owedSteps = Math.floor((this.pendingSecs + 1e-9) / PHYSICS_STEP_SECS);
    this.pendingSecs = Math.max(0, this.pendingSecs - owedSteps * PHYSICS_STEP_SECS);
    this.contactDuringStep = false;
    for (let i = 0; i < owedSteps; i++) this.physicsStep(sink);
  }

  /** Starts a new episode from a seed: new goal and start pose, robot at rest, odometry at zero. */
  resetEpisode(episodeSeed: number): void {
    this.state = this.beginEpisode(...this.seededEpisode(episodeSeed));
  }

  /** Starts a given episode (tests and scripted tasks); sensor noise stays tied to the current seeds. */
  startEpisode(episode: Episode): void {
    this.state = this.beginEpisode(episode, this.state.noiseSeed);
  }

  /** Teleports the robot without telling its odometry (a kidnapped robot); throws if inside a solid. */
  placeRobot(pose: Pose2D): void {
    this.state.physics.place(pose);
    this.state.motion = { ...this.state.motion, yawRad: this.state.physics.pose().yawRad };
  }

  groundTruth(): GroundTruth {
    const { physics, episode, motion } = this.state;
    const pose = physics.pose();
    const { goal } = episode;
    const obstacles = { boxes: [...this.arena.walls, ...this.arena.obstacles], pillars: [] };
    return {
      simTimeSecs: this.simTimeSecs(),
      pose,
      linearMps: motion.linearMps,
      angularRadps: motion.angularRadps,
      goal: { xM: goal.xM, yM: goal.yM, radiusM: goal.radiusM },
      goalDistanceM: Math.hypot(goal.xM - pose.xM, goal.yM - pose.yM),
      nearestObstacleM: clearanceM(obstacles, pose.xM, pose.yM) - DIFF_DRIVE_SPEC.bodyRadiusM,
      contact: this.contactDuringStep,
      collisionCount: this.collisionCount,
    };
  }

  private seededEpisode(episodeSeed: number): [Episode, number] {
    return [placeEpisode(this.arena, episodeSeed), deriveSeed('noise', this.arenaSeed, episodeSeed)];
  }

  private beginEpisode(episode: Episode, noiseSeed: number): EpisodeState {
    const solids = solidsOf(this.arena, episode.goal);
    this.command = ZERO_DRIVE;
    this.commandTimeSecs = -Infinity;
    this.touching = false;
    return {
      episode,
      physics: new KinematicDiscPhysics(solids, DIFF_DRIVE_SPEC.bodyRadiusM, episode.startPose),
      drive: new DiffDriveBase(),
      odometry: new WheelOdometry(new SeededRandom(deriveSeed(noiseSeed, 'odometry'))),
      camera: new CameraRenderer(this.cameraOptions, this.arena, solids),
      lidar: new Lidar(this.scanOptions, solids),
      motion: { yawRad: episode.startPose.yawRad, linearMps: 0, angularRadps: 0, forwardAccelMps2: 0 },
      noiseSeed,
    };
  }

  private physicsStep(sink: SensorSink): void {
    this.ticks++;
    const nowSecs = this.simTimeSecs();
    const state = this.state;
    const commandIsFresh = nowSecs - this.commandTimeSecs <= COMMAND_TIMEOUT_SECS + 1e-9;
    const velocity = state.drive.drive(commandIsFresh ? this.command : ZERO_DRIVE, PHYSICS_STEP_SECS);
    const outcome = state.physics.step(velocity.linearMps, velocity.angularRadps, PHYSICS_STEP_SECS);
    state.drive.settle(outcome, PHYSICS_STEP_SECS);
    state.motion = {
      yawRad: state.physics.pose().yawRad,
      linearMps: outcome.achievedLinearMps,
      angularRadps: outcome.achievedAngularRadps,
      forwardAccelMps2: (outcome.achievedLinearMps - state.motion.linearMps) / PHYSICS_STEP_SECS,
    };
    const wheels = state.drive.wheelVelocities();
    state.odometry.integrate(wheels.leftRadps, wheels.rightRadps, PHYSICS_STEP_SECS);

    if (outcome.contact && !this.touching) this.collisionCount++;
    this.touching = outcome.contact;
    this.contactDuringStep ||= outcome.contact;

    for (const stream of STREAMS) {
      if (!this.schedules[stream].takeDue(nowSecs) || !sink.wants(stream)) continue;
      sink.receive(this.sample(stream, nowSecs));
    }
  }

  private sample(stream: SensorStream, nowSecs: number): SensorOutput {
    const state = this.state;
    // Each sample's noise has its own seed, so skipping a stream nobody wants changes no other.
    const random = new SeededRandom(deriveSeed(state.noiseSeed, stream, this.ticks));
    const pose = state.physics.pose();
    switch (stream) {
      case 'camera':
        return { stream, simTimeSecs: nowSecs, msg: state.camera.render(pose, random) };
      case 'scan':
        return { stream, simTimeSecs: nowSecs, msg: state.lidar.scan(pose, random) };
      case 'joints':
        return { stream, simTimeSecs: nowSecs, msg: state.drive.jointState() };
      case 'imu':
        return { stream, simTimeSecs: nowSecs, msg: sampleImu(state.motion, random) };
      case 'odom':
        return { stream, simTimeSecs: nowSecs, msg: state.odometry.message() };
    }
  }
}
