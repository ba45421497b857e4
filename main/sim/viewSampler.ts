// Labelled sensor views for training and probing encoders: the simulated robot is placed at random
// clear poses (often facing the goal, so the goal is in view often enough to learn from), moves
// briefly under a random command so its wheels and IMU have something to say, and every stream is
// read together with the truth about where the goal and the nearest obstacle are.
import type { DriveCommand, Image, Imu, JointState, LaserScan } from '../core/messages.ts';
import { clearanceM, type ArenaOptions } from './arena.ts';
import { DEFAULT_CAMERA_OPTIONS } from './camera.ts';
import { DIFF_DRIVE_SPEC } from './diffDrive.ts';
import { rayEntersAabb, wrapAngleRad, type Pose2D } from './geometry.ts';
import { arenaColours, type HueSet } from './palettes.ts';
import { deriveSeed, SeededRandom } from './random.ts';
import { PHYSICS_STEP_SECS, SimRobot, type SensorSink } from './simRobot.ts';

export interface ViewTruth {
  pose: Pose2D;
  /** The goal's direction from the robot's heading, left positive. */
  goalBearingRad: number;
  goalDistanceM: number;
  /** Inside the camera's field of view with no wall or obstacle on the line to it. */
  goalInView: boolean;
  /** From the robot's rim to the nearest wall or obstacle. */
  nearestObstacleM: number;
  linearMps: number;
  angularRadps: number;
}

export interface LabelledView {
  arenaSeed: number;
  episodeSeed: number;
  image: Image;
  scan: LaserScan;
  joints: JointState;
  imu: Imu;
  /** The IMU's and the wheels' readings over the last tick before the view, as the synchroniser hands them to perception. */
  imuSinceLastTick: Imu[];
  jointsSinceLastTick: JointState[];
  /** Whether a shove struck during that tick. */
  shoved: boolean;
  /** The command the robot was obeying when it was sensed. */
  command: DriveCommand;
  truth: ViewTruth;
}

export interface ViewSamplingOptions {
  arenaSeed: number;
  /** Arena colours from this hue set; 'default' keeps the sim's own colours. */
  hues: HueSet | 'default';
  episodes: number;
  viewsPerEpisode: number;
  seed: number;
  /** Share of views turned toward the goal (with some spread); the rest face anywhere. */
  facingGoalFraction: number;
  /** How long the robot moves under its random command before it is sensed. */
  motionSecs: number;
  /** Share of views with a shove at a random moment of the last tick (its readings then hold the kick). */
  shoveChance: number;
}

export const DEFAULT_VIEW_SAMPLING: Readonly<Omit<ViewSamplingOptions, 'arenaSeed' | 'seed'>> = Object.freeze({
  hues: 'training',
  episodes: 4,
  viewsPerEpisode: 50,
  facingGoalFraction: 0.5,
  motionSecs: 0.3,
  shoveChance: 0,
});

/** The control tick the view's readings summarise (the core's 10 Hz). */
export const VIEW_TICK_SECS = 0.1;
/** A shove's speed change, uniform in this range (the world-model bench's shoves: 0.6–1.5 m/s), in any direction. */
const SHOVE_MPS = { min: 0.3, max: 1.8 } as const;

/**
 * Moves the robot for `motionSecs`, collecting the IMU's and the wheels' readings over its last tick
 * (the synchroniser's `sinceLastTick`). With chance `shoveChance` (drawn from `shoves`, so the other
 * draws stay as they were) a shove strikes at a random physics step of that tick.
 */
export function moveAndRead(
  robot: SimRobot,
  motionSecs: number,
  shoveChance: number,
  shoves: SeededRandom,
): Pick<LabelledView, 'imuSinceLastTick' | 'jointsSinceLastTick' | 'shoved'> {
  const tickSecs = Math.min(VIEW_TICK_SECS, motionSecs);
  robot.step(motionSecs - tickSecs);
  const imuSinceLastTick: Imu[] = [];
  const jointsSinceLastTick: JointState[] = [];
  const sink: SensorSink = {
    wants: (stream) => stream === 'imu' || stream === 'joints',
    receive: (output) => {
      if (output.stream === 'imu') imuSinceLastTick.push(output.msg);
      else if (output.stream === 'joints') jointsSinceLastTick.push(output.msg);
    },
  };
  const shoved = shoveChance > 0 && shoves.next() < shoveChance;
  const steps = Math.round(tickSecs / PHYSICS_STEP_SECS);
  const shoveStep = shoved ? Math.floor(shoves.uniform(0, steps)) : -1;
  const speedMps = shoved ? shoves.uniform(SHOVE_MPS.min, SHOVE_MPS.max) : 0;
  const headingRad = shoved ? shoves.uniform(-Math.PI, Math.PI) : 0;
  for (let step = 0; step < steps; step++) {
    if (step === shoveStep) robot.inject({ kind: 'shove', forwardMps: speedMps * Math.cos(headingRad), leftwardMps: speedMps * Math.sin(headingRad) });
    robot.step(PHYSICS_STEP_SECS, sink);
  }
  return { imuSinceLastTick, jointsSinceLastTick, shoved };
}

