// The `corridor` task: reach a goal pillar on the far side of a wall that crosses the whole arena,
// through the one passage in it, a short channel with bumps on alternate sides (a chicane). At each
// bump the free width is the robot's diameter plus 9–14 cm a side, so every path from start to goal
// squeezes by something within 15 cm of either side. Judged as reach is (ReachTask), with a longer
// time limit; progress is along the planned path, so it rewards finding the passage.
import { clearanceM, GOAL_COLOUR, type Arena, type Rgb, type SolidBox, type SolidPillar } from '../arena.ts';
import { DIFF_DRIVE_SPEC } from '../diffDrive.ts';
import type { Aabb, Pose2D } from '../geometry.ts';
import { NavigationField } from '../navigationField.ts';
import { deriveSeed, SeededRandom } from '../random.ts';
import type { ReachOptions } from './reach.ts';
import { episodeSolids, type TaskEpisode } from './taskEpisode.ts';

export const DEFAULT_CORRIDOR_OPTIONS: Readonly<ReachOptions> = Object.freeze({ timeLimitSecs: 60, successGapM: 0.25 });

/** The free space beside the robot at the passage's narrowest, each side, when it is centred there. */
export const CORRIDOR_SIDE_CLEARANCE_RANGE_M: readonly [number, number] = [0.09, 0.14];

const WALL_THICKNESS_M = 0.08;
const WALL_HEIGHT_M = 0.4;
const CHANNEL_LENGTH_RANGE_M: readonly [number, number] = [1.0, 1.4];
/** How far each bump stands out from its wall. */
const BUMP_DEPTH_RANGE_M: readonly [number, number] = [0.06, 0.12];
const BUMP_LENGTH_M = 0.15;
/** The divider stays this near the arena's middle, so that both sides have room. */
const DIVIDER_OFFSET_LIMIT_M = 0.5;
/** The passage stays this far from the arena's walls. */
const PASSAGE_WALL_MARGIN_M = 0.9;
/** No arena obstacle comes within this of the channel's sides, or this plus more of its mouths. */
const CHANNEL_SIDE_MARGIN_M = 0.3;
const CHANNEL_MOUTH_MARGIN_M = 0.7;
const GOAL_RADIUS_M = 0.15;
const GOAL_HEIGHT_M = 1.0;
/** The goal's surface stays this far from every box, as reach's does from obstacles, a little less. */
const GOAL_CLEARANCE_M = 0.45;
const START_CLEARANCE_M = 0.35;
/** Start and goal are at least this far from the channel's mouths: the corridor is part of the way, not all of it. */
const MOUTH_DISTANCE_M = 0.8;
/** The start must have a path to the goal with this much margin (rim) all the way. */
const PATH_MARGIN_M = 0.04;
/**
 * And that path is at most this long. Without a bound a start and goal far along the divider from the
 * passage make a detour that a careful operator cannot drive in the time limit (issue 26: the task
 * is widened, the operator's noise kept).
 */
export const CORRIDOR_MAX_ROUTE_M = 6;
const MAX_ATTEMPTS = 500;
const MAX_POINT_ATTEMPTS = 300;

/** A rectangle in the passage's own frame: u across the divider (along the channel), v along the divider. */
interface PassageRect {
  minU: number;
  maxU: number;
  minV: number;
  maxV: number;
}

