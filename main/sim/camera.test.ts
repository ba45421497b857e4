import { createHash } from 'node:crypto';
import { describe, it, expect } from 'vitest';
import type { Image } from '../core/messages.ts';
import { createArena, GOAL_COLOUR, placeEpisode, solidsOf, type Episode } from './arena.ts';
import { CameraRenderer, DEFAULT_CAMERA_OPTIONS } from './camera.ts';
import type { Pose2D } from './geometry.ts';
import { SeededRandom } from './random.ts';
import { SimRobot } from './simRobot.ts';

function robotWithGoalAt(startPose: Pose2D, goalXM: number, goalYM: number): SimRobot {
  const robot = new SimRobot({ arenaSeed: 5, episodeSeed: 5, arena: { sizeM: 10, obstacleCount: 0 } });
  const episode: Episode = { startPose, goal: { xM: goalXM, yM: goalYM, radiusM: 0.15, heightM: 1, colour: GOAL_COLOUR } };
  robot.startEpisode(episode);
  return robot;
}

/** The next camera frame the robot sends, after stepping `durationSecs` (while holding a command, if given). */
function nextFrame(robot: SimRobot, durationSecs = 0.1): Image {
  let frame: Image | undefined;
  robot.step(durationSecs, {
    wants: (stream) => stream === 'camera',
    receive: (output) => {
      if (output.stream === 'camera') frame = output.msg;
    },
  });
  if (frame === undefined) throw new Error(`no camera frame in ${durationSecs} s`);
  return frame;
}

function meanAbsoluteDifference(a: Image, b: Image): number {
  let total = 0;
  a.data.forEach((value, index) => {
    total += Math.abs(value - (b.data[index] ?? 0));
  });
  return total / a.data.length;
}

function pixel(image: Image, columnPx: number, rowPx: number): [number, number, number] {
  const offset = rowPx * image.step + columnPx * 3;
  return [image.data[offset] ?? 0, image.data[offset + 1] ?? 0, image.data[offset + 2] ?? 0];
}

/** Columns of the pixels a goal detector would call goal-coloured (strong red and blue, weak green). */
function goalPixelColumns(image: Image): number[] {
  const columns: number[] = [];
  for (let row = 0; row < image.height; row++) {
    for (let column = 0; column < image.width; column++) {
      const [red, green, blue] = pixel(image, column, row);
      if (red > 120 && blue > 90 && green < 0.5 * Math.min(red, blue)) columns.push(column);
    }
  }
  return columns;
}

