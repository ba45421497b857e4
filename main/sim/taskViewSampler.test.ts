import { describe, expect, it } from 'vitest';
import { DOCK_VIEW_RADIUS_M, DOCK_VIEW_SPREAD_RAD, sampleCorridorViews, sampleDockViews } from './taskViewSampler.ts';

/** The dock marker's violet, however shaded: red and blue well above green (a dock episode has no magenta goal pillar). */
function markerPixels(data: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < data.length; i += 3) {
    const [red, green, blue] = [data[i]!, data[i + 1]!, data[i + 2]!];
    if (red > 60 && red > 2 * green && blue > 1.5 * green) count++;
  }
  return count;
}

describe('task views', () => {
  const dockViews = [...sampleDockViews({ arenaSeed: 3, seed: 1, episodes: 2, viewsPerEpisode: 15 })];
  const corridorViews = [...sampleCorridorViews({ arenaSeed: 3, seed: 1, episodes: 2, viewsPerEpisode: 15 })];

  it('are reproducible from their seeds', () => {
    const again = [...sampleDockViews({ arenaSeed: 3, seed: 1, episodes: 2, viewsPerEpisode: 15 })];
    expect(again.map((v) => v.truth)).toEqual(dockViews.map((v) => v.truth));
    expect(again[7]!.image.data).toEqual(dockViews[7]!.image.data);
  });

  it('near the dock: in front of the dock pose, turned toward the marker, which the camera shows', () => {
    expect(dockViews).toHaveLength(30);
    expect(new Set(dockViews.map((v) => v.episodeSeed)).size).toBe(2);
    // The brief motion moves the robot a few centimetres and turns it a little.
    for (const { truth } of dockViews) {
      expect(Math.hypot(truth.inDock.outM, truth.inDock.leftM)).toBeLessThanOrEqual(DOCK_VIEW_RADIUS_M + 0.06);
      expect(truth.inDock.outM).toBeGreaterThan(-0.06);
      expect(Math.abs(truth.inDock.headingErrorRad)).toBeLessThanOrEqual(DOCK_VIEW_SPREAD_RAD + 0.2);
    }
    expect(dockViews.filter((v) => markerPixels(v.image.data) > 20).length).toBeGreaterThanOrEqual(27);
  });

  it('around the corridor: in its channel or just beyond its ends, labelled with the room left to the nearest solid', () => {
    expect(corridorViews).toHaveLength(30);
    const inChannel = corridorViews.filter((v) => v.truth.inChannel);
    expect(inChannel.length).toBeGreaterThan(5);
    expect(inChannel.length).toBeLessThan(30);
    for (const { truth } of corridorViews) {
      expect(truth.clearanceM).toBeGreaterThan(-0.01);
      expect(Math.abs(truth.alongM)).toBeLessThan(0.7 + 0.4 + 0.1);
    }
    // Inside, the side walls and bumps leave at most 20 cm a side.
    for (const { truth } of inChannel) expect(truth.clearanceM).toBeLessThanOrEqual(0.2);
  });
});
