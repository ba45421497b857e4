// The review timeline's arithmetic: where a log time lies along the seek bar, where a key press or
// a marker button seeks to, how each kind of marker looks and reads, and the series as plot columns
// aligned with the bar (x in seconds from the log's start). Pure; the panel draws it.
import type { MarkerKind, ReviewMarker, ReviewSeries } from './contract.ts';
import { formatClockTime } from './logTime.ts';
import type { PlotColumns } from './plotSeries.ts';

/** Arrow keys on the seek bar move this far; with Shift, and Page Up / Page Down, SEEK_STEP_LARGE_MS. */
export const SEEK_STEP_MS = 1000;
export const SEEK_STEP_LARGE_MS = 10_000;
/** A marker this close to the position counts as "here": previous / next skip it. */
export const AT_MARKER_MS = 500;

export type MarkerShape = 'diamond' | 'triangle' | 'circle' | 'square' | 'bang';

/** Each kind its own colour and shape (so colour is never the only cue), in lane order, top first. */
export const MARKER_STYLE: Readonly<Record<MarkerKind, { label: string; plural: string; colour: string; shape: MarkerShape }>> = {
  intervention: { label: 'Intervention', plural: 'Interventions', colour: '#f0883e', shape: 'diamond' },
  surprise: { label: 'Surprise', plural: 'Surprises', colour: '#b083f0', shape: 'triangle' },
  answer: { label: 'Answer', plural: 'Answers', colour: '#3fb950', shape: 'circle' },
  rating: { label: 'Rating', plural: 'Ratings', colour: '#4c9aff', shape: 'square' },
  alert: { label: 'Alert', plural: 'Alerts', colour: '#f85149', shape: 'bang' },
};
export const MARKER_KINDS = Object.keys(MARKER_STYLE) as readonly MarkerKind[];

/** Where `atMs` lies along the log, 0 (start) to 1 (end), clamped; 0 for a log without length. */
export function timeFraction(atMs: number, startMs: number, endMs: number): number {
  const spanMs = endMs - startMs;
  if (!(spanMs > 0) || !Number.isFinite(atMs)) return 0;
  return Math.min(1, Math.max(0, (atMs - startMs) / spanMs));
}

/** The log time at a fraction of the bar (a pointer's place on it), clamped to the log. */
export function timeAtFraction(fraction: number, startMs: number, endMs: number): number {
  const clamped = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  return startMs + clamped * Math.max(0, endMs - startMs);
}

/**
 * Where a key press on the seek bar (the ARIA slider pattern) seeks: arrows by a second, with Shift
 * or Page Up / Page Down by ten, Home and End to the ends. Undefined for any other key.
 */
export function seekAfterKey(key: string, shiftKey: boolean, positionMs: number, startMs: number, endMs: number): number | undefined {
  const step = shiftKey ? SEEK_STEP_LARGE_MS : SEEK_STEP_MS;
  const clamp = (atMs: number): number => Math.min(endMs, Math.max(startMs, atMs));
  switch (key) {
    case 'ArrowLeft':
    case 'ArrowDown':
      return clamp(positionMs - step);
    case 'ArrowRight':
    case 'ArrowUp':
      return clamp(positionMs + step);
    case 'PageDown':
      return clamp(positionMs - SEEK_STEP_LARGE_MS);
    case 'PageUp':
      return clamp(positionMs + SEEK_STEP_LARGE_MS);
    case 'Home':
      return startMs;
    case 'End':
      return endMs;
    default:
      return undefined;
  }
}

/** The marker before or after the position (markers within AT_MARKER_MS of it are "here" and skipped). */
export function adjacentMarker(markers: readonly ReviewMarker[], positionMs: number, direction: 'previous' | 'next'): ReviewMarker | undefined {
  let found: ReviewMarker | undefined;
  for (const marker of markers) {
    if (direction === 'next' && marker.atMs > positionMs + AT_MARKER_MS && (!found || marker.atMs < found.atMs)) found = marker;
    if (direction === 'previous' && marker.atMs < positionMs - AT_MARKER_MS && (!found || marker.atMs > found.atMs)) found = marker;
  }
  return found;
}

/** What a marker button is called: "Intervention at 12:03:04.2: Intervention (31 ticks)". */
export function markerName(marker: ReviewMarker): string {
  return `${MARKER_STYLE[marker.kind].label} at ${formatClockTime(marker.atMs)}: ${marker.label}`;
}

/** A series as uPlot columns, x in seconds from the log's start (so every plot shares the bar's scale). */
export function seriesColumns(series: ReviewSeries, startMs: number): PlotColumns {
  return [series.timesMs.map((atMs) => (atMs - startMs) / 1000), series.values];
}

/** A y range that always shows zero and never collapses to a line (a flat series, or one point). */
export function seriesRange(values: readonly (number | null)[]): [number, number] {
  let min = 0;
  let max = 0;
  for (const value of values) {
    if (value === null || !Number.isFinite(value)) continue;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  if (max - min < 1e-6) return [min - 1, max + 1];
  const pad = (max - min) * 0.08;
  return [min < 0 ? min - pad : 0, max > 0 ? max + pad : 0];
}