describe('camera', () => {
  it('renders the same pixels from the same pose and seeds as the encoders were trained on', () => {
    // The digest of 24 frames from the renderer the encoders (reins-sim-encoders-2) saw: a faster
    // renderer must draw the same bytes, noise included, or the encoders are retrained.
    const arena = createArena(80_001);
    const episode = placeEpisode(arena, 5);
    const camera = new CameraRenderer({ ...DEFAULT_CAMERA_OPTIONS }, arena, solidsOf(arena, episode.goal));
    const random = new SeededRandom(7);
    const digest = createHash('sha256');
    for (let i = 0; i < 24; i++) {
      const { xM, yM } = episode.startPose;
      digest.update(camera.render({ xM: xM + i * 0.05, yM: yM - i * 0.03, yawRad: i * 0.27 }, random).data);
    }
    expect(digest.digest('hex')).toBe('0fc9f42c0b7cf545e7da458e5ebf97f612d9f7ed9289ce82261e73a3ea88b87b');
  });

  it('draws its pixel noise as nextUint32 would, one draw a pixel', () => {
    const one = new SeededRandom(11);
    const many = new SeededRandom(11);
    const filled = new Uint32Array(1000);
    many.fillUint32(filled);
    expect(Array.from(filled)).toEqual(Array.from({ length: 1000 }, () => one.nextUint32()));
    expect(many.nextUint32()).toBe(one.nextUint32());
  });

  it('sends rgb8 frames of the configured size', () => {
    const robot = new SimRobot({ arenaSeed: 1, episodeSeed: 1, camera: { widthPx: 64, heightPx: 48 } });
    const frame = nextFrame(robot);
    expect(frame).toMatchObject({ kind: 'Image', encoding: 'rgb8', width: 64, height: 48, step: 64 * 3 });
    expect(frame.data).toHaveLength(64 * 48 * 3);
  });

  it('changes when the robot turns, beyond the pixel noise of a robot standing still', () => {
    const robot = new SimRobot({ arenaSeed: 1, episodeSeed: 1 });
    const before = nextFrame(robot);
    const stillAfter = nextFrame(robot);
    const noiseLevel = meanAbsoluteDifference(before, stillAfter);
    expect(noiseLevel).toBeGreaterThan(0);
    expect(noiseLevel).toBeLessThan(3);
    for (let i = 0; i < 10; i++) {
      robot.drive({ linearMps: 0, angularRadps: 1.5 });
      robot.step(0.1);
    }
    expect(robot.groundTruth().angularRadps).toBeCloseTo(1.5, 1);
    expect(meanAbsoluteDifference(before, nextFrame(robot))).toBeGreaterThan(5 * noiseLevel);
  });

  it('shows the goal pillar when facing it, on the side it is on, and not when facing away', () => {
    const facing = goalPixelColumns(nextFrame(robotWithGoalAt({ xM: 0, yM: 0, yawRad: 0 }, 2, 0)));
    expect(facing.length).toBeGreaterThan(300);
    const centreColumn = facing.reduce((sum, column) => sum + column, 0) / facing.length;
    expect(Math.abs(centreColumn - 79.5)).toBeLessThan(2);

    const toTheRight = goalPixelColumns(nextFrame(robotWithGoalAt({ xM: 0, yM: 0, yawRad: 0.4 }, 2, 0)));
    expect(toTheRight.reduce((sum, column) => sum + column, 0) / toTheRight.length).toBeGreaterThan(100);

    const away = goalPixelColumns(nextFrame(robotWithGoalAt({ xM: 0, yM: 0, yawRad: Math.PI }, 2, 0)));
    expect(away).toHaveLength(0);
  });

  it('tells sky, wall, floor and obstacles apart by colour', () => {
    const frame = nextFrame(robotWithGoalAt({ xM: 3, yM: 0, yawRad: 0 }, -3, 3));
    const [skyRed, , skyBlue] = pixel(frame, 80, 2);
    expect(skyBlue - skyRed, 'sky is blue').toBeGreaterThan(40);
    const wall = pixel(frame, 80, 58);
    expect(Math.max(...wall) - Math.min(...wall), 'wall is grey').toBeLessThan(25);
    expect(Math.min(...wall), 'wall is light').toBeGreaterThan(120);
    expect(Math.max(...pixel(frame, 80, 118)), 'floor is dark').toBeLessThan(90);

    const robot = new SimRobot({ arenaSeed: 1, episodeSeed: 1 });
    const [obstacle] = robot.arena.obstacles;
    if (obstacle === undefined) throw new Error('arena 1 has no obstacles');
    const centreXM = (obstacle.minXM + obstacle.maxXM) / 2;
    const centreYM = (obstacle.minYM + obstacle.maxYM) / 2;
    robot.placeRobot({ xM: centreXM, yM: obstacle.minYM - 0.6, yawRad: Math.PI / 2 });
    const seen = pixel(nextFrame(robot), 80, 70);
    const dominant = (colour: readonly number[]): number => colour.indexOf(Math.max(...colour));
    expect(dominant(seen), `obstacle at (${centreXM.toFixed(2)}, ${centreYM.toFixed(2)})`).toBe(dominant(obstacle.colour));
    expect(Math.max(...seen) - Math.min(...seen), 'obstacles are saturated').toBeGreaterThan(80);
  });
});
