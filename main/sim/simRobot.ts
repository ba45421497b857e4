// The simulated robot: arena, body, drive train and sensors advanced together at a fixed physics
// step, and the task (reach, dock or corridor) that judges each episode. It obeys the last drive command until that command is
// 0.5 s old, then brakes, like a real base whose firmware will not trust a silent operator.
import { ZERO_DRIVE, type DriveCommand, type Image, type Imu, type JointState, type LaserScan, type Odometry, type PointCloud2 } from '../core/messages.ts';
import { clearanceM, createArena, type Arena, type ArenaOptions, type Episode, type Footprints } from './arena.ts';
import { DEFAULT_CAMERA_OPTIONS, type CameraOptions } from './camera.ts';
import { DIFF_DRIVE_SPEC } from './diffDrive.ts';
import { beginEpisodeWorld, dropObstacleAhead, recordMotion, restingMotion, type EpisodeWorld } from './episodeWorld.ts';
import type { Circle, Pose2D } from './geometry.ts';
import { sampleImu } from './imu.ts';
import { checkInjection, type SimInjection } from './injection.ts';
import { DEFAULT_SCAN_OPTIONS, type ScanOptions } from './lidar.ts';
import { DEFAULT_RANGE_CLOUD_OPTIONS, type RangeCloudOptions } from './rangeCloud.ts';
import { deriveSeed, SeededRandom } from './random.ts';
import { RateSchedule } from './schedule.ts';
import { SensorFaults } from './sensorFaults.ts';
import type { SensorStream } from './sensorStream.ts';
import { DEFAULT_CORRIDOR_OPTIONS } from './tasks/corridor.ts';
import { DEFAULT_DOCK_OPTIONS } from './tasks/dock.ts';
import { DEFAULT_REACH_OPTIONS, type ReachOptions } from './tasks/reach.ts';
import { placeTaskEpisode, type TaskOptions } from './tasks/simTasks.ts';
import type { EpisodeState } from './tasks/task.ts';
import { episodeSolids, reachEpisode, taskObstacles, type TaskEpisode } from './tasks/taskEpisode.ts';
import { isSimTaskName, unknownTaskError, type SimTaskName } from './tasks/taskNames.ts';

export const PHYSICS_STEP_SECS = 0.01;
export const COMMAND_TIMEOUT_SECS = 0.5;
const JOINTS_RATE_HZ = 50;
const IMU_RATE_HZ = 100;
const ODOM_RATE_HZ = 50;

export type { SensorStream };
const STREAMS: readonly SensorStream[] = ['camera', 'scan', 'points', 'joints', 'imu', 'odom'];

export type SensorOutput =
  | { stream: 'camera'; simTimeSecs: number; msg: Image }
  | { stream: 'scan'; simTimeSecs: number; msg: LaserScan }
  | { stream: 'points'; simTimeSecs: number; msg: PointCloud2 }
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
  /** The multi-layer 3D range sensor behind `/points`; `enabled: false` leaves it out altogether. */
  points: Partial<RangeCloudOptions>;
  /** What every episode asks of the robot (default 'reach'); resetEpisode places the next one of the same task. */
  task: SimTaskName;
  /** reach's time limit and success gap; corridor and dock keep their own (60 s each). */
  reach: Partial<ReachOptions>;
  /**
   * Start the next episode (seed + 1) the moment one ends (the default, as a robot left running
   * expects). Off, an ended episode stands, robot and all, until resetEpisode().
   */
  autoReset: boolean;
  /**
   * Render this many camera frames once, from the first episode's start, and publish them in turn
   * with fresh stamps; 0 (the default) renders every frame live. For benches that measure how frames
   * travel, not how fast the sim draws them.
   */
  prerenderedCameraFrames: number;
}

