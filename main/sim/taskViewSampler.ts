// Labelled sensor views from the dock and corridor tasks, for probing whether an embedding resolves
// what those tasks turn on: near the dock, where the robot is against the dock pose (as an approach
// would see the marker); in and around the corridor's passage, how much room it has and how far off
// the centre line it is. As in viewSampler.ts, the robot is placed, moves briefly under a command so
// its wheels and IMU have something to say, and every stream is read with the truth.
import type { DriveCommand } from '../core/messages.ts';
import { clearanceM, type ArenaOptions, type Footprints } from './arena.ts';
import { DIFF_DRIVE_SPEC } from './diffDrive.ts';
import { dockFromWorld, worldFromDock, type DockFramePose } from './dockApproach.ts';
import { wrapAngleRad, type Pose2D } from './geometry.ts';
import { arenaColours, type HueSet } from './palettes.ts';
import { deriveSeed, SeededRandom } from './random.ts';
import { SimRobot, type GroundTruth } from './simRobot.ts';
import { channelOffset, corridorChannel } from './tasks/corridor.ts';
import type { SimTaskName } from './tasks/taskNames.ts';
import { moveAndRead, senseAll, type LabelledView } from './viewSampler.ts';

export interface TaskViewSamplingOptions {
  arenaSeed: number;
  /** Arena colours from this hue set; 'default' keeps the sim's own colours. */
  hues: HueSet | 'default';
  episodes: number;
  viewsPerEpisode: number;
  seed: number;
  /** How long the robot moves under its command before it is sensed. */
  motionSecs: number;
  /** Share of views with a shove in the last tick (viewSampler.moveAndRead). */
  shoveChance: number;
}

export const DEFAULT_TASK_VIEW_SAMPLING: Readonly<Omit<TaskViewSamplingOptions, 'arenaSeed' | 'seed'>> = Object.freeze({
  hues: 'held-out',
  episodes: 2,
  viewsPerEpisode: 25,
  motionSecs: 0.3,
  shoveChance: 0,
});

export type TaskView<Truth> = Pick<
  LabelledView,
  'arenaSeed' | 'episodeSeed' | 'image' | 'scan' | 'joints' | 'imu' | 'imuSinceLastTick' | 'jointsSinceLastTick' | 'shoved' | 'command'
> & {
  truth: Truth;
};

/** What every task view also knows: the nearest solid and how the robot was moving (encoder training targets). */
export interface TaskViewMotionTruth {
  /** From the robot's rim to the nearest solid (GroundTruth.nearestObstacleM). */
  nearestObstacleM: number;
  linearMps: number;
  angularRadps: number;
}

export interface DockViewTruth extends TaskViewMotionTruth {
  pose: Pose2D;
  /** The robot against the dock pose, in the dock's frame. */
  inDock: DockFramePose;
}

export interface CorridorViewTruth extends TaskViewMotionTruth {
  pose: Pose2D;
  /** From the robot's rim to the nearest solid (GroundTruth.nearestObstacleM). */
  clearanceM: number;
  /** Along the channel from its middle, and off its centre line (ChannelOffset). */
  alongM: number;
  leftOfCentreM: number;
  /** Between the ends of the channel's side walls. */
  inChannel: boolean;
}

/** Dock views: within this of the dock pose's position, and within ±this of straight out in front of it. */
export const DOCK_VIEW_RADIUS_M = 0.6;
export const DOCK_VIEW_SPREAD_RAD = (30 * Math.PI) / 180;
/** Corridor views: this far beyond the channel's ends, and this far off its line outside it. */
const CORRIDOR_VIEW_BEYOND_M = 0.4;
const CORRIDOR_VIEW_ACROSS_OUTSIDE_M = 0.4;
/** Headings within ±this of the channel's direction, either way. */
const CORRIDOR_VIEW_SPREAD_RAD = (30 * Math.PI) / 180;
const PLACEMENT_MARGIN_M = 0.01;
const MAX_PLACEMENT_ATTEMPTS = 1000;

interface TaskSampling<Truth> {
  task: SimTaskName;
  /** A pose to place the robot at (not yet checked for clearance). */
  propose(random: SeededRandom, truth: GroundTruth): Pose2D;
  command(random: SeededRandom): DriveCommand;
  label(truth: GroundTruth): Truth;
}

/** Everything the robot can touch in this episode: the arena, the task's fixtures and, for corridor, the goal pillar. */
function footprintsOf(robot: SimRobot, truth: GroundTruth): Footprints {
  const { walls, obstacles } = robot.arena;
  return {
    boxes: [...walls, ...obstacles, ...truth.taskObstacles.boxes],
    pillars: [...truth.taskObstacles.pillars, ...(truth.goal.radiusM > 0 ? [truth.goal] : [])],
  };
}

