// The accelerated soak's verdict: the table of simulated hours, each figure against issue 31's
// targets (upkeep and resident memory of the last hour against the second, tick p99 every hour, every
// tick, command and message accounted for), and the same figures as bench rows for `--json`.
import type { BenchRow } from '../bench/report.ts';
import type { HourFigures } from './simulatedHours.ts';
import type { SimulatedSoakOutcome } from './simulatedSoak.ts';
import { accountingChecks, formatTable, row, type TargetCheck } from './soakReport.ts';

/** A shift: what the wall time is scaled to, and the wall time it must take at most here. */
const SHIFT_SIM_HOURS = 8;
const SHIFT_WALL_LIMIT_MINUTES = 75;

/** The last window against the second (the first is the warm-up), as a ratio; undefined under three windows. */
export function lastAgainstSecond(windows: readonly HourFigures[], figure: (w: HourFigures) => number): number | undefined {
  if (windows.length < 3) return undefined;
  return figure(windows.at(-1)!) / figure(windows[1]!);
}

/** Wall minutes a shift would take at this run's pace. */
export function shiftWallMinutes(outcome: Pick<SimulatedSoakOutcome, 'wallSecs' | 'ticks' | 'options'>): number {
  const simHours = outcome.ticks / outcome.options.rateHz / 3600;
  return ((outcome.wallSecs / simHours) * SHIFT_SIM_HOURS) / 60;
}

export function simulatedTargetChecks(outcome: SimulatedSoakOutcome): TargetCheck[] {
  const { windows } = outcome;
  const upkeep = lastAgainstSecond(windows, (w) => w.maintenanceMs);
  const rss = lastAgainstSecond(windows, (w) => w.rssLevelMiB);
  const worstP99 = Math.max(...windows.map((w) => w.tickMs.p99));
  const ratio = (value: number | undefined) => (value === undefined ? 'n/a (under 3 windows)' : `${value.toFixed(2)} ×`);
  const shiftMinutes = shiftWallMinutes(outcome);
  return [
    { figure: 'maintenance time, last window / second', value: ratio(upkeep), target: '≤ 1.5 ×', pass: upkeep !== undefined && upkeep <= 1.5 },
    { figure: 'RSS level, last window / second', value: ratio(rss), target: '≤ 1.15 ×', pass: rss !== undefined && rss <= 1.15 },
    { figure: 'tick p99, worst window', value: `${worstP99.toFixed(2)} ms`, target: '≤ 20 ms in every window', pass: windows.every((w) => w.tickMs.p99 <= 20) },
    ...accountingChecks(outcome.accounting),
    {
      figure: `wall time for ${SHIFT_SIM_HOURS} simulated hours`,
      value: `${shiftMinutes.toFixed(0)} min (this run: ${(outcome.wallSecs / 60).toFixed(1)} min)`,
      target: `≤ ${SHIFT_WALL_LIMIT_MINUTES} min`,
      pass: shiftMinutes <= SHIFT_WALL_LIMIT_MINUTES,
    },
    {
      figure: 'shutdown',
      value: outcome.shutdownStatus === 0 ? 'every part closed' : 'a part failed to close',
      target: 'clean',
      pass: outcome.shutdownStatus === 0,
    },
  ];
}

export function formatHourTable(outcome: SimulatedSoakOutcome): string {
  const perSimMinute = (steps: number, w: HourFigures, index: number) => {
    const windowSimSecs = w.endSimSecs - (index === 0 ? 0 : outcome.windows[index - 1]!.endSimSecs);
    return (steps / (windowSimSecs / 60)).toFixed(1);
  };
  const header = [
    'window',
    'end sim h',
    'wall s',
    'upkeep runs',
    'upkeep ms',
    'RSS level MiB',
    'peak MiB',
    'ticks',
    'tick p50',
    'p99 ms',
    'memory rows',
    'query p50 ms',
    'recording MiB',
    'deleted files',
    'policy steps',
    '/sim min',
    'world-model steps',
    '/sim min',
    'rec drop',
    'mem drop',
  ];
  const rows = outcome.windows.map((w, i) => [
    String(w.index),
    (w.endSimSecs / 3600).toFixed(2),
    w.wallSecs.toFixed(0),
    String(w.maintenanceRuns),
    w.maintenanceMs.toFixed(0),
    w.rssLevelMiB.toFixed(0),
    w.rssPeakMiB.toFixed(0),
    String(w.ticks),
    w.tickMs.p50.toFixed(2),
    w.tickMs.p99.toFixed(2),
    String(w.memoryRows),
    w.queryMs.p50.toFixed(2),
    (w.recordingBytes / 2 ** 20).toFixed(0),
    String(w.recordingFilesDeleted),
    String(w.learnerSteps.policy),
    perSimMinute(w.learnerSteps.policy, w, i),
    String(w.learnerSteps.worldModel),
    perSimMinute(w.learnerSteps.worldModel, w, i),
    String(w.recorderDropped),
    String(w.memoryDropped),
  ]);
  return formatTable(header, rows);
}

export function simulatedSoakRows(outcome: SimulatedSoakOutcome): BenchRow[] {
  const a = outcome.accounting;
  return [
    ...outcome.windows.flatMap((w) => [
      row(`maintenance-hour-${w.index}`, 'ms', w.maintenanceMs),
      row(`rss-level-hour-${w.index}`, 'MiB', w.rssLevelMiB),
      row(`rss-peak-hour-${w.index}`, 'MiB', w.rssPeakMiB),
      row(`tick-hour-${w.index}`, 'ms', w.tickMs.p50, w.tickMs),
      row(`memory-rows-hour-${w.index}`, 'rows', w.memoryRows),
      row(`query-hour-${w.index}`, 'ms', w.queryMs.p50, w.queryMs),
      row(`recording-bytes-hour-${w.index}`, 'bytes', w.recordingBytes),
      row(`policy-steps-hour-${w.index}`, 'steps', w.learnerSteps.policy),
      row(`world-model-steps-hour-${w.index}`, 'steps', w.learnerSteps.worldModel),
    ]),
    row('maintenance-last-vs-second', 'ratio', lastAgainstSecond(outcome.windows, (w) => w.maintenanceMs) ?? Number.NaN),
    row('rss-level-last-vs-second', 'ratio', lastAgainstSecond(outcome.windows, (w) => w.rssLevelMiB) ?? Number.NaN),
    row('tick-p99-worst-hour', 'ms', Math.max(...outcome.windows.map((w) => w.tickMs.p99))),
    row('mcap-unaccounted', 'messages', a.recorderGiven - a.mcapReadBack - a.recorderDeleted),
    row('memory-unaccounted', 'rows', a.ticks - a.memoryRows),
    row('shift-wall-time', 'min', shiftWallMinutes(outcome)),
  ];
}
