// Points coloured by height above the robot's floor, so the floor, low obstacles and wall tops read
// apart at a glance: blue at the floor, through cyan, green and yellow, to red at 1 m and above.

export const COLOUR_FLOOR_M = 0;
export const COLOUR_TOP_M = 1;

/** Linear RGB (0–1) stops, evenly spaced from COLOUR_FLOOR_M to COLOUR_TOP_M. */
const STOPS: ReadonlyArray<readonly [number, number, number]> = [
  [0.16, 0.3, 0.95],
  [0.1, 0.8, 0.9],
  [0.25, 0.85, 0.35],
  [0.95, 0.85, 0.2],
  [0.95, 0.25, 0.2],
];

/** Writes the colour of a point at height `zM` into `out` at `offset` (r, g, b); no allocation. */
export function heightColour(zM: number, out: Float32Array, offset: number): void {
  const share = Math.min(1, Math.max(0, (zM - COLOUR_FLOOR_M) / (COLOUR_TOP_M - COLOUR_FLOOR_M)));
  const position = share * (STOPS.length - 1);
  const lower = Math.min(STOPS.length - 2, Math.floor(position));
  const blend = position - lower;
  const from = STOPS[lower]!;
  const to = STOPS[lower + 1]!;
  out[offset] = from[0] + (to[0] - from[0]) * blend;
  out[offset + 1] = from[1] + (to[1] - from[1]) * blend;
  out[offset + 2] = from[2] + (to[2] - from[2]) * blend;
}
