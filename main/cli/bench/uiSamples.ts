// The arithmetic of `reins bench ui`, kept apart from the browser so it can be tested on its own.
import { percentiles } from '../../core/util/latencyWindow.ts';
import type { BenchRow } from './report.ts';

/** What the page saw at one animation frame: when, and the stamp of the camera frame on screen. */
export interface ShownSample {
  atMs: number;
  /** The camera canvas's data-last-stamp-ms; undefined before the first frame is drawn. */
  stampMs: number | undefined;
}

/**
 * Camera frames shown per second: animation frames whose camera stamp differs from the one shown at
 * the animation frame before. A repeat, or a frame drawn and overwritten between two paints, does
 * not count, because the operator never saw it as new.
 */
export function newFramesShownPerSec(samples: readonly ShownSample[]): number {
  if (samples.length < 2) return 0;
  let changes = 0;
  for (let i = 1; i < samples.length; i++) {
    const stampMs = samples[i]!.stampMs;
    if (stampMs !== undefined && !Number.isNaN(stampMs) && stampMs !== samples[i - 1]!.stampMs) changes++;
  }
  const spanSecs = (samples[samples.length - 1]!.atMs - samples[0]!.atMs) / 1000;
  return spanSecs > 0 ? changes / spanSecs : 0;
}

/** A latency row: nearest-rank percentiles, and the p95 as its value (the figure the target names). */
export function latencyRow(name: string, samplesMs: readonly number[]): BenchRow {
  if (samplesMs.length === 0) throw new Error(`${name}: no samples were taken`);
  const { p50, p95, p99 } = percentiles(samplesMs);
  return { name, unit: 'ms', p50, p95, p99, value: p95 };
}