export function placeCorridorEpisode(arena: Arena, episodeSeed: number): TaskEpisode {
  const random = new SeededRandom(deriveSeed('corridor-episode', episodeSeed));
  const halfM = arena.sizeM / 2;
  const radiusM = DIFF_DRIVE_SPEC.bodyRadiusM;
  const wallColour = arena.walls[0]?.colour ?? GOAL_COLOUR;
  const clutterColour = (index: number): Rgb => arena.obstacles[index % Math.max(1, arena.obstacles.length)]?.colour ?? wallColour;
  if (!(halfM > PASSAGE_WALL_MARGIN_M + DIVIDER_OFFSET_LIMIT_M)) throw new Error(`arena of ${arena.sizeM} m is too small for a corridor`);

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    // The divider crosses x (a line x = c) or y; `toWorld` maps the passage's frame to the arena's.
    const acrossX = random.next() < 0.5;
    const toWorld = (u: number, v: number) => (acrossX ? { xM: u, yM: v } : { xM: v, yM: u });
    const box = (rect: PassageRect, colour: Rgb): SolidBox => ({ ...rectToAabb(toWorld, rect), heightM: WALL_HEIGHT_M, colour });
    const dividerU = random.uniform(-DIVIDER_OFFSET_LIMIT_M, DIVIDER_OFFSET_LIMIT_M);
    const passageV = random.uniform(-(halfM - PASSAGE_WALL_MARGIN_M), halfM - PASSAGE_WALL_MARGIN_M);
    const sideClearanceM = random.uniform(...CORRIDOR_SIDE_CLEARANCE_RANGE_M);
    const bumpDepthM = random.uniform(...BUMP_DEPTH_RANGE_M);
    const lengthM = random.uniform(...CHANNEL_LENGTH_RANGE_M);
    const bumpCount = 2 + random.integer(2);
    const firstBumpSide = random.next() < 0.5 ? -1 : 1;
    const startSide = random.next() < 0.5 ? -1 : 1;

    // The channel between its side walls is the pinch's width plus one bump's depth, so that beside each bump it is the pinch.
    const halfWidthM = radiusM + sideClearanceM + bumpDepthM / 2;
    const startU = dividerU - lengthM / 2;
    const endU = dividerU + lengthM / 2;
    const keepOut: Aabb = rectToAabb(toWorld, {
      minU: startU - CHANNEL_MOUTH_MARGIN_M,
      maxU: endU + CHANNEL_MOUTH_MARGIN_M,
      minV: passageV - halfWidthM - WALL_THICKNESS_M - CHANNEL_SIDE_MARGIN_M,
      maxV: passageV + halfWidthM + WALL_THICKNESS_M + CHANNEL_SIDE_MARGIN_M,
    });
    if (arena.obstacles.some((obstacle) => overlaps(obstacle, keepOut))) continue;

    const boxes: SolidBox[] = [
      // The divider, wall to wall, meeting the channel's side walls.
      box({ minU: dividerU - WALL_THICKNESS_M / 2, maxU: dividerU + WALL_THICKNESS_M / 2, minV: -halfM, maxV: passageV - halfWidthM }, wallColour),
      box({ minU: dividerU - WALL_THICKNESS_M / 2, maxU: dividerU + WALL_THICKNESS_M / 2, minV: passageV + halfWidthM, maxV: halfM }, wallColour),
      box({ minU: startU, maxU: endU, minV: passageV - halfWidthM - WALL_THICKNESS_M, maxV: passageV - halfWidthM }, wallColour),
      box({ minU: startU, maxU: endU, minV: passageV + halfWidthM, maxV: passageV + halfWidthM + WALL_THICKNESS_M }, wallColour),
    ];
    for (let bump = 0; bump < bumpCount; bump++) {
      const centreU = startU + (lengthM * (bump + 0.5)) / bumpCount;
      const side = bump % 2 === 0 ? firstBumpSide : -firstBumpSide;
      const wallV = passageV + side * halfWidthM;
      const rect = {
        minU: centreU - BUMP_LENGTH_M / 2,
        maxU: centreU + BUMP_LENGTH_M / 2,
        minV: Math.min(wallV, wallV - side * bumpDepthM),
        maxV: Math.max(wallV, wallV - side * bumpDepthM),
      };
      boxes.push(box(rect, clutterColour(bump)));
    }

    const entrance = toWorld(startSide < 0 ? startU : endU, passageV);
    const exit = toWorld(startSide < 0 ? endU : startU, passageV);
    const onSide = (xM: number, yM: number, side: number, marginM: number): boolean => side * ((acrossX ? xM : yM) - dividerU) >= marginM;
    const layout: TaskEpisode = {
      task: 'corridor',
      startPose: { xM: 0, yM: 0, yawRad: 0 },
      goal: { xM: 0, yM: 0, radiusM: GOAL_RADIUS_M },
      goalPillar: undefined,
      fixtures: { boxes, pillars: [] },
      dockPose: undefined,
    };
    const solids = episodeSolids(arena, layout);
    const limitM = halfM - START_CLEARANCE_M;
    const goalCentre = samplePoint(
      random,
      limitM,
      (xM, yM) =>
        onSide(xM, yM, -startSide, GOAL_RADIUS_M + GOAL_CLEARANCE_M) &&
        clearanceM(solids, xM, yM) >= GOAL_RADIUS_M + GOAL_CLEARANCE_M &&
        Math.hypot(xM - exit.xM, yM - exit.yM) >= MOUTH_DISTANCE_M,
    );
    if (goalCentre === undefined) continue;
    const goalPillar: SolidPillar = { ...goalCentre, radiusM: GOAL_RADIUS_M, heightM: GOAL_HEIGHT_M, colour: GOAL_COLOUR };
    const goal = { ...goalCentre, radiusM: GOAL_RADIUS_M };
    const withGoal = { boxes: solids.boxes, pillars: [goalPillar] };
    const field = new NavigationField(arena.sizeM, withGoal, goal, {
      cellM: 0.05,
      blockedWithinM: radiusM + PATH_MARGIN_M,
      goalWithinM: GOAL_RADIUS_M + radiusM + DEFAULT_CORRIDOR_OPTIONS.successGapM,
      preferredClearanceM: 0,
      clearancePenalty: 0,
    });
    const start = samplePoint(
      random,
      limitM,
      (xM, yM) =>
        onSide(xM, yM, startSide, START_CLEARANCE_M) &&
        clearanceM(withGoal, xM, yM) >= START_CLEARANCE_M &&
        Math.hypot(xM - entrance.xM, yM - entrance.yM) >= MOUTH_DISTANCE_M &&
        field.costToGoM(xM, yM) <= CORRIDOR_MAX_ROUTE_M,
    );
    if (start === undefined) continue;
    return { ...layout, startPose: { ...start, yawRad: random.uniform(-Math.PI, Math.PI) }, goal, goalPillar };
  }
  throw new Error(`arena of ${arena.sizeM} m has no room for a corridor clear of its obstacles`);
}

