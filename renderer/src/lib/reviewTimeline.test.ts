import { describe, expect, it } from 'vitest';
import type { ReviewMarker } from './contract.ts';
import {
  adjacentMarker,
  MARKER_KINDS,
  MARKER_STYLE,
  markerName,
  seekAfterKey,
  seriesColumns,
  seriesRange,
  timeAtFraction,
  timeFraction,
} from './reviewTimeline.ts';

const START_MS = new Date(2025, 4, 6, 12, 0, 0, 0).getTime();
const END_MS = START_MS + 60_000;

const marker = (kind: ReviewMarker['kind'], offsetMs: number, label = kind): ReviewMarker => ({ kind, atMs: START_MS + offsetMs, label });

describe('the review timeline', () => {
  it('places a time along the bar, clamped to the log', () => {
    expect(timeFraction(START_MS, START_MS, END_MS)).toBe(0);
    expect(timeFraction(START_MS + 15_000, START_MS, END_MS)).toBe(0.25);
    expect(timeFraction(END_MS + 5000, START_MS, END_MS)).toBe(1);
    expect(timeFraction(START_MS - 5000, START_MS, END_MS)).toBe(0);
    // A log of one instant has nowhere to go.
    expect(timeFraction(START_MS, START_MS, START_MS)).toBe(0);
  });

  it('turns a place on the bar back into a log time', () => {
    expect(timeAtFraction(0.5, START_MS, END_MS)).toBe(START_MS + 30_000);
    expect(timeAtFraction(1.4, START_MS, END_MS)).toBe(END_MS);
    expect(timeAtFraction(Number.NaN, START_MS, END_MS)).toBe(START_MS);
  });

  it('seeks a second per arrow key, ten with Shift or Page keys, and to the ends with Home and End', () => {
    const at = START_MS + 30_000;
    expect(seekAfterKey('ArrowRight', false, at, START_MS, END_MS)).toBe(at + 1000);
    expect(seekAfterKey('ArrowUp', false, at, START_MS, END_MS)).toBe(at + 1000);
    expect(seekAfterKey('ArrowLeft', false, at, START_MS, END_MS)).toBe(at - 1000);
    expect(seekAfterKey('ArrowRight', true, at, START_MS, END_MS)).toBe(at + 10_000);
    expect(seekAfterKey('PageDown', false, at, START_MS, END_MS)).toBe(at - 10_000);
    expect(seekAfterKey('Home', false, at, START_MS, END_MS)).toBe(START_MS);
    expect(seekAfterKey('End', false, at, START_MS, END_MS)).toBe(END_MS);
    expect(seekAfterKey('a', false, at, START_MS, END_MS)).toBeUndefined();
  });

  it('never seeks past either end of the log', () => {
    expect(seekAfterKey('ArrowLeft', true, START_MS + 3000, START_MS, END_MS)).toBe(START_MS);
    expect(seekAfterKey('PageUp', false, END_MS - 200, START_MS, END_MS)).toBe(END_MS);
  });

  it('finds the previous and next marker, skipping the one the position is at', () => {
    const markers = [marker('surprise', 20_000), marker('intervention', 5000), marker('rating', 40_000)];
    expect(adjacentMarker(markers, START_MS, 'next')?.atMs).toBe(START_MS + 5000);
    expect(adjacentMarker(markers, START_MS + 5000, 'next')?.atMs).toBe(START_MS + 20_000);
    // Just past a marker (the position moved on while playing) still counts as at it.
    expect(adjacentMarker(markers, START_MS + 20_200, 'previous')?.atMs).toBe(START_MS + 5000);
    expect(adjacentMarker(markers, START_MS + 30_000, 'previous')?.atMs).toBe(START_MS + 20_000);
    expect(adjacentMarker(markers, START_MS + 40_000, 'next')).toBeUndefined();
    expect(adjacentMarker(markers, START_MS + 5000, 'previous')).toBeUndefined();
  });

  it('names a marker button by its kind, clock time and label', () => {
    expect(markerName({ kind: 'intervention', atMs: START_MS + 3_004_200, label: 'Intervention (31 ticks)' })).toBe(
      'Intervention at 12:50:04.2: Intervention (31 ticks)',
    );
  });

  it('gives every kind of marker its own colour and shape', () => {
    expect(MARKER_KINDS).toEqual(['intervention', 'surprise', 'answer', 'rating', 'alert']);
    expect(new Set(MARKER_KINDS.map((kind) => MARKER_STYLE[kind].colour)).size).toBe(MARKER_KINDS.length);
    expect(new Set(MARKER_KINDS.map((kind) => MARKER_STYLE[kind].shape)).size).toBe(MARKER_KINDS.length);
  });

  it('plots a series against seconds from the log start, so plots line up with the bar', () => {
    const columns = seriesColumns({ name: 'Speed', unit: 'm/s', timesMs: [START_MS, START_MS + 1500], values: [0, null] }, START_MS);
    expect(columns).toEqual([
      [0, 1.5],
      [0, null],
    ]);
  });

  it('keeps zero in view and never collapses the y range to a line', () => {
    expect(seriesRange([0.2, 0.5, null])).toEqual([0, expect.closeTo(0.54, 3)]);
    expect(seriesRange([-1, 1])).toEqual([expect.closeTo(-1.16, 3), expect.closeTo(1.16, 3)]);
    expect(seriesRange([])).toEqual([-1, 1]);
    expect(seriesRange([0, 0])).toEqual([-1, 1]);
  });
});
