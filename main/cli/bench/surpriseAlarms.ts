// The cockpit's surprise alarm as `reins bench worldmodel` scores it: the shown ratio of each tick of a
// segment, an alarm counted once at its onset (the tick it first reaches the threshold after a tick
// below it), false alarms per minute of normal driving, an event recalled when any tick of its first
// second reaches the threshold, and the threshold that normal driving on training arenas allows.
import type { EventLabel } from './worldModelEvents.ts';

/** One segment's shown surprise ratio per tick, with each tick's label (normal, an event's first second, or excluded). */
export interface ShownSeries {
  shown: readonly number[];
  labels: readonly EventLabel[];
}

/** Onsets of alarms at `threshold` on a segment's normal ticks, and how many normal ticks there were. */
export function normalAlarmOnsets(series: ShownSeries, threshold: number): { onsets: number; normalTicks: number } {
  checkSeries(series);
  let onsets = 0;
  let normalTicks = 0;
  let above = false;
  series.shown.forEach((value, tick) => {
    const alarmed = value >= threshold;
    if (series.labels[tick] === 'normal') {
      normalTicks++;
      if (alarmed && !above) onsets++;
    }
    above = alarmed;
  });
  return { onsets, normalTicks };
}

/** Alarms a minute of normal driving at `threshold`, over every segment given. */
export function falseAlarmsPerMinute(segments: readonly ShownSeries[], threshold: number, ticksPerMinute: number): number {
  let onsets = 0;
  let normalTicks = 0;
  for (const series of segments) {
    const counted = normalAlarmOnsets(series, threshold);
    onsets += counted.onsets;
    normalTicks += counted.normalTicks;
  }
  if (normalTicks === 0) throw new RangeError('no normal ticks to count false alarms on');
  return onsets / (normalTicks / ticksPerMinute);
}

/** Each event of `kind` (a run of ticks carrying its label) and whether any of its ticks reached `threshold`. */
export function eventRecall(segments: readonly ShownSeries[], kind: EventLabel, threshold: number): { events: number; recalled: number } {
  let events = 0;
  let recalled = 0;
  for (const series of segments) {
    checkSeries(series);
    let inEvent = false;
    let hit = false;
    const close = () => {
      if (inEvent) {
        events++;
        if (hit) recalled++;
      }
      inEvent = false;
      hit = false;
    };
    series.labels.forEach((label, tick) => {
      if (label !== kind) return close();
      inEvent = true;
      if (series.shown[tick]! >= threshold) hit = true;
    });
    close();
  }
  return { events, recalled };
}

/**
 * The threshold that normal driving on these segments allows: lowered from above the highest normal
 * tick through each normal tick's shown value, it stops before the first at which false alarms come
 * more than `alarmsPerMinute` a minute. Scanned from above, not searched: a threshold at the usual
 * level would be one alarm that never ends, counted once.
 */
export function calibrateThreshold(segments: readonly ShownSeries[], alarmsPerMinute: number, ticksPerMinute: number): number {
  if (!(alarmsPerMinute >= 0)) throw new RangeError(`alarmsPerMinute must be ≥ 0, got ${alarmsPerMinute}`);
  const candidates = [...new Set(segments.flatMap((series) => series.shown.filter((_, tick) => series.labels[tick] === 'normal')))]
    .filter(Number.isFinite)
    .sort((a, b) => b - a);
  if (candidates.length === 0) throw new RangeError('no normal ticks to calibrate the surprise threshold on');
  let allowed = nextAbove(candidates[0]!);
  for (const candidate of candidates) {
    if (falseAlarmsPerMinute(segments, candidate, ticksPerMinute) > alarmsPerMinute) return allowed;
    allowed = candidate;
  }
  return allowed;
}

function nextAbove(value: number): number {
  return value + Math.max(Math.abs(value) * 1e-9, Number.MIN_VALUE);
}

function checkSeries(series: ShownSeries): void {
  if (series.shown.length !== series.labels.length) {
    throw new RangeError(`a segment has ${series.shown.length} shown values but ${series.labels.length} labels`);
  }
}
