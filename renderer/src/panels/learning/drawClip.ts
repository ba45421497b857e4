// Draws one side of a preference question top-down in the odometry frame: the whole path of the
// clip, the path so far brighter, the robot at the shown moment, and the scan it saw then.
import type { ClipResponse } from '../../lib/contract.ts';

const COLOURS = { background: '#0a0c10', path: 'rgba(210, 153, 34, 0.35)', pathSoFar: '#d29922', hit: '#4cd4ff', robot: '#f2f4f8' };
/** Metres of scan shown around the path, so that nearby walls and obstacles are in view. */
const MARGIN_M = 1.5;

export interface ClipCanvas {
  widthPx: number;
  heightPx: number;
  pixelRatio: number;
}

export function drawClip(context: CanvasRenderingContext2D, view: ClipCanvas, clip: Pick<ClipResponse, 'path' | 'scans'>, atMs: number): void {
  const { widthPx, heightPx, pixelRatio } = view;
  context.save();
  context.fillStyle = COLOURS.background;
  context.fillRect(0, 0, widthPx, heightPx);
  const path = clip.path;
  if (path.length === 0) {
    context.restore();
    return;
  }
  const xs = path.map((pose) => pose.xM);
  const ys = path.map((pose) => pose.yM);
  const centre = { x: (Math.min(...xs) + Math.max(...xs)) / 2, y: (Math.min(...ys) + Math.max(...ys)) / 2 };
  const spanM = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)) + 2 * MARGIN_M;
  const pxPerM = Math.min(widthPx, heightPx) / spanM;
  // x forward to the right, y to the left up the canvas.
  const toCanvas = (xM: number, yM: number) => ({ x: widthPx / 2 + (xM - centre.x) * pxPerM, y: heightPx / 2 - (yM - centre.y) * pxPerM });

  const now = poseAt(path, atMs);
  const scan = latestBefore(clip.scans, atMs);
  if (scan) {
    context.fillStyle = COLOURS.hit;
    const size = 1.5 * pixelRatio;
    scan.rangesM.forEach((range, i) => {
      if (range === null || range >= scan.rangeMaxM) return;
      const bearing = now.yawRad + scan.angleMinRad + i * scan.angleIncrementRad;
      const hit = toCanvas(now.xM + range * Math.cos(bearing), now.yM + range * Math.sin(bearing));
      context.fillRect(hit.x - size / 2, hit.y - size / 2, size, size);
    });
  }

  context.lineWidth = 2 * pixelRatio;
  const stroke = (poses: typeof path, colour: string) => {
    if (poses.length < 2) return;
    context.strokeStyle = colour;
    context.beginPath();
    poses.forEach((pose, i) => {
      const point = toCanvas(pose.xM, pose.yM);
      if (i === 0) context.moveTo(point.x, point.y);
      else context.lineTo(point.x, point.y);
    });
    context.stroke();
  };
  stroke(path, COLOURS.path);
  stroke(
    path.filter((pose) => pose.timeMs <= atMs),
    COLOURS.pathSoFar,
  );

  const robot = toCanvas(now.xM, now.yM);
  const lengthPx = Math.max(8 * pixelRatio, 0.4 * pxPerM);
  context.translate(robot.x, robot.y);
  context.rotate(-now.yawRad);
  context.fillStyle = COLOURS.robot;
  context.beginPath();
  context.moveTo(lengthPx / 2, 0);
  context.lineTo(-lengthPx / 2, lengthPx / 3);
  context.lineTo(-lengthPx / 2, -lengthPx / 3);
  context.closePath();
  context.fill();
  context.restore();
}

function poseAt(path: ClipResponse['path'], atMs: number): ClipResponse['path'][number] {
  return latestBefore(path, atMs) ?? path[0]!;
}

function latestBefore<T extends { timeMs: number }>(items: readonly T[], atMs: number): T | undefined {
  let found: T | undefined;
  for (const item of items) {
    if (item.timeMs > atMs) break;
    found = item;
  }
  return found;
}