function* sampleTaskViews<Truth>(
  partial: Partial<TaskViewSamplingOptions> & Pick<TaskViewSamplingOptions, 'arenaSeed' | 'seed'>,
  sampling: TaskSampling<Truth>,
): Generator<TaskView<Truth>> {
  const options: TaskViewSamplingOptions = { ...DEFAULT_TASK_VIEW_SAMPLING, ...partial };
  const arena: Partial<ArenaOptions> = options.hues === 'default' ? {} : arenaColours(options.hues, options.arenaSeed);
  const random = new SeededRandom(deriveSeed('task-views', sampling.task, options.arenaSeed, options.seed));
  const shoves = new SeededRandom(deriveSeed('task-view-shoves', sampling.task, options.arenaSeed, options.seed));
  const firstEpisodeSeed = deriveSeed('task-view-episodes', sampling.task, options.seed) % 1_000_000;
  const robot = new SimRobot({ arenaSeed: options.arenaSeed, episodeSeed: firstEpisodeSeed, arena, task: sampling.task, autoReset: false });

  for (let episode = 0; episode < options.episodes; episode++) {
    const episodeSeed = firstEpisodeSeed + episode;
    robot.resetEpisode(episodeSeed);
    const start = robot.groundTruth();
    const footprints = footprintsOf(robot, start);
    for (let view = 0; view < options.viewsPerEpisode; view++) {
      let placed: Pose2D | undefined;
      for (let attempt = 0; attempt < MAX_PLACEMENT_ATTEMPTS && placed === undefined; attempt++) {
        const pose = sampling.propose(random, start);
        if (clearanceM(footprints, pose.xM, pose.yM) >= DIFF_DRIVE_SPEC.bodyRadiusM + PLACEMENT_MARGIN_M) placed = pose;
      }
      if (placed === undefined) throw new Error(`arena ${options.arenaSeed}, ${sampling.task} episode ${episodeSeed}: found no clear pose for a view`);
      robot.placeRobot(placed);
      const command = sampling.command(random);
      robot.drive(command);
      const readings = moveAndRead(robot, options.motionSecs, options.shoveChance, shoves);
      yield { arenaSeed: options.arenaSeed, episodeSeed, ...senseAll(robot), ...readings, command, truth: sampling.label(robot.groundTruth()) };
    }
  }
}

function motionOf(truth: GroundTruth): TaskViewMotionTruth {
  return { nearestObstacleM: truth.nearestObstacleM, linearMps: truth.linearMps, angularRadps: truth.angularRadps };
}

function dockPoseOf(truth: GroundTruth): Pose2D {
  if (truth.dockPose === undefined) throw new Error(`a ${truth.task} episode has no dock pose`);
  return truth.dockPose;
}

/** Views of dock episodes from within DOCK_VIEW_RADIUS_M in front of the dock pose, heading within ±30° of it: the marker ahead, as on an approach. */
export function sampleDockViews(
  options: Partial<TaskViewSamplingOptions> & Pick<TaskViewSamplingOptions, 'arenaSeed' | 'seed'>,
): Generator<TaskView<DockViewTruth>> {
  return sampleTaskViews(options, {
    task: 'dock',
    propose: (random, truth) => {
      const distanceM = random.uniform(0, DOCK_VIEW_RADIUS_M);
      const bearingRad = random.uniform(-DOCK_VIEW_SPREAD_RAD, DOCK_VIEW_SPREAD_RAD);
      const headingErrorRad = random.uniform(-DOCK_VIEW_SPREAD_RAD, DOCK_VIEW_SPREAD_RAD);
      return worldFromDock(dockPoseOf(truth), { outM: distanceM * Math.cos(bearingRad), leftM: distanceM * Math.sin(bearingRad), headingErrorRad });
    },
    // Creeping and turning as a docking robot does; 0.3 s of it moves the robot a few centimetres at most.
    command: (random) => ({ linearMps: random.uniform(-0.05, 0.15), angularRadps: random.uniform(-0.5, 0.5) }),
    label: (truth) => ({ ...motionOf(truth), pose: truth.pose, inDock: dockFromWorld(dockPoseOf(truth), truth.pose) }),
  });
}

/** Views of corridor episodes in the channel and just beyond its ends, heading along it either way. */
export function sampleCorridorViews(
  options: Partial<TaskViewSamplingOptions> & Pick<TaskViewSamplingOptions, 'arenaSeed' | 'seed'>,
): Generator<TaskView<CorridorViewTruth>> {
  return sampleTaskViews(options, {
    task: 'corridor',
    propose: (random, truth) => {
      const channel = corridorChannel(truth.taskObstacles.boxes);
      const alongM = random.uniform(channel.alongFromM - CORRIDOR_VIEW_BEYOND_M, channel.alongToM + CORRIDOR_VIEW_BEYOND_M);
      const inChannel = alongM >= channel.alongFromM && alongM <= channel.alongToM;
      const acrossLimitM = inChannel ? channel.halfWidthM - DIFF_DRIVE_SPEC.bodyRadiusM : CORRIDOR_VIEW_ACROSS_OUTSIDE_M;
      const acrossM = channel.centreAcrossM + random.uniform(-acrossLimitM, acrossLimitM);
      const directionRad = (channel.alongAxis === 'x' ? 0 : Math.PI / 2) + (random.next() < 0.5 ? 0 : Math.PI);
      const yawRad = wrapAngleRad(directionRad + random.uniform(-CORRIDOR_VIEW_SPREAD_RAD, CORRIDOR_VIEW_SPREAD_RAD));
      return channel.alongAxis === 'x' ? { xM: alongM, yM: acrossM, yawRad } : { xM: acrossM, yM: alongM, yawRad };
    },
    command: (random) => ({ linearMps: random.uniform(0, 0.3), angularRadps: random.uniform(-0.5, 0.5) }),
    label: (truth) => {
      const channel = corridorChannel(truth.taskObstacles.boxes);
      const { alongM, leftOfCentreM } = channelOffset(channel, truth.pose);
      const halfLengthM = (channel.alongToM - channel.alongFromM) / 2;
      return { ...motionOf(truth), pose: truth.pose, clearanceM: truth.nearestObstacleM, alongM, leftOfCentreM, inChannel: Math.abs(alongM) <= halfLengthM };
    },
  });
}
