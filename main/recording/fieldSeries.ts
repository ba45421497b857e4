// One field path over a recorded log, for review's plots of any field: every message of the path's
// topic read with the compiled path, then thinned to a bounded number of points (the lowest and the
// highest of each time bucket, so a spike survives thinning) so a long log plots as fast as a short one.
import type { ReviewPlotResponse } from '../core/contract.ts';
import type { CompiledFieldPath } from '../core/fieldPath.ts';
import type { TimelineSource } from './reviewTimeline.ts';

export const MAX_FIELD_SERIES_POINTS = 4000;

/** The series, or why the path names nothing in this log (no message of its topic has the field). */
export type FieldSeriesResult = { ok: true; series: ReviewPlotResponse } | { ok: false; problem: string };

export async function readFieldSeries(
  source: Pick<TimelineSource, 'messages'>,
  path: CompiledFieldPath,
  maxPoints = MAX_FIELD_SERIES_POINTS,
): Promise<FieldSeriesResult> {
  const timesMs: number[] = [];
  const values: (number | null)[] = [];
  let firstMiss: string | undefined;
  for await (const message of source.messages({ topics: [path.path.topic] })) {
    if (message.topic !== path.path.topic) continue;
    const value = path.read(message.value);
    if (value === undefined) firstMiss ??= path.explainMiss(message.value);
    timesMs.push(message.logTimeMs);
    values.push(value === undefined || !Number.isFinite(value) ? null : value);
  }
  if (firstMiss !== undefined && values.every((value) => value === null)) return { ok: false, problem: firstMiss };
  return { ok: true, series: { path: path.path.text, ...thinned(timesMs, values, maxPoints) } };
}

function thinned(timesMs: number[], values: (number | null)[], maxPoints: number): { timesMs: number[]; values: (number | null)[] } {
  if (timesMs.length <= maxPoints) return { timesMs, values };
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  const perBucket = timesMs.length / buckets;
  const outTimes: number[] = [];
  const outValues: (number | null)[] = [];
  for (let bucket = 0; bucket < buckets; bucket++) {
    const from = Math.floor(bucket * perBucket);
    const to = Math.min(timesMs.length, Math.floor((bucket + 1) * perBucket));
    let low = -1;
    let high = -1;
    for (let i = from; i < to; i++) {
      const value = values[i];
      if (value === null || value === undefined) continue;
      if (low < 0 || value < values[low]!) low = i;
      if (high < 0 || value > values[high]!) high = i;
    }
    if (low < 0) {
      outTimes.push(timesMs[from]!);
      outValues.push(null);
      continue;
    }
    for (const i of low === high ? [low] : [Math.min(low, high), Math.max(low, high)]) {
      outTimes.push(timesMs[i]!);
      outValues.push(values[i]!);
    }
  }
  return { timesMs: outTimes, values: outValues };
}
