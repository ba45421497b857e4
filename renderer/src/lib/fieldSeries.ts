// Series of any field for the plot panel: live ones fed by the core's plot frames (every sample kept
// for a time window in fixed rings, so memory stays bounded whatever the rate), binned to the chart's
// width for drawing, and any set of series written out as CSV (time, then one column per series).
import { PLOT_WORK_MEASURE, type PlotSamplesFrame } from './contract.ts';

export const FIELD_PLOT_WINDOW_MS = 30_000;

/** Reports plot work since `startMs` to performance observers, keeping nothing in the page's timeline (it would grow forever). */
export function measurePlotWork(startMs: number): void {
  performance.measure(PLOT_WORK_MEASURE, { start: startMs });
  performance.clearMeasures(PLOT_WORK_MEASURE);
}
/** Samples kept per series: 30 s at 200 Hz. */
export const FIELD_PLOT_MAX_SAMPLES = 6000;

/** Columns as uPlot reads them: x first, then one array per series; null where a bin has no value. */
export type FieldColumns = [number[], ...(number | null)[][]];

/** One series' samples in time order. */
export interface SampleSource {
  readonly length: number;
  timeMs(i: number): number;
  value(i: number): number | null;
  /** Writes into `bins` the last finite value of each bin of `widthMs` from `startMs` up to `endMs` (left as is where none). */
  binLast(bins: (number | null)[], startMs: number, endMs: number, widthMs: number): void;
}

class SampleRing implements SampleSource {
  readonly #timesMs = new Float64Array(FIELD_PLOT_MAX_SAMPLES);
  readonly #values = new Float64Array(FIELD_PLOT_MAX_SAMPLES);
  #first = 0;
  length = 0;

