// The simulated robot's world: a walled square arena with box obstacles (fixed by arenaSeed), and an
// episode (fixed by episodeSeed) that places the goal pillar and the robot's start pose. Layouts are
// drawn by rejection sampling so that every gap the robot must use is wide enough for it.
import { distanceToAabbM, distanceToCircleM, type Aabb, type Circle, type Pose2D } from './geometry.ts';
import { deriveSeed, SeededRandom } from './random.ts';

/** An sRGB colour, 0–255 per channel. */
export type Rgb = readonly [number, number, number];

export interface SolidBox extends Aabb {
  heightM: number;
  colour: Rgb;
}

export interface SolidPillar extends Circle {
  heightM: number;
  colour: Rgb;
}

export interface ArenaOptions {
  /** Inside width of the square, centred at the origin. */
  sizeM: number;
  obstacleCount: number;
  /** Obstacle colours, used in turn; encoders are trained on some palettes and probed on others. */
  obstaclePalette: readonly Rgb[];
  floorColours: readonly [Rgb, Rgb];
  wallColour: Rgb;
}

export interface Arena {
  sizeM: number;
  walls: readonly SolidBox[];
  obstacles: readonly SolidBox[];
  floorTileM: number;
  floorColours: readonly [Rgb, Rgb];
}

export interface Episode {
  startPose: Pose2D;
  goal: SolidPillar;
}

/** Everything a ray can hit or the robot can bump into. */
export interface Solids extends Footprints {
  boxes: readonly SolidBox[];
  pillars: readonly SolidPillar[];
}

/** Solids seen from above: all that planning and clearance need. */
export interface Footprints {
  boxes: readonly Aabb[];
  pillars: readonly Circle[];
}

export const WALL_COLOUR: Rgb = [200, 200, 205];
/** Bright magenta: no obstacle, wall or floor colour comes near it, so a detector can find it. */
export const GOAL_COLOUR: Rgb = [255, 40, 200];
/** Orange, for obstacles dropped in mid-episode: unlike any layout colour, so a test can find them. */
export const DROPPED_OBSTACLE_COLOUR: Rgb = [255, 125, 20];
const OBSTACLE_PALETTE: readonly Rgb[] = [
  [220, 45, 45],
  [40, 90, 225],
  [45, 180, 70],
  [235, 205, 40],
  [40, 190, 200],
];

export const DEFAULT_ARENA_OPTIONS: Readonly<ArenaOptions> = Object.freeze({
  sizeM: 6,
  obstacleCount: 4,
  obstaclePalette: OBSTACLE_PALETTE,
  floorColours: [
    [62, 62, 68],
    [44, 44, 50],
  ] as const,
  wallColour: WALL_COLOUR,
});

const WALL_THICKNESS_M = 0.2;
const WALL_HEIGHT_M = 0.5;
const GOAL_RADIUS_M = 0.15;
const GOAL_HEIGHT_M = 1.0;
/** Wider than the robot's 0.35 m diameter, so no obstacle seals off part of the arena. */
const PASSAGE_WIDTH_M = 0.6;
const START_CLEARANCE_M = 0.35;
const MIN_START_TO_GOAL_M = 2.0;
const MAX_ATTEMPTS = 2000;

