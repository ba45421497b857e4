// What a navigation stack on the simulated robot would publish beside its map, for a 3D view to draw:
// the planned route from where the robot is to the goal (a grid plan on the true map, as the scripted
// operator's, `/plan`), and markers for the goal, its label, the arena's outline and obstacles, what
// was dropped in since, and the robot's heading (locked to base_link). In the map frame, whose
// coordinates are the arena's. The plan is rebuilt only when the episode or its obstacles change.
import { type Arena, type Footprints, type Rgb } from './arena.ts';
import { DIFF_DRIVE_SPEC } from './diffDrive.ts';
import { NavigationField, type PointM } from './navigationField.ts';
import type { GroundTruth } from './simRobot.ts';

/** How often /plan and /markers go out: a global planner's pace, modest for a link. */
export const NAVIGATION_OVERLAY_RATE_HZ = 1;
/** The longest route given (the arena's diagonal is well under it). */
const MAX_ROUTE_M = 60;
const PLAN_CELL_M = 0.1;
const PLAN_MARGIN_M = 0.05;
const PLAN_GOAL_GAP_M = 0.15;
const GOAL_PILLAR_HEIGHT_M = 1;
const DOCK_MARK_HEIGHT_M = 0.02;
const LABEL_HEIGHT_M = 0.2;
const DROPPED_HEIGHT_M = 0.4;
const HEADING_LENGTH_M = 0.4;

/** The Marker types the overlay uses, by their visualization_msgs numbers. */
export const MarkerType = { arrow: 0, cube: 1, cylinder: 3, lineList: 5, text: 9 } as const;

/** One marker, free of any ROS version's shape (sceneMessages.ts writes it). */
export interface OverlayMarker {
  ns: string;
  id: number;
  type: (typeof MarkerType)[keyof typeof MarkerType];
  frame: string;
  positionM: { x: number; y: number; z: number };
  yawRad: number;
  scaleM: { x: number; y: number; z: number };
  /** 0–1 each. */
  colour: { r: number; g: number; b: number; a: number };
  frameLocked: boolean;
  points: Array<{ x: number; y: number; z: number }>;
  text: string;
}

export interface RoutePose {
  xM: number;
  yM: number;
  yawRad: number;
}

export class NavigationOverlay {
  private plan: { key: string; field: NavigationField } | undefined;

  constructor(
    private readonly arena: Arena,
    private readonly mapFrame: string,
    private readonly baseFrame: string,
  ) {}

  /** The route from the robot's true pose to the goal, each pose facing the next; empty where none is found. */
  route(truth: GroundTruth): RoutePose[] {
    const points = this.fieldFor(truth).pathFrom(truth.pose.xM, truth.pose.yM, MAX_ROUTE_M);
    const route = [{ xM: truth.pose.xM, yM: truth.pose.yM }, ...points];
    if (points.length === 0) return [];
    return route.map((point, index) => {
      const next: PointM = route[index + 1] ?? point;
      const previous: PointM = route[index - 1] ?? point;
      const towards = next === point ? { xM: point.xM - previous.xM, yM: point.yM - previous.yM } : { xM: next.xM - point.xM, yM: next.yM - point.yM };
      return { xM: point.xM, yM: point.yM, yawRad: Math.atan2(towards.yM, towards.xM) };
    });
  }

