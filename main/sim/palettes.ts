// Arena colour schemes drawn from two disjoint sets of hues: encoders are trained on one set and
// probed on the other, so a probe shows what an encoder learnt about the world, not about colours.
// No hue comes near the goal's magenta, which stays the one thing a detector may rely on.
import type { ArenaOptions, Rgb } from './arena.ts';
import { deriveSeed, SeededRandom } from './random.ts';

export type HueSet = 'training' | 'held-out';

/** Hue bands in degrees, [from, to). Magenta (280°–340°) is in neither. */
const HUE_BANDS: Readonly<Record<HueSet, ReadonlyArray<readonly [number, number]>>> = {
  training: [
    [0, 30],
    [60, 150],
    [190, 260],
    [345, 360],
  ],
  'held-out': [
    [30, 60],
    [150, 190],
    [260, 280],
  ],
};

function hsvToRgb(hueDeg: number, saturation: number, value: number): Rgb {
  const chroma = value * saturation;
  const sector = (hueDeg / 60) % 6;
  const x = chroma * (1 - Math.abs((sector % 2) - 1));
  const [r, g, b] =
    sector < 1
      ? [chroma, x, 0]
      : sector < 2
        ? [x, chroma, 0]
        : sector < 3
          ? [0, chroma, x]
          : sector < 4
            ? [0, x, chroma]
            : sector < 5
              ? [x, 0, chroma]
              : [chroma, 0, x];
  const m = value - chroma;
  return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}

function hueFrom(set: HueSet, random: SeededRandom): number {
  const bands = HUE_BANDS[set];
  const total = bands.reduce((sum, [from, to]) => sum + (to - from), 0);
  let pick = random.uniform(0, total);
  for (const [from, to] of bands) {
    if (pick < to - from) return from + pick;
    pick -= to - from;
  }
  return bands[0]![0];
}

/** Obstacle, floor and wall colours for one arena, from the given hue set. */
export function arenaColours(set: HueSet, seed: number): Pick<ArenaOptions, 'obstaclePalette' | 'floorColours' | 'wallColour'> {
  const random = new SeededRandom(deriveSeed('palette', set, seed));
  const obstaclePalette = Array.from({ length: 5 }, () => hsvToRgb(hueFrom(set, random), random.uniform(0.55, 0.9), random.uniform(0.6, 0.95)));
  const floorHue = hueFrom(set, random);
  const floorSaturation = random.uniform(0, 0.3);
  const floorValue = random.uniform(0.15, 0.35);
  const floorColours: [Rgb, Rgb] = [hsvToRgb(floorHue, floorSaturation, floorValue), hsvToRgb(floorHue, floorSaturation, floorValue * 0.72)];
  const wallColour = hsvToRgb(hueFrom(set, random), random.uniform(0, 0.25), random.uniform(0.65, 0.85));
  return { obstaclePalette, floorColours, wallColour };
}