export function createArena(arenaSeed: number, options: Partial<ArenaOptions> = {}): Arena {
  const { sizeM, obstacleCount, obstaclePalette, floorColours, wallColour } = { ...DEFAULT_ARENA_OPTIONS, ...options };
  if (!(sizeM >= 2)) throw new RangeError(`arena sizeM must be at least 2 m, got ${sizeM}`);
  if (!Number.isInteger(obstacleCount) || obstacleCount < 0) {
    throw new RangeError(`arena obstacleCount must be a whole number ≥ 0, got ${obstacleCount}`);
  }
  if (obstaclePalette.length === 0) throw new RangeError('arena obstaclePalette needs at least one colour');
  const random = new SeededRandom(deriveSeed('arena', arenaSeed));
  const halfM = sizeM / 2;
  const outerM = halfM + WALL_THICKNESS_M;
  const wall = (minXM: number, minYM: number, maxXM: number, maxYM: number): SolidBox => ({
    minXM,
    minYM,
    maxXM,
    maxYM,
    heightM: WALL_HEIGHT_M,
    colour: wallColour,
  });
  const walls = [
    wall(-outerM, halfM, outerM, outerM),
    wall(-outerM, -outerM, outerM, -halfM),
    wall(halfM, -halfM, outerM, halfM),
    wall(-outerM, -halfM, -halfM, halfM),
  ];

  const obstacles: SolidBox[] = [];
  const paletteOffset = random.integer(obstaclePalette.length);
  for (let attempt = 0; attempt < MAX_ATTEMPTS && obstacles.length < obstacleCount; attempt++) {
    const halfWidthM = random.uniform(0.15, 0.45);
    const halfDepthM = random.uniform(0.15, 0.45);
    const centreLimitXM = halfM - PASSAGE_WIDTH_M - halfWidthM;
    const centreLimitYM = halfM - PASSAGE_WIDTH_M - halfDepthM;
    const centreXM = random.uniform(-centreLimitXM, centreLimitXM);
    const centreYM = random.uniform(-centreLimitYM, centreLimitYM);
    const heightM = random.uniform(0.3, 0.6);
    const candidate: Aabb = {
      minXM: centreXM - halfWidthM,
      minYM: centreYM - halfDepthM,
      maxXM: centreXM + halfWidthM,
      maxYM: centreYM + halfDepthM,
    };
    if (centreLimitXM <= 0 || centreLimitYM <= 0) continue;
    if (obstacles.some((other) => gapBetweenBoxesM(candidate, other) < PASSAGE_WIDTH_M)) continue;
    const colour = obstaclePalette[(paletteOffset + obstacles.length) % obstaclePalette.length];
    if (colour === undefined) throw new Error('obstacle palette is empty');
    obstacles.push({ ...candidate, heightM, colour });
  }
  return {
    sizeM,
    walls,
    obstacles,
    floorTileM: 0.5,
    floorColours,
  };
}

/** Places the goal and the start pose: the goal clear of obstacles, the start clear and far from it. */
export function placeEpisode(arena: Arena, episodeSeed: number): Episode {
  const random = new SeededRandom(deriveSeed('episode', episodeSeed));
  const halfM = arena.sizeM / 2;
  const boxes = [...arena.walls, ...arena.obstacles];

  const goalCentre = sampleClearPoint(random, halfM - PASSAGE_WIDTH_M, (xM, yM) =>
    boxes.every((box) => distanceToAabbM(xM, yM, box) >= GOAL_RADIUS_M + PASSAGE_WIDTH_M),
  );
  if (goalCentre === undefined) throw new Error(`arena of ${arena.sizeM} m has no room for the goal`);
  const goal: SolidPillar = {
    xM: goalCentre.xM,
    yM: goalCentre.yM,
    radiusM: GOAL_RADIUS_M,
    heightM: GOAL_HEIGHT_M,
    colour: GOAL_COLOUR,
  };

  const start = sampleClearPoint(
    random,
    halfM - START_CLEARANCE_M,
    (xM, yM) => clearanceM({ boxes, pillars: [goal] }, xM, yM) >= START_CLEARANCE_M && Math.hypot(xM - goal.xM, yM - goal.yM) >= MIN_START_TO_GOAL_M,
  );
  if (start === undefined) throw new Error(`arena of ${arena.sizeM} m has no start pose far enough from the goal`);
  return { startPose: { ...start, yawRad: random.uniform(-Math.PI, Math.PI) }, goal };
}

export function solidsOf(arena: Arena, goal: SolidPillar): Solids {
  return { boxes: [...arena.walls, ...arena.obstacles], pillars: [goal] };
}

/** Distance from a point to the nearest solid surface. */
export function clearanceM(footprints: Footprints, xM: number, yM: number): number {
  let nearestM = Infinity;
  for (const box of footprints.boxes) nearestM = Math.min(nearestM, distanceToAabbM(xM, yM, box));
  for (const pillar of footprints.pillars) nearestM = Math.min(nearestM, distanceToCircleM(xM, yM, pillar));
  return nearestM;
}

function gapBetweenBoxesM(a: Aabb, b: Aabb): number {
  const gapXM = Math.max(a.minXM - b.maxXM, b.minXM - a.maxXM, 0);
  const gapYM = Math.max(a.minYM - b.maxYM, b.minYM - a.maxYM, 0);
  return Math.hypot(gapXM, gapYM);
}

function sampleClearPoint(random: SeededRandom, limitM: number, isClear: (xM: number, yM: number) => boolean): { xM: number; yM: number } | undefined {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const xM = random.uniform(-limitM, limitM);
    const yM = random.uniform(-limitM, limitM);
    if (isClear(xM, yM)) return { xM, yM };
  }
  return undefined;
}