const PLACEMENT_MARGIN_M = 0.05;
const MAX_PLACEMENT_ATTEMPTS = 1000;

/** Every stream read at once, off the publishing schedule. */
export function senseAll(robot: SimRobot): Pick<LabelledView, 'image' | 'scan' | 'joints' | 'imu'> {
  const camera = robot.senseNow('camera');
  const scan = robot.senseNow('scan');
  const joints = robot.senseNow('joints');
  const imu = robot.senseNow('imu');
  if (camera.stream !== 'camera' || scan.stream !== 'scan' || joints.stream !== 'joints' || imu.stream !== 'imu') {
    throw new Error('the simulated robot answered with the wrong stream');
  }
  return { image: camera.msg, scan: scan.msg, joints: joints.msg, imu: imu.msg };
}

export function* sampleViews(partial: Partial<ViewSamplingOptions> & Pick<ViewSamplingOptions, 'arenaSeed' | 'seed'>): Generator<LabelledView> {
  const options: ViewSamplingOptions = { ...DEFAULT_VIEW_SAMPLING, ...partial };
  const arena: Partial<ArenaOptions> = options.hues === 'default' ? {} : arenaColours(options.hues, options.arenaSeed);
  const random = new SeededRandom(deriveSeed('views', options.arenaSeed, options.seed));
  const shoves = new SeededRandom(deriveSeed('view-shoves', options.arenaSeed, options.seed));
  const firstEpisodeSeed = deriveSeed('view-episodes', options.seed) % 1_000_000;
  const robot = new SimRobot({ arenaSeed: options.arenaSeed, episodeSeed: firstEpisodeSeed, arena, autoReset: false });
  const halfFovRad = DEFAULT_CAMERA_OPTIONS.horizontalFovRad / 2;
  const boxes = [...robot.arena.walls, ...robot.arena.obstacles];
  const limitM = robot.arena.sizeM / 2 - DIFF_DRIVE_SPEC.bodyRadiusM;

  for (let episode = 0; episode < options.episodes; episode++) {
    const episodeSeed = firstEpisodeSeed + episode;
    robot.resetEpisode(episodeSeed);
    const goal = robot.groundTruth().goal;
    const footprints = { boxes, pillars: [goal] };
    for (let view = 0; view < options.viewsPerEpisode; view++) {
      let placed: Pose2D | undefined;
      for (let attempt = 0; attempt < MAX_PLACEMENT_ATTEMPTS && placed === undefined; attempt++) {
        const xM = random.uniform(-limitM, limitM);
        const yM = random.uniform(-limitM, limitM);
        if (clearanceM(footprints, xM, yM) < DIFF_DRIVE_SPEC.bodyRadiusM + PLACEMENT_MARGIN_M) continue;
        const towardGoalRad = Math.atan2(goal.yM - yM, goal.xM - xM);
        const yawRad = random.next() < options.facingGoalFraction ? wrapAngleRad(towardGoalRad + random.gaussian() * 0.5) : random.uniform(-Math.PI, Math.PI);
        placed = { xM, yM, yawRad };
      }
      if (placed === undefined) throw new Error(`arena ${options.arenaSeed}: found no clear pose for a view`);
      robot.placeRobot(placed);
      const command: DriveCommand = { linearMps: random.uniform(-0.15, 0.5), angularRadps: random.uniform(-1.5, 1.5) };
      robot.drive(command);
      const readings = moveAndRead(robot, options.motionSecs, options.shoveChance, shoves);

      const truth = robot.groundTruth();
      const { pose } = truth;
      const goalBearingRad = wrapAngleRad(Math.atan2(goal.yM - pose.yM, goal.xM - pose.xM) - pose.yawRad);
      const directionX = goal.xM - pose.xM;
      const directionY = goal.yM - pose.yM;
      // The ray's parameter runs 0..1 from the robot's centre to the goal's: anything entered before 1 hides it.
      const hidden = boxes.some((box) => rayEntersAabb(pose.xM, pose.yM, directionX, directionY, box) < 1);
      yield {
        arenaSeed: options.arenaSeed,
        episodeSeed,
        ...senseAll(robot),
        ...readings,
        command,
        truth: {
          pose,
          goalBearingRad,
          goalDistanceM: truth.goalDistanceM,
          goalInView: Math.abs(goalBearingRad) <= halfFovRad && !hidden,
          nearestObstacleM: truth.nearestObstacleM,
          linearMps: truth.linearMps,
          angularRadps: truth.angularRadps,
        },
      };
    }
  }
}