  /** A sample equal to the newest one (the same message sent again after the list changed) is not stored twice. */
  push(timeMs: number, value: number): void {
    if (this.length > 0) {
      const newest = (this.#first + this.length - 1) % FIELD_PLOT_MAX_SAMPLES;
      if (this.#timesMs[newest] === timeMs && Object.is(this.#values[newest], value)) return;
    }
    const at = (this.#first + this.length) % FIELD_PLOT_MAX_SAMPLES;
    this.#timesMs[at] = timeMs;
    this.#values[at] = value;
    if (this.length < FIELD_PLOT_MAX_SAMPLES) this.length++;
    else this.#first = (this.#first + 1) % FIELD_PLOT_MAX_SAMPLES;
  }

  dropBefore(cutoffMs: number): void {
    while (this.length > 0 && this.#timesMs[this.#first]! < cutoffMs) {
      this.#first = (this.#first + 1) % FIELD_PLOT_MAX_SAMPLES;
      this.length--;
    }
  }

  timeMs(i: number): number {
    return this.#timesMs[(this.#first + i) % FIELD_PLOT_MAX_SAMPLES]!;
  }

  value(i: number): number | null {
    const value = this.#values[(this.#first + i) % FIELD_PLOT_MAX_SAMPLES]!;
    return Number.isFinite(value) ? value : null;
  }

  /** Straight over the ring's arrays: this runs for every series on every redraw. */
  binLast(bins: (number | null)[], startMs: number, endMs: number, widthMs: number): void {
    const times = this.#timesMs;
    const values = this.#values;
    const last = bins.length - 1;
    for (let i = firstAtOrAfter(this, startMs); i < this.length; i++) {
      const at = (this.#first + i) % FIELD_PLOT_MAX_SAMPLES;
      const timeMs = times[at]!;
      if (timeMs > endMs) break;
      const value = values[at]!;
      if (Number.isFinite(value)) bins[Math.min(last, Math.floor((timeMs - startMs) / widthMs))] = value;
    }
  }
}

/**
 * The live series of the set-plots request the core answered last, in its order and by path; frames of
 * an older request are dropped. A path that stays plotted when the list changes keeps its samples.
 */
export class LiveFieldSeries {
  #generation = -1;
  #rings: SampleRing[] = [];
  #byPath = new Map<string, SampleRing>();
  /** Bumped on every change, so a chart redraws only when something is new. */
  version = 0;
  /** Samples received since the cockpit started, all series together (`reins bench ui` reads the rate). */
  samplesReceived = 0;

  constructor(readonly windowMs = FIELD_PLOT_WINDOW_MS) {}

  get series(): readonly SampleSource[] {
    return this.#rings;
  }

  /** The samples of this path (as the core named it), or undefined when the core does not plot it. */
  seriesFor(path: string): SampleSource | undefined {
    return this.#byPath.get(path);
  }

  /** The core plots a new list of paths (its plot-status event): the paths it plotted before keep their samples. */
  reset(generation: number, paths: readonly string[]): void {
    // The same request (a series' problem came or went): nothing to change.
    if (generation === this.#generation) return;
    this.#generation = generation;
    const kept = this.#byPath;
    this.#byPath = new Map();
    this.#rings = paths.map((path) => {
      const ring = kept.get(path) ?? this.#byPath.get(path) ?? new SampleRing();
      this.#byPath.set(path, ring);
      return ring;
    });
    this.version++;
  }

  add(frame: PlotSamplesFrame, nowMs: number): void {
    if (frame.generation !== this.#generation) return;
    for (const series of frame.series) {
      const ring = this.#rings[series.index];
      if (!ring) continue;
      for (let i = 0; i < series.timesMs.length; i++) ring.push(series.timesMs[i]!, series.values[i]!);
      this.samplesReceived += series.timesMs.length;
    }
    for (const ring of this.#rings) ring.dropBefore(nowMs - this.windowMs);
    this.version++;
  }
}

/** A series given as plain arrays (what review's HTTP answer holds). */
export function arraySource(timesMs: readonly number[], values: readonly (number | null)[]): SampleSource {
  const source: SampleSource = {
    length: timesMs.length,
    timeMs: (i) => timesMs[i]!,
    value: (i) => values[i] ?? null,
    binLast(bins, startMs, endMs, widthMs) {
      const last = bins.length - 1;
      for (let i = firstAtOrAfter(source, startMs); i < timesMs.length; i++) {
        const timeMs = timesMs[i]!;
        if (timeMs > endMs) break;
        const value = values[i];
        if (value !== null && value !== undefined) bins[Math.min(last, Math.floor((timeMs - startMs) / widthMs))] = value;
      }
    },
  };
  return source;
}

/** A series with no samples. */
export const NO_SAMPLES: SampleSource = { length: 0, timeMs: () => 0, value: () => null, binLast: () => undefined };

/**
 * The series over [startMs, endMs] in `bins` equal time bins: x is each bin's middle in seconds from
 * `originMs`, and each series' value is its last sample in the bin. Cheap whatever the sample rate.
 */
export function binnedColumns(series: readonly SampleSource[], startMs: number, endMs: number, bins: number, originMs: number): FieldColumns {
  const count = Math.max(1, Math.floor(bins));
  const widthMs = Math.max(1e-9, (endMs - startMs) / count);
  const x = Array.from({ length: count }, (_, bin) => (startMs + (bin + 0.5) * widthMs - originMs) / 1000);
  const columns: (number | null)[][] = series.map((source) => {
    const values: (number | null)[] = new Array<number | null>(count).fill(null);
    source.binLast(values, startMs, endMs, widthMs);
    return values;
  });
  return [x, ...columns];
}

function firstAtOrAfter(source: Pick<SampleSource, 'length' | 'timeMs'>, timeMs: number): number {
  let low = 0;
  let high = source.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (source.timeMs(middle) < timeMs) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * CSV of the series: a header `time,NAME…`, then one row per distinct sample time in order (epoch
 * seconds), with each series' value where it has a sample at that time and an empty cell where not.
 */
export function seriesCsv(names: readonly string[], series: readonly SampleSource[]): string {
  const lines = [['time', ...names.map(csvCell)].join(',')];
  const next = series.map(() => 0);
  for (;;) {
    let timeMs = Infinity;
    for (let s = 0; s < series.length; s++) if (next[s]! < series[s]!.length) timeMs = Math.min(timeMs, series[s]!.timeMs(next[s]!));
    if (timeMs === Infinity) break;
    const cells = series.map((source, s) => {
      if (next[s]! >= source.length || source.timeMs(next[s]!) !== timeMs) return '';
      const value = source.value(next[s]!);
      next[s]!++;
      return value === null ? '' : String(value);
    });
    lines.push([(timeMs / 1000).toFixed(3), ...cells].join(','));
  }
  return `${lines.join('\n')}\n`;
}

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
