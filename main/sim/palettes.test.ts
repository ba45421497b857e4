import { describe, expect, it } from 'vitest';
import type { Rgb } from './arena.ts';
import { createArena } from './arena.ts';
import { arenaColours } from './palettes.ts';

function hueDeg([r, g, b]: Rgb): number | undefined {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max - min < 8) return undefined;
  const d = max - min;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (h * 60 + 360) % 360;
}

const inBands = (hue: number, bands: [number, number][]) => bands.some(([from, to]) => hue >= from - 1 && hue < to + 1);

describe('arena palettes', () => {
  it('draw training and held-out obstacle colours from disjoint hue bands, none near the goal magenta', () => {
    for (let seed = 0; seed < 50; seed++) {
      for (const colour of arenaColours('training', seed).obstaclePalette) {
        const hue = hueDeg(colour)!;
        expect(
          inBands(hue, [
            [0, 30],
            [60, 150],
            [190, 260],
            [345, 360],
          ]),
        ).toBe(true);
      }
      for (const colour of arenaColours('held-out', seed).obstaclePalette) {
        const hue = hueDeg(colour)!;
        expect(
          inBands(hue, [
            [30, 60],
            [150, 190],
            [260, 280],
          ]),
        ).toBe(true);
      }
    }
  });

  it('colour an arena without changing its layout', () => {
    const plain = createArena(7);
    const coloured = createArena(7, arenaColours('held-out', 7));
    expect(coloured.obstacles.map(({ colour: _colour, ...box }) => box)).toEqual(plain.obstacles.map(({ colour: _colour, ...box }) => box));
    expect(coloured.obstacles[0]!.colour).not.toEqual(plain.obstacles[0]!.colour);
    expect(coloured.floorColours).toEqual(arenaColours('held-out', 7).floorColours);
    expect(() => createArena(7, { obstaclePalette: [] })).toThrow(/at least one colour/);
  });
});
