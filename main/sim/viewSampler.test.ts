import { describe, expect, it } from 'vitest';
import { DEFAULT_CAMERA_OPTIONS } from './camera.ts';
import { sampleViews } from './viewSampler.ts';

function goalPixels(data: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < data.length; i += 3) {
    // The goal's magenta, however shaded: red and blue well above green. No other solid is that colour.
    const [red, green, blue] = [data[i]!, data[i + 1]!, data[i + 2]!];
    if (red > 60 && red > 2 * green && blue > 1.5 * green) count++;
  }
  return count;
}

describe('labelled views', () => {
  const views = [...sampleViews({ arenaSeed: 3, seed: 1, episodes: 2, viewsPerEpisode: 30 })];

  it('are reproducible from their seeds', () => {
    const again = [...sampleViews({ arenaSeed: 3, seed: 1, episodes: 2, viewsPerEpisode: 30 })];
    expect(again.map((v) => v.truth)).toEqual(views.map((v) => v.truth));
    expect(again[5]!.image.data).toEqual(views[5]!.image.data);
  });

  it('label the goal in view exactly when the camera shows it', () => {
    expect(views).toHaveLength(60);
    const inView = views.filter((v) => v.truth.goalInView);
    expect(inView.length).toBeGreaterThan(10);
    for (const view of inView) {
      expect(Math.abs(view.truth.goalBearingRad)).toBeLessThanOrEqual(DEFAULT_CAMERA_OPTIONS.horizontalFovRad / 2);
      expect(goalPixels(view.image.data)).toBeGreaterThan(0);
    }
    for (const view of views.filter((v) => Math.abs(v.truth.goalBearingRad) > DEFAULT_CAMERA_OPTIONS.horizontalFovRad / 2 + 0.3)) {
      expect(goalPixels(view.image.data)).toBe(0);
    }
  });

  it('carry every stream and a moving robot', () => {
    for (const view of views) {
      expect(view.scan.rangesM.length).toBeGreaterThan(0);
      expect(view.truth.nearestObstacleM).toBeGreaterThan(-0.01);
    }
    expect(views.some((v) => Math.abs(v.joints.velocitiesRadps[0]!) > 0.1)).toBe(true);
  });
});