  /** Every marker, as a publisher sends them each time: after a DELETEALL (the caller's), so that what went away goes. */
  markers(truth: GroundTruth): OverlayMarker[] {
    const markers: OverlayMarker[] = [];
    const base = { frame: this.mapFrame, yawRad: 0, frameLocked: false, points: [], text: '' };
    const { goal } = truth;
    const docking = truth.dockPose !== undefined;
    const goalHeightM = docking ? DOCK_MARK_HEIGHT_M : GOAL_PILLAR_HEIGHT_M;
    const goalDiameterM = Math.max(0.1, goal.radiusM * 2);
    const magenta = { r: 1, g: 0.16, b: 0.78, a: 0.8 };
    markers.push({
      ...base,
      ns: 'goal',
      id: 0,
      type: MarkerType.cylinder,
      positionM: { x: goal.xM, y: goal.yM, z: goalHeightM / 2 },
      scaleM: { x: goalDiameterM, y: goalDiameterM, z: goalHeightM },
      colour: magenta,
    });
    markers.push({
      ...base,
      ns: 'goal',
      id: 1,
      type: MarkerType.text,
      positionM: { x: goal.xM, y: goal.yM, z: goalHeightM + LABEL_HEIGHT_M },
      scaleM: { x: 0, y: 0, z: LABEL_HEIGHT_M },
      colour: { r: 1, g: 1, b: 1, a: 1 },
      text: docking ? 'dock' : 'goal',
    });
    const { sizeM } = this.arena;
    const half = sizeM / 2;
    const corners = [
      [-half, -half],
      [half, -half],
      [half, half],
      [-half, half],
    ] as const;
    markers.push({
      ...base,
      ns: 'arena',
      id: 0,
      type: MarkerType.lineList,
      positionM: { x: 0, y: 0, z: 0.01 },
      scaleM: { x: 0.03, y: 0, z: 0 },
      colour: { r: 0.8, g: 0.8, b: 0.82, a: 1 },
      points: corners.flatMap(([x, y], index) => {
        const [nextX, nextY] = corners[(index + 1) % corners.length]!;
        return [
          { x, y, z: 0 },
          { x: nextX, y: nextY, z: 0 },
        ];
      }),
    });
    this.arena.obstacles.forEach((box, index) => markers.push({ ...base, ...boxMarker('obstacles', index, box, box.heightM, box.colour) }));
    truth.taskObstacles.boxes.forEach((box, index) => markers.push({ ...base, ...boxMarker('task', index, box, 0.5, [150, 150, 160]) }));
    truth.droppedObstacles.forEach((pillar, index) =>
      markers.push({
        ...base,
        ns: 'dropped',
        id: index,
        type: MarkerType.cylinder,
        positionM: { x: pillar.xM, y: pillar.yM, z: DROPPED_HEIGHT_M / 2 },
        scaleM: { x: pillar.radiusM * 2, y: pillar.radiusM * 2, z: DROPPED_HEIGHT_M },
        colour: { r: 1, g: 0.49, b: 0.08, a: 0.8 },
      }),
    );
    markers.push({
      ...base,
      ns: 'robot',
      id: 0,
      type: MarkerType.arrow,
      frame: this.baseFrame,
      frameLocked: true,
      positionM: { x: 0, y: 0, z: 0.3 },
      scaleM: { x: HEADING_LENGTH_M, y: 0.05, z: 0.05 },
      colour: { r: 0.3, g: 0.85, b: 1, a: 1 },
    });
    return markers;
  }

  private fieldFor(truth: GroundTruth): NavigationField {
    const key = `${truth.episode.index}/${truth.droppedObstacles.length}`;
    if (this.plan?.key === key) return this.plan.field;
    const docking = truth.dockPose !== undefined;
    const obstacles: Footprints = {
      boxes: [...this.arena.walls, ...this.arena.obstacles, ...truth.taskObstacles.boxes],
      // The goal pillar is a solid to plan around; the dock's goal is a point on the floor.
      pillars: [...truth.taskObstacles.pillars, ...truth.droppedObstacles, ...(docking ? [] : [truth.goal])],
    };
    const field = new NavigationField(this.arena.sizeM, obstacles, truth.goal, {
      cellM: PLAN_CELL_M,
      blockedWithinM: DIFF_DRIVE_SPEC.bodyRadiusM + PLAN_MARGIN_M,
      goalWithinM: (docking ? 0 : truth.goal.radiusM) + DIFF_DRIVE_SPEC.bodyRadiusM + PLAN_GOAL_GAP_M,
      preferredClearanceM: DIFF_DRIVE_SPEC.bodyRadiusM + 0.3,
      clearancePenalty: 2,
    });
    this.plan = { key, field };
    return field;
  }
}

function boxMarker(
  ns: string,
  id: number,
  box: { minXM: number; minYM: number; maxXM: number; maxYM: number },
  heightM: number,
  colour: Rgb,
): Pick<OverlayMarker, 'ns' | 'id' | 'type' | 'positionM' | 'scaleM' | 'colour'> {
  return {
    ns,
    id,
    type: MarkerType.cube,
    positionM: { x: (box.minXM + box.maxXM) / 2, y: (box.minYM + box.maxYM) / 2, z: heightM / 2 },
    scaleM: { x: box.maxXM - box.minXM, y: box.maxYM - box.minYM, z: heightM },
    colour: { r: colour[0] / 255, g: colour[1] / 255, b: colour[2] / 255, a: 0.6 },
  };
}