/** The truth about the world, for tests, benchmarks and `/sim/ground_truth`; never the live loop. */
export interface GroundTruth {
  simTimeSecs: number;
  pose: Pose2D;
  linearMps: number;
  angularRadps: number;
  /** The episode's task. */
  task: SimTaskName;
  /**
   * What the robot drives to. reach and corridor: the goal pillar. dock: the dock pose's position,
   * radius 0 (a point on the floor in front of the marker, not a solid).
   */
  goal: Circle;
  /** From the robot's centre to the goal's centre (dock: to the dock pose's position). */
  goalDistanceM: number;
  /** dock: where the robot must come to rest, facing the marker on the wall; undefined for reach and corridor. */
  dockPose: Pose2D | undefined;
  /**
   * What the task adds to the arena that the robot must keep clear of: the corridor's walls and
   * clutter, the dock's marker; empty for reach. With the arena's walls and obstacles, the whole map.
   */
  taskObstacles: Footprints;
  /** From the robot's rim to the nearest wall or obstacle, the task's included (the goal is not an obstacle). */
  nearestObstacleM: number;
  /** Obstacles dropped in this episode by injection. */
  droppedObstacles: Circle[];
  /** The robot pressed against something during the last step() call. */
  contact: boolean;
  /** Times the robot has run into something since it was made. */
  collisionCount: number;
  episode: EpisodeState;
  /** The last episode that ended, as it ended; with auto reset, the only place its outcome remains. */
  lastEndedEpisode: EpisodeState | undefined;
}

const NO_SINK: SensorSink = { wants: () => false, receive: () => undefined };

export class SimRobot {
  readonly arena: Arena;
  readonly cameraOptions: CameraOptions;
  readonly scanOptions: ScanOptions;
  readonly pointsOptions: RangeCloudOptions;
  private readonly arenaSeed: number;
  /** The task each new episode is placed for. */
  readonly task: SimTaskName;
  /** Whether a new episode starts by itself when one ends. */
  readonly autoReset: boolean;
  private readonly taskOptions: TaskOptions;
  private world: EpisodeWorld;
  private readonly schedules: Readonly<Record<SensorStream, RateSchedule>>;
  /** The streams this robot has: all of them, less the point cloud when it is off. */
  private readonly streams: readonly SensorStream[];
  private readonly faults = new SensorFaults();
  private ticks = 0;
  private pendingSecs = 0;
  private command: DriveCommand = ZERO_DRIVE;
  private commandTimeSecs = -Infinity;
  private touching = false;
  private contactDuringStep = false;
  private collisionCount = 0;
  private episodeCount = 0;
  private lastEndedEpisode: EpisodeState | undefined;
  private lastCameraFrame: Image | undefined;
  /** Where the camera was when it last drew a live frame: the view a freeze with fresh noise keeps drawing. */
  private lastCameraPose: Pose2D | undefined;
  private readonly prerenderedFrames: readonly Image[];
  private prerenderedNext = 0;
  private readonly episodeListeners = new Set<() => void>();

  constructor(options: Partial<SimRobotOptions> = {}) {
    this.arenaSeed = options.arenaSeed ?? 1;
    this.arena = createArena(this.arenaSeed, options.arena);
    this.cameraOptions = { ...DEFAULT_CAMERA_OPTIONS, ...options.camera };
    this.scanOptions = { ...DEFAULT_SCAN_OPTIONS, ...options.scan };
    this.pointsOptions = { ...DEFAULT_RANGE_CLOUD_OPTIONS, ...options.points };
    this.streams = this.pointsOptions.enabled ? STREAMS : STREAMS.filter((stream) => stream !== 'points');
    const task: string = options.task ?? 'reach';
    if (!isSimTaskName(task)) throw unknownTaskError(task);
    this.task = task;
    this.taskOptions = { reach: { ...DEFAULT_REACH_OPTIONS, ...options.reach }, corridor: DEFAULT_CORRIDOR_OPTIONS, dock: DEFAULT_DOCK_OPTIONS };
    this.autoReset = options.autoReset ?? true;
    this.schedules = {
      camera: new RateSchedule(this.cameraOptions.rateHz),
      scan: new RateSchedule(this.scanOptions.rateHz),
      points: new RateSchedule(this.pointsOptions.rateHz),
      joints: new RateSchedule(JOINTS_RATE_HZ),
      imu: new RateSchedule(IMU_RATE_HZ),
      odom: new RateSchedule(ODOM_RATE_HZ),
    };
    const seed = options.episodeSeed ?? 1;
    this.world = this.createWorld(placeTaskEpisode(this.arena, this.task, seed), seed);
    this.prerenderedFrames = this.prerender(options.prerenderedCameraFrames ?? 0);
  }

