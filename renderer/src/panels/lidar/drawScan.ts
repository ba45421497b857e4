// Draws a top-down LiDAR view: range rings labelled in metres, the scan's hits, the robot at the centre
// with forward pointing up, and its recent trail under the hits.
import { formatMetres } from '../../lib/format.ts';
import { canvasFromRobot, ringRadiiM, scanHitsInRobotFrame } from '../../lib/lidarGeometry.ts';
import type { ScanFrame } from '../../lib/contract.ts';

const COLOURS = {
  background: '#0a0c10',
  ring: '#263040',
  ringLabel: '#6b7689',
  axis: '#1b2230',
  hit: '#4cd4ff',
  trail: '210, 153, 34',
  predicted: '#b48cff',
  robot: '#f2f4f8',
  robotFill: 'rgba(76, 154, 255, 0.35)',
};

/** The robot's footprint drawn at the centre, in metres. */
const ROBOT_LENGTH_M = 0.4;
const ROBOT_WIDTH_M = 0.32;

export interface LidarView {
  widthPx: number;
  heightPx: number;
  pixelRatio: number;
  viewRadiusM: number;
}

/**
 * trailM: the robot's recent positions, oldest first, as interleaved x, y pairs in the robot frame.
 * predictedM: where the world model expects it to go, from the robot on, as [x, y] in the robot frame.
 */
export function drawScan(
  context: CanvasRenderingContext2D,
  view: LidarView,
  scan: ScanFrame | undefined,
  trailM: Float32Array,
  predictedM: ReadonlyArray<readonly [number, number]> = [],
): void {
  const { widthPx, heightPx, pixelRatio, viewRadiusM } = view;
  context.save();
  context.fillStyle = COLOURS.background;
  context.fillRect(0, 0, widthPx, heightPx);
  const centre = { x: widthPx / 2, y: heightPx / 2 };
  const pxPerM = (Math.min(widthPx, heightPx) / 2 - 14 * pixelRatio) / viewRadiusM;

  context.strokeStyle = COLOURS.axis;
  context.lineWidth = pixelRatio;
  context.beginPath();
  context.moveTo(centre.x, 0);
  context.lineTo(centre.x, heightPx);
  context.moveTo(0, centre.y);
  context.lineTo(widthPx, centre.y);
  context.stroke();

  context.font = `${10 * pixelRatio}px ui-monospace, monospace`;
  context.textBaseline = 'bottom';
  for (const radiusM of ringRadiiM(viewRadiusM)) {
    const radiusPx = radiusM * pxPerM;
    context.strokeStyle = COLOURS.ring;
    context.beginPath();
    context.arc(centre.x, centre.y, radiusPx, 0, Math.PI * 2);
    context.stroke();
    context.fillStyle = COLOURS.ringLabel;
    const angle = -Math.PI / 4;
    context.fillText(formatMetres(radiusM), centre.x + Math.cos(angle) * radiusPx + 3 * pixelRatio, centre.y + Math.sin(angle) * radiusPx);
  }

  drawTrail(context, trailM, centre, pxPerM, pixelRatio);
  drawPredicted(context, predictedM, centre, pxPerM, pixelRatio);

  if (scan) {
    const hits = scanHitsInRobotFrame(scan);
    const size = 2.5 * pixelRatio;
    context.fillStyle = COLOURS.hit;
    for (let i = 0; i < hits.length; i += 2) {
      const point = canvasFromRobot(hits[i]!, hits[i + 1]!, centre, pxPerM);
      context.fillRect(point.x - size / 2, point.y - size / 2, size, size);
    }
  }

  drawRobot(context, centre, pxPerM, pixelRatio);
  context.restore();
}

function drawTrail(context: CanvasRenderingContext2D, trailM: Float32Array, centre: { x: number; y: number }, pxPerM: number, pixelRatio: number): void {
  const count = trailM.length / 2;
  if (count < 2) return;
  context.lineWidth = 3 * pixelRatio;
  context.lineCap = 'round';
  let previous = canvasFromRobot(trailM[0]!, trailM[1]!, centre, pxPerM);
  for (let i = 1; i < count; i++) {
    const point = canvasFromRobot(trailM[i * 2]!, trailM[i * 2 + 1]!, centre, pxPerM);
    // Older segments fade out, so the direction of travel reads at a glance.
    context.strokeStyle = `rgba(${COLOURS.trail}, ${(0.3 + 0.7 * (i / count)).toFixed(3)})`;
    context.beginPath();
    context.moveTo(previous.x, previous.y);
    context.lineTo(point.x, point.y);
    context.stroke();
    previous = point;
  }
  // The trail ends at the robot's centre, where the odometry places it now.
  context.strokeStyle = `rgba(${COLOURS.trail}, 1)`;
  context.beginPath();
  context.moveTo(previous.x, previous.y);
  context.lineTo(centre.x, centre.y);
  context.stroke();
}

/** The world model's predicted path: dashed, so it never reads as where the robot has been. */
function drawPredicted(
  context: CanvasRenderingContext2D,
  pathM: ReadonlyArray<readonly [number, number]>,
  centre: { x: number; y: number },
  pxPerM: number,
  pixelRatio: number,
): void {
  if (pathM.length < 2) return;
  context.save();
  context.strokeStyle = COLOURS.predicted;
  context.lineWidth = 2 * pixelRatio;
  context.setLineDash([6 * pixelRatio, 4 * pixelRatio]);
  context.beginPath();
  pathM.forEach(([xM, yM], index) => {
    const point = canvasFromRobot(xM, yM, centre, pxPerM);
    if (index === 0) context.moveTo(point.x, point.y);
    else context.lineTo(point.x, point.y);
  });
  context.stroke();
  const [endX, endY] = pathM.at(-1)!;
  const end = canvasFromRobot(endX, endY, centre, pxPerM);
  context.setLineDash([]);
  context.fillStyle = COLOURS.predicted;
  context.beginPath();
  context.arc(end.x, end.y, 3 * pixelRatio, 0, Math.PI * 2);
  context.fill();
  context.restore();
}

function drawRobot(context: CanvasRenderingContext2D, centre: { x: number; y: number }, pxPerM: number, pixelRatio: number): void {
  // Never smaller than a readable marker when zoomed far out.
  const lengthPx = Math.max(ROBOT_LENGTH_M * pxPerM, 14 * pixelRatio);
  const widthPx = Math.max(ROBOT_WIDTH_M * pxPerM, 11 * pixelRatio);
  context.beginPath();
  context.moveTo(centre.x, centre.y - lengthPx / 2);
  context.lineTo(centre.x + widthPx / 2, centre.y + lengthPx / 2);
  context.lineTo(centre.x, centre.y + lengthPx / 4);
  context.lineTo(centre.x - widthPx / 2, centre.y + lengthPx / 2);
  context.closePath();
  context.fillStyle = COLOURS.robotFill;
  context.fill();
  context.strokeStyle = COLOURS.robot;
  context.lineWidth = 1.5 * pixelRatio;
  context.stroke();
}
