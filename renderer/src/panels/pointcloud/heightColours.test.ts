import { describe, expect, it } from 'vitest';
import { heightColour } from './heightColours.ts';

const colourAt = (zM: number): number[] => {
  const out = new Float32Array(3);
  heightColour(zM, out, 0);
  return Array.from(out);
};

describe('height colours', () => {
  it('run from blue at the floor to red at 1 m, and stay there beyond', () => {
    const [floorR, , floorB] = colourAt(0);
    expect(floorB).toBeGreaterThan(floorR! * 3);
    const [topR, , topB] = colourAt(1);
    expect(topR).toBeGreaterThan(topB! * 3);
    expect(colourAt(-0.5)).toEqual(colourAt(0));
    expect(colourAt(3)).toEqual(colourAt(1));
  });

  it('change smoothly with height', () => {
    const [a, b] = [colourAt(0.4), colourAt(0.41)];
    for (let channel = 0; channel < 3; channel++) expect(Math.abs(a[channel]! - b[channel]!)).toBeLessThan(0.05);
  });
});
