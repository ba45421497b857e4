// Time series for the motion plots: measured and commanded speeds from the state events, kept for a
// time window in bounded buffers and handed to the chart as columns (x in seconds before now).
import type { CockpitState } from './contract.ts';

export const PLOT_WINDOW_MS = 30_000;
/** At 10 Hz state events, 30 s is 300 samples; the cap only matters if events arrive faster. */
export const PLOT_MAX_SAMPLES = 600;

/** Columns as uPlot reads them: x first, then one array per series; null where there is no value. */
export type PlotColumns = [number[], ...(number | null)[][]];

export interface MotionSample {
  atMs: number;
  measuredLinearMps: number | undefined;
  commandedLinearMps: number;
  measuredAngularRadps: number | undefined;
  commandedAngularRadps: number;
}

export function motionSample(state: Pick<CockpitState, 'measuredSpeed' | 'lastCommand'>, atMs: number): MotionSample {
  return {
    atMs,
    measuredLinearMps: state.measuredSpeed?.linearMps,
    commandedLinearMps: state.lastCommand.linearMps,
    measuredAngularRadps: state.measuredSpeed?.angularRadps,
    commandedAngularRadps: state.lastCommand.angularRadps,
  };
}

export class MotionSeries {
  #samples: MotionSample[] = [];
  /** Bumped on every change, so a chart can skip redrawing when nothing is new. */
  version = 0;

  constructor(
    readonly windowMs = PLOT_WINDOW_MS,
    readonly maxSamples = PLOT_MAX_SAMPLES,
  ) {}

  get length(): number {
    return this.#samples.length;
  }

  record(sample: MotionSample): void {
    this.#samples.push(sample);
    this.#trim(sample.atMs);
    this.version++;
  }

  clear(): void {
    this.#samples = [];
    this.version++;
  }

  /** Linear speeds (measured, commanded) in m/s against seconds before nowMs. */
  linearColumns(nowMs: number): PlotColumns {
    return this.#columns(nowMs, (sample) => [sample.measuredLinearMps ?? null, sample.commandedLinearMps]);
  }

  /** Turn rates (measured, commanded) in rad/s against seconds before nowMs. */
  angularColumns(nowMs: number): PlotColumns {
    return this.#columns(nowMs, (sample) => [sample.measuredAngularRadps ?? null, sample.commandedAngularRadps]);
  }

  #columns(nowMs: number, values: (sample: MotionSample) => [number | null, number]): PlotColumns {
    this.#trim(nowMs);
    const secondsAgo: number[] = [];
    const measured: (number | null)[] = [];
    const commanded: (number | null)[] = [];
    for (const sample of this.#samples) {
      const [measuredValue, commandedValue] = values(sample);
      secondsAgo.push((sample.atMs - nowMs) / 1000);
      measured.push(measuredValue);
      commanded.push(commandedValue);
    }
    return [secondsAgo, measured, commanded];
  }

  #trim(nowMs: number): void {
    const cutoffMs = nowMs - this.windowMs;
    let drop = 0;
    while (drop < this.#samples.length && this.#samples[drop]!.atMs < cutoffMs) drop++;
    drop = Math.max(drop, this.#samples.length - this.maxSamples);
    if (drop > 0) this.#samples.splice(0, drop);
  }
}
