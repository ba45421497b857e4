// The scan as a few sectors around the robot, nearest return in each: what the reactive baseline
// steers by.
export const SCAN_SECTORS = 16;

/**
 * Nearest valid range in each of SCAN_SECTORS equal sectors around the robot, sector 0 starting
 * straight behind (−π) and going counter-clockwise. Invalid (NaN) beams are skipped; a sector with
 * nothing in range reads rangeMax.
 */
export function scanSectorMinima(rangesM: Float32Array, angleMinRad: number, angleIncrementRad: number, rangeMaxM: number): Float32Array {
  const sectors = new Float32Array(SCAN_SECTORS).fill(rangeMaxM);
  const sectorRad = (2 * Math.PI) / SCAN_SECTORS;
  for (let i = 0; i < rangesM.length; i++) {
    const range = rangesM[i]!;
    if (Number.isNaN(range)) continue;
    const angle = angleMinRad + i * angleIncrementRad;
    const wrapped = (((angle + Math.PI) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
    const sector = Math.min(SCAN_SECTORS - 1, Math.floor(wrapped / sectorRad));
    const clipped = Math.min(range, rangeMaxM);
    if (clipped < sectors[sector]!) sectors[sector] = clipped;
  }
  return sectors;
}
