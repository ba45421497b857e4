// Laser scans in the robot's frame (x forward, y left, as in ROS) and on a top-down canvas where
// forward points up.
import type { ScanFrame } from './contract.ts';

/** The beams that hit something, as interleaved x, y pairs in metres in the robot's frame. */
export function scanHitsInRobotFrame(scan: Pick<ScanFrame, 'angleMinRad' | 'angleIncrementRad' | 'rangeMaxM' | 'rangesM'>): Float32Array {
  const points = new Float32Array(scan.rangesM.length * 2);
  let count = 0;
  for (let i = 0; i < scan.rangesM.length; i++) {
    const rangeM = scan.rangesM[i]!;
    // NaN: no valid reading; at or beyond the maximum: nothing was hit.
    if (!(rangeM > 0) || !(rangeM < scan.rangeMaxM)) continue;
    const angleRad = scan.angleMinRad + i * scan.angleIncrementRad;
    points[count * 2] = rangeM * Math.cos(angleRad);
    points[count * 2 + 1] = rangeM * Math.sin(angleRad);
    count++;
  }
  return points.subarray(0, count * 2);
}

export interface CanvasPoint {
  x: number;
  y: number;
}

/** Robot frame to canvas pixels: forward is up, the robot's left is the canvas's left. */
export function canvasFromRobot(xM: number, yM: number, centre: CanvasPoint, pxPerM: number): CanvasPoint {
  return { x: centre.x - yM * pxPerM, y: centre.y - xM * pxPerM };
}

const NICE_STEPS_M = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100];

/** Spacing of range rings that puts at most five rings inside the view. */
export function ringStepM(viewRadiusM: number, maxRings = 5): number {
  for (const stepM of NICE_STEPS_M) if (viewRadiusM / stepM <= maxRings) return stepM;
  return NICE_STEPS_M.at(-1)!;
}

/** The ring radii inside the view. */
export function ringRadiiM(viewRadiusM: number): number[] {
  const stepM = ringStepM(viewRadiusM);
  const radii: number[] = [];
  for (let radiusM = stepM; radiusM <= viewRadiusM + 1e-9; radiusM += stepM) radii.push(Number(radiusM.toFixed(6)));
  return radii;
}
