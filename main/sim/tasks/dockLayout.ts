// Where a dock episode puts its marker and the robot. The marker is a violet panel on one of the
// arena's walls with a dark stripe down its middle, standing a few centimetres proud of the wall:
// the camera sees its colour and, up close, the stripe that centres it; the LiDAR sees the step it
// makes in the wall. The dock pose faces the stripe, a few centimetres short of touching it, and a
// lane in front of it is kept clear so that the robot can line up before it creeps in.
import { clearanceM, type Arena, type Rgb, type SolidBox } from '../arena.ts';
import { DIFF_DRIVE_SPEC } from '../diffDrive.ts';
import type { Pose2D } from '../geometry.ts';
import { NavigationField } from '../navigationField.ts';
import { deriveSeed, SeededRandom } from '../random.ts';
import { episodeSolids, type TaskEpisode } from './taskEpisode.ts';

/** Violet (hue 295°): inside the band no arena palette uses (palettes.ts), and apart from the goal's magenta. */
export const DOCK_MARKER_COLOUR: Rgb = [237, 40, 255];
/** The stripe down the marker's middle: at the dock pose the panel fills the camera's view, and the stripe centres it. */
export const DOCK_STRIPE_COLOUR: Rgb = [25, 25, 35];

const MARKER_WIDTH_M = 0.5;
const MARKER_DEPTH_M = 0.03;
const MARKER_HEIGHT_M = 0.35;
const STRIPE_WIDTH_M = 0.05;
/** The stripe stands 5 mm proud of the panel, so the camera never has to choose between two faces at one depth. */
const STRIPE_DEPTH_M = 0.035;
/** At the dock pose the robot's rim is this far from the stripe's face. */
export const DOCK_GAP_M = 0.06;
/** In front of the dock pose, this much of the floor is kept clear for lining up: at least LANE_CLEARANCE_M from any obstacle (rim). */
export const DOCK_LANE_LENGTH_M = 0.85;
const LANE_CLEARANCE_M = 0.12;
/** The marker's centre stays this far from the arena's corners along its wall. */
const CORNER_MARGIN_M = 0.8;
const START_CLEARANCE_M = 0.35;
const MIN_START_TO_DOCK_M = 2.0;
/** The start must have a path to the lane's far end with this much margin (rim) all the way. */
const START_PATH_MARGIN_M = 0.05;
const MAX_ATTEMPTS = 2000;

/** One of the arena's four walls: the unit vector from the arena's middle through it. */
const WALL_NORMALS: ReadonlyArray<{ xM: number; yM: number }> = [
  { xM: 1, yM: 0 },
  { xM: 0, yM: 1 },
  { xM: -1, yM: 0 },
  { xM: 0, yM: -1 },
];

export function placeDockEpisode(arena: Arena, episodeSeed: number): TaskEpisode {
  const random = new SeededRandom(deriveSeed('dock-episode', episodeSeed));
  const halfM = arena.sizeM / 2;
  const alongLimitM = halfM - CORNER_MARGIN_M;
  if (!(alongLimitM > MARKER_WIDTH_M / 2)) throw new Error(`arena of ${arena.sizeM} m is too small for a dock`);

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const normal = WALL_NORMALS[random.integer(WALL_NORMALS.length)] ?? { xM: 1, yM: 0 };
    const alongM = random.uniform(-alongLimitM, alongLimitM);
    const tangent = { xM: -normal.yM, yM: normal.xM };
    // A point `inM` in from the wall's face and `acrossM` along it.
    const at = (inM: number, acrossM: number) => ({
      xM: normal.xM * (halfM - inM) + tangent.xM * (alongM + acrossM),
      yM: normal.yM * (halfM - inM) + tangent.yM * (alongM + acrossM),
    });
    const box = (depthM: number, widthM: number, colour: Rgb): SolidBox => {
      const a = at(0, -widthM / 2);
      const b = at(depthM, widthM / 2);
      return {
        minXM: Math.min(a.xM, b.xM),
        minYM: Math.min(a.yM, b.yM),
        maxXM: Math.max(a.xM, b.xM),
        maxYM: Math.max(a.yM, b.yM),
        heightM: MARKER_HEIGHT_M,
        colour,
      };
    };
    const dockInM = STRIPE_DEPTH_M + DOCK_GAP_M + DIFF_DRIVE_SPEC.bodyRadiusM;
    const laneClear = Array.from({ length: 18 }, (_, i) => at(dockInM + (DOCK_LANE_LENGTH_M * i) / 17, 0)).every(
      (point) => clearanceM({ boxes: arena.obstacles, pillars: [] }, point.xM, point.yM) >= DIFF_DRIVE_SPEC.bodyRadiusM + LANE_CLEARANCE_M,
    );
    if (!laneClear) continue;

    const dockPoint = at(dockInM, 0);
    const dockPose: Pose2D = { ...dockPoint, yawRad: Math.atan2(normal.yM, normal.xM) };
    const marker = [box(MARKER_DEPTH_M, MARKER_WIDTH_M, DOCK_MARKER_COLOUR), box(STRIPE_DEPTH_M, STRIPE_WIDTH_M, DOCK_STRIPE_COLOUR)];
    const episode: TaskEpisode = {
      task: 'dock',
      startPose: dockPose,
      goal: { xM: dockPose.xM, yM: dockPose.yM, radiusM: 0 },
      goalPillar: undefined,
      fixtures: { boxes: marker, pillars: [] },
      dockPose,
    };
    const solids = episodeSolids(arena, episode);
    const laneEnd = at(dockInM + DOCK_LANE_LENGTH_M, 0);
    const field = new NavigationField(
      arena.sizeM,
      solids,
      { ...laneEnd, radiusM: 0 },
      {
        cellM: 0.05,
        blockedWithinM: DIFF_DRIVE_SPEC.bodyRadiusM + START_PATH_MARGIN_M,
        goalWithinM: 0.1,
        preferredClearanceM: 0,
        clearancePenalty: 0,
      },
    );
    const startLimitM = halfM - START_CLEARANCE_M;
    for (let startAttempt = 0; startAttempt < 200; startAttempt++) {
      const xM = random.uniform(-startLimitM, startLimitM);
      const yM = random.uniform(-startLimitM, startLimitM);
      if (clearanceM(solids, xM, yM) < START_CLEARANCE_M || Math.hypot(xM - dockPose.xM, yM - dockPose.yM) < MIN_START_TO_DOCK_M) continue;
      if (!Number.isFinite(field.costToGoM(xM, yM))) continue;
      return { ...episode, startPose: { xM, yM, yawRad: random.uniform(-Math.PI, Math.PI) } };
    }
  }
  throw new Error(`arena of ${arena.sizeM} m has no room for a dock with a clear lane and a start pose far enough from it`);
}