  simTimeSecs(): number {
    return this.ticks * PHYSICS_STEP_SECS;
  }

  /**
   * Takes a new drive command (clamped to the limits on the robot); refuses non-finite ones. `ageSecs`:
   * how old the command already is by its stamp (negative for a stamp from the future), so it times out
   * 0.5 s after its stamp, as ROS 2's diff_drive_controller does with a TwistStamped.
   */
  drive(command: DriveCommand, ageSecs = 0): boolean {
    if (!Number.isFinite(command.linearMps) || !Number.isFinite(command.angularRadps) || !Number.isFinite(ageSecs)) return false;
    this.command = { linearMps: command.linearMps, angularRadps: command.angularRadps };
    this.commandTimeSecs = this.simTimeSecs() - ageSecs;
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

  /** Starts a new episode of the robot's task: new goal and start pose from the seed (default: the current seed + 1), robot at rest, odometry at zero. */
  resetEpisode(episodeSeed: number = this.world.state.seed + 1): void {
    this.replaceWorld(placeTaskEpisode(this.arena, this.task, episodeSeed), episodeSeed);
  }

  /**
   * Starts a given episode (tests and scripted tasks): a reach episode as the arena places one, or an
   * episode of any task. The seed, and so the sensor noise, stays.
   */
  startEpisode(episode: Episode | TaskEpisode): void {
    const taskEpisode = 'task' in episode ? episode : reachEpisode(episode);
    const { startPose } = taskEpisode;
    if (clearanceM(episodeSolids(this.arena, taskEpisode), startPose.xM, startPose.yM) < DIFF_DRIVE_SPEC.bodyRadiusM) {
      throw new RangeError('the episode starts the robot inside a wall, an obstacle or the goal');
    }
    this.replaceWorld(taskEpisode, this.world.state.seed);
  }

  episodeState(): EpisodeState {
    return this.world.state;
  }

  /** Teleports the robot, at rest, without telling its odometry (a kidnapped robot); throws if inside a solid. */
  placeRobot(pose: Pose2D): void {
    if (clearanceM(this.world.solids, pose.xM, pose.yM) < DIFF_DRIVE_SPEC.bodyRadiusM) {
      throw new RangeError(`pose (${pose.xM.toFixed(3)}, ${pose.yM.toFixed(3)}) puts the robot inside a wall or obstacle`);
    }
    this.world.physics.place(pose);
    this.world.velocity = { xMps: 0, yMps: 0 };
    this.world.motion = restingMotion(pose.yawRad);
  }

  /** Applies an injected event now (durations run in simulated time); throws a RangeError for a bad one. */
  inject(injection: SimInjection): void {
    checkInjection(injection);
    switch (injection.kind) {
      case 'shove':
        this.world.physics.kick(injection.forwardMps, injection.leftwardMps);
        return;
      case 'drop-obstacle':
        dropObstacleAhead(this.world, injection.distanceM, injection.radiusM);
        return;
      default:
        this.faults.start(injection, this.simTimeSecs());
    }
  }

  /** Whether the robot has this stream at all (the point cloud can be turned off). */
  hasStream(stream: SensorStream): boolean {
    return this.streams.includes(stream);
  }

  /** A reading of the present state, off the publishing schedule: for datasets and benches, never the live robot. */
  senseNow(stream: SensorStream): SensorOutput {
    return this.sample(stream, this.simTimeSecs());
  }

  /**
   * Calls `listener` each time a new episode starts (a reset, by hand or automatic): its solids, and
   * so its map, may differ. Returns the way to stop.
   */
  onEpisodeStart(listener: () => void): () => void {
    this.episodeListeners.add(listener);
    return () => {
      this.episodeListeners.delete(listener);
    };
  }

  /** What a map of this episode shows: every solid as the episode began (walls, obstacles, the task's, the goal pillar); not what was dropped in since. */
  mapFootprints(): Footprints {
    const { boxes, pillars } = episodeSolids(this.arena, this.world.episode);
    return {
      boxes: boxes.map(({ minXM, minYM, maxXM, maxYM }) => ({ minXM, minYM, maxXM, maxYM })),
      pillars: pillars.map(({ xM, yM, radiusM }) => ({ xM, yM, radiusM })),
    };
  }

  /** The wheels' angles now by joint name, as /joint_states reports them: for the robot's own TF. */
  wheelPositionsRad(): ReadonlyMap<string, number> {
    const joints = this.world.drive.jointState();
    return new Map(joints.names.map((name, index) => [name, joints.positionsRad[index] ?? 0]));
  }

  groundTruth(): GroundTruth {
    const { physics, episode, solids, dropped, motion } = this.world;
    const pose = physics.pose();
    const { goal } = episode;
    const obstacles = { boxes: solids.boxes, pillars: [...episode.fixtures.pillars, ...dropped] };
    return {
      simTimeSecs: this.simTimeSecs(),
      pose,
      linearMps: motion.forwardMps,
      angularRadps: motion.angularRadps,
      task: episode.task,
      goal: { xM: goal.xM, yM: goal.yM, radiusM: goal.radiusM },
      goalDistanceM: Math.hypot(goal.xM - pose.xM, goal.yM - pose.yM),
      dockPose: episode.dockPose,
      taskObstacles: taskObstacles(episode),
      nearestObstacleM: clearanceM(obstacles, pose.xM, pose.yM) - DIFF_DRIVE_SPEC.bodyRadiusM,
      droppedObstacles: dropped.map(({ xM, yM, radiusM }) => ({ xM, yM, radiusM })),
      contact: this.contactDuringStep,
      collisionCount: this.collisionCount,
      episode: this.world.state,
      lastEndedEpisode: this.lastEndedEpisode,
    };
  }

  private replaceWorld(episode: TaskEpisode, seed: number): void {
    const previous = this.world;
    this.world = this.createWorld(episode, seed);
    // Rapier's memory lives outside the JavaScript heap: hand it back now rather than at some GC.
    previous.physics.free();
    for (const listener of this.episodeListeners) listener();
  }

  private createWorld(episode: TaskEpisode, seed: number): EpisodeWorld {
    this.command = ZERO_DRIVE;
    this.commandTimeSecs = -Infinity;
    this.touching = false;
    this.episodeCount++;
    return beginEpisodeWorld({
      arena: this.arena,
      episode,
      seed,
      index: this.episodeCount,
      noiseSeed: deriveSeed('noise', this.arenaSeed, seed),
      startSecs: this.simTimeSecs(),
      camera: this.cameraOptions,
      scan: this.scanOptions,
      points: this.pointsOptions,
      tasks: this.taskOptions,
      physicsStepSecs: PHYSICS_STEP_SECS,
    });
  }

  private physicsStep(sink: SensorSink): void {
    this.ticks++;
    const nowSecs = this.simTimeSecs();
    const world = this.world;
    const commandIsFresh = nowSecs - this.commandTimeSecs <= COMMAND_TIMEOUT_SECS + 1e-9;
    const wheels = world.drive.drive(commandIsFresh ? this.command : ZERO_DRIVE, PHYSICS_STEP_SECS);
    const outcome = world.physics.step(wheels);
    world.drive.settle(outcome, PHYSICS_STEP_SECS);
    recordMotion(world, outcome, PHYSICS_STEP_SECS);
    const wheelSpeeds = world.drive.wheelVelocities();
    world.odometry.integrate(wheelSpeeds.leftRadps, wheelSpeeds.rightRadps, PHYSICS_STEP_SECS);

    if (outcome.contact && !this.touching) this.collisionCount++;
    this.touching = outcome.contact;
    this.contactDuringStep ||= outcome.contact;
    this.judgeEpisode(world, outcome.contact, nowSecs);

    for (const stream of this.streams) {
      const due = this.schedules[stream].takeDue(nowSecs);
      const timesSecs = this.faults.publishTimesSecs(stream, nowSecs, PHYSICS_STEP_SECS, due);
      if (timesSecs.length === 0 || !sink.wants(stream)) continue;
      const output = this.sample(stream, nowSecs);
      for (const simTimeSecs of timesSecs) sink.receive(simTimeSecs === nowSecs ? output : { ...output, simTimeSecs });
    }
  }

  private judgeEpisode(world: EpisodeWorld, contact: boolean, nowSecs: number): void {
    if (world.state.status !== 'running') return;
    const elapsedSecs = nowSecs - world.startSecs;
    const speedMps = Math.hypot(world.velocity.xMps, world.velocity.yMps);
    const verdict = world.task.judge({ elapsedSecs, pose: world.physics.pose(), contact, speedMps });
    world.state = { ...world.state, ...verdict, elapsedSecs };
    if (verdict.status === 'running') return;
    this.lastEndedEpisode = world.state;
    if (this.autoReset) this.resetEpisode();
  }

  private prerender(frameCount: number): Image[] {
    if (!(Number.isInteger(frameCount) && frameCount >= 0)) throw new RangeError(`prerenderedCameraFrames must be a whole number ≥ 0, got ${frameCount}`);
    const { camera, physics, noiseSeed } = this.world;
    // Each frame its own noise, so consecutive frames differ as a live camera's would.
    return Array.from({ length: frameCount }, (_, index) =>
      camera.render(physics.pose(), new SeededRandom(deriveSeed(noiseSeed, 'prerendered-camera', index))),
    );
  }

  private nextPrerenderedFrame(): Image | undefined {
    const frame = this.prerenderedFrames[this.prerenderedNext];
    if (frame !== undefined) this.prerenderedNext = (this.prerenderedNext + 1) % this.prerenderedFrames.length;
    return frame;
  }

  private sample(stream: SensorStream, nowSecs: number): SensorOutput {
    const world = this.world;
    // Each sample's noise has its own seed, so skipping a stream nobody wants changes no other.
    const random = new SeededRandom(deriveSeed(world.noiseSeed, stream, this.ticks));
    const pose = world.physics.pose();
    switch (stream) {
      case 'camera': {
        if (this.faults.cameraFrozen(nowSecs) && this.lastCameraFrame !== undefined) {
          // A prerendered camera has no view to draw again: its freeze repeats the frame either way.
          if (this.faults.cameraFreezeRedrawn(nowSecs) && this.lastCameraPose !== undefined && this.prerenderedFrames.length === 0)
            this.lastCameraFrame = world.camera.render(this.lastCameraPose, random);
          return { stream, simTimeSecs: nowSecs, msg: this.lastCameraFrame };
        }
        this.lastCameraFrame = this.nextPrerenderedFrame() ?? world.camera.render(pose, random);
        this.lastCameraPose = pose;
        return { stream, simTimeSecs: nowSecs, msg: this.lastCameraFrame };
      }
      case 'scan':
        return { stream, simTimeSecs: nowSecs, msg: this.faults.lidarBlind(nowSecs) ? world.lidar.blindScan() : world.lidar.scan(pose, random) };
      case 'points':
        return { stream, simTimeSecs: nowSecs, msg: world.rangeCloud.sweep(pose, random) };
      case 'joints':
        return { stream, simTimeSecs: nowSecs, msg: world.drive.jointState() };
      case 'imu':
        return { stream, simTimeSecs: nowSecs, msg: sampleImu(world.motion, random) };
      case 'odom':
        return { stream, simTimeSecs: nowSecs, msg: world.odometry.message() };
    }
  }
}
