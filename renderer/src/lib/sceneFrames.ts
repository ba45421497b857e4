// The 3D view's frames: which fixed frame to draw in when the operator has not picked one (RViz's and
// Foxglove's habit: the map, else odometry, else the robot, else a root of the tree), and the TF
// tree as rows in tree order (each frame under its parent, indented by depth) for the frames list.
import type { SceneFrame } from './contract.ts';

export const PREFERRED_FIXED_FRAMES = ['map', 'odom', 'base_link'] as const;

/** The frame to draw in: `asked` where the tree has it, else the preferred ones, else the first root; undefined for an empty tree. */
export function chooseFixedFrame(frames: readonly SceneFrame[], asked: string | undefined): string | undefined {
  const names = new Set(frames.map((frame) => frame.frame));
  if (asked !== undefined && names.has(asked)) return asked;
  for (const preferred of PREFERRED_FIXED_FRAMES) if (names.has(preferred)) return preferred;
  return frames.find((frame) => frame.parent === undefined || !names.has(frame.parent))?.frame ?? frames[0]?.frame;
}

export interface TfTreeRow {
  frame: SceneFrame;
  depth: number;
}

/** Every frame once, roots first (by name), each followed by its children (by name); frames in a cycle come last at depth 0. */
export function tfTreeRows(frames: readonly SceneFrame[]): TfTreeRow[] {
  const byName = new Map(frames.map((frame) => [frame.frame, frame]));
  const children = new Map<string, SceneFrame[]>();
  const roots: SceneFrame[] = [];
  for (const frame of frames) {
    if (frame.parent === undefined || !byName.has(frame.parent)) roots.push(frame);
    else children.set(frame.parent, [...(children.get(frame.parent) ?? []), frame]);
  }
  const byFrameName = (a: SceneFrame, b: SceneFrame): number => a.frame.localeCompare(b.frame);
  const rows: TfTreeRow[] = [];
  const placed = new Set<string>();
  const visit = (frame: SceneFrame, depth: number): void => {
    if (placed.has(frame.frame)) return;
    placed.add(frame.frame);
    rows.push({ frame, depth });
    for (const child of (children.get(frame.frame) ?? []).sort(byFrameName)) visit(child, depth + 1);
  };
  for (const root of roots.sort(byFrameName)) visit(root, 0);
  for (const frame of frames) if (!placed.has(frame.frame)) visit(frame, 0);
  return rows;
}