/** The passage's channel, read back from a corridor episode's boxes (GroundTruth.taskObstacles): its centre line and extent. */
export interface CorridorChannel {
  /** The world axis the channel runs along (across the divider). */
  alongAxis: 'x' | 'y';
  /** The centre line's coordinate on the other axis. */
  centreAcrossM: number;
  /** Where the channel's side walls begin and end along its axis. */
  alongFromM: number;
  alongToM: number;
  /** From the centre line to either side wall's face; beside a bump the free half-width is less by the bump's depth. */
  halfWidthM: number;
}

/** A pose against the channel: along it from its middle, and off its centre line to the left as the robot faces along it. */
export interface ChannelOffset {
  alongM: number;
  /** Positive when the robot is left of the centre line, looking whichever way along the channel it faces more. */
  leftOfCentreM: number;
}

/** The channel of a corridor episode from its fixtures' boxes, in the order placeCorridorEpisode lays them (the side walls third and fourth). */
export function corridorChannel(boxes: readonly Aabb[]): CorridorChannel {
  const [a, b] = [boxes[2], boxes[3]];
  if (a === undefined || b === undefined) throw new Error(`a corridor has at least 4 boxes, got ${boxes.length}`);
  const sameSpan = (lo: 'minXM' | 'minYM', hi: 'maxXM' | 'maxYM') => Math.abs(a[lo] - b[lo]) < 1e-9 && Math.abs(a[hi] - b[hi]) < 1e-9;
  if (sameSpan('minXM', 'maxXM') && !sameSpan('minYM', 'maxYM')) {
    const [low, high] = a.maxYM <= b.minYM ? [a, b] : [b, a];
    return { alongAxis: 'x', centreAcrossM: (low.maxYM + high.minYM) / 2, alongFromM: a.minXM, alongToM: a.maxXM, halfWidthM: (high.minYM - low.maxYM) / 2 };
  }
  if (sameSpan('minYM', 'maxYM') && !sameSpan('minXM', 'maxXM')) {
    const [low, high] = a.maxXM <= b.minXM ? [a, b] : [b, a];
    return { alongAxis: 'y', centreAcrossM: (low.maxXM + high.minXM) / 2, alongFromM: a.minYM, alongToM: a.maxYM, halfWidthM: (high.minXM - low.maxXM) / 2 };
  }
  throw new Error("the third and fourth boxes are not a corridor channel's side walls");
}

export function channelOffset(channel: CorridorChannel, pose: Pose2D): ChannelOffset {
  const alongX = channel.alongAxis === 'x';
  const alongM = (alongX ? pose.xM : pose.yM) - (channel.alongFromM + channel.alongToM) / 2;
  const acrossM = (alongX ? pose.yM : pose.xM) - channel.centreAcrossM;
  // Facing +x, left is +y; facing +y, left is −x; facing the other way, both flip.
  const facing = (alongX ? Math.cos(pose.yawRad) : Math.sin(pose.yawRad)) >= 0 ? 1 : -1;
  return { alongM, leftOfCentreM: facing * (alongX ? acrossM : -acrossM) };
}

function rectToAabb(toWorld: (u: number, v: number) => { xM: number; yM: number }, rect: PassageRect): Aabb {
  const a = toWorld(rect.minU, rect.minV);
  const b = toWorld(rect.maxU, rect.maxV);
  return { minXM: Math.min(a.xM, b.xM), minYM: Math.min(a.yM, b.yM), maxXM: Math.max(a.xM, b.xM), maxYM: Math.max(a.yM, b.yM) };
}

function overlaps(a: Aabb, b: Aabb): boolean {
  return a.minXM < b.maxXM && b.minXM < a.maxXM && a.minYM < b.maxYM && b.minYM < a.maxYM;
}

function samplePoint(random: SeededRandom, limitM: number, isGood: (xM: number, yM: number) => boolean): { xM: number; yM: number } | undefined {
  for (let attempt = 0; attempt < MAX_POINT_ATTEMPTS; attempt++) {
    const xM = random.uniform(-limitM, limitM);
    const yM = random.uniform(-limitM, limitM);
    if (isGood(xM, yM)) return { xM, yM };
  }
  return undefined;
}
