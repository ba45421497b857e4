import { describe, expect, it } from 'vitest';
import { SurpriseRatioScorer } from '../../worldmodel/surpriseScorer.ts';
import type { EventLabel } from './worldModelEvents.ts';
import { scoreSeries, type ScoredSegment } from './worldModelQuality.ts';

// One float of error per tick, one slot: its usual level is what the scorer learns from it.
const size = 1;
const scorer = () => new SurpriseRatioScorer([{ name: 'camera', offset: 0, size }]);
const segment = (arenaSeed: number, ticks: number, label: EventLabel): ScoredSegment => ({ arenaSeed, ticks, labels: Array<EventLabel>(ticks).fill(label) });
/** Errors of 1 with a fault of `level` over [from, to). */
const errors = (ticks: number, fault?: { from: number; to: number; level: number }) => {
  const values = new Float32Array(ticks * size).fill(1);
  if (fault !== undefined) values.fill(fault.level, fault.from, fault.to);
  return { prediction: values, change: values };
};

describe("the world-model bench's scoring of event segments", () => {
  const ticks = 200;
  const events = [segment(1, ticks, 'camera-freeze'), segment(1, ticks, 'camera-freeze')];
  // A long fault in the arena's first segment, a short one in its second.
  const eventErrors = [errors(ticks, { from: 50, to: 80, level: 40 }), errors(ticks, { from: 50, to: 51, level: 20 })];
  const warmup = { episodes: [segment(1, ticks, 'normal'), segment(1, ticks, 'normal')], errors: [errors(ticks), errors(ticks)] };

  it('scores each event segment after its arena’s normal driving, never after the arena’s earlier faults', () => {
    const [, second] = scoreSeries(events, eventErrors, size, scorer, warmup);
    const [alone] = scoreSeries([events[1]!], [eventErrors[1]!], size, scorer, warmup);
    expect(second!.tick).toEqual(alone!.tick);
    expect(second!.tick[50]).toBeCloseTo(20, 5);
  });

  it('scored back to back, the earlier fault has raised the usual level the later one is judged against', () => {
    const [, second] = scoreSeries(events, eventErrors, size, scorer);
    expect(second!.tick[50]).toBeLessThan(15);
  });

  it('refuses an event arena with no normal driving to warm its scorer on', () => {
    expect(() => scoreSeries([segment(2, ticks, 'shove')], [errors(ticks)], size, scorer, warmup)).toThrow(/no normal driving in arena 2/);
  });
});
