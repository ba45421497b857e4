// The soak's verdict: the window-by-window table, each figure against the target with
// pass/fail, and the same figures as bench rows (DESIGN §1's report shape) for `--json`.
import type { BenchRow } from '../bench/report.ts';
import type { Percentiles } from '../../core/util/latencyWindow.ts';
import type { SoakAccounting, SoakOutcome, StopCheck } from './soakRun.ts';
import type { WindowFigures } from './soakWindows.ts';

export interface TargetCheck {
  figure: string;
  value: string;
  target: string;
  pass: boolean;
}

/** Windows before the RSS baseline: five minutes, or half a shorter soak. */
export function warmupWindows(windowCount: number): number {
  return Math.max(1, Math.min(5, Math.floor(windowCount / 2)));
}

export const WATCHDOG_TIMEOUT_MS = 300;
/** The watchdog checks every 10 ms and the zero leaves at the next check; a busy event loop adds a little. */
const STOP_GRACE_MS = 100;

export function rssGrowthPercent(outcome: SoakOutcome): number | undefined {
  return growthAfterWarmup(
    outcome,
    (w) => w.rssMiB,
    (w) => w.rssPeakMiB,
  );
}

/**
 * The level's growth, not the target's figure: the highest later window's mean of its once-a-second
 * samples against the baseline window's mean. It leaves out the swing within a minute (a training
 * step's working memory comes and goes), which the target's figure — a later peak against one sample —
 * counts in full.
 */
export function rssLevelGrowthPercent(outcome: SoakOutcome): number | undefined {
  return growthAfterWarmup(
    outcome,
    (w) => w.rssMeanMiB,
    (w) => w.rssMeanMiB,
  );
}

/** The highest later reading against the last warm-up window's baseline reading, in percent. */
function growthAfterWarmup(outcome: SoakOutcome, baselineOf: (w: WindowFigures) => number, laterOf: (w: WindowFigures) => number): number | undefined {
  const { windows } = outcome;
  const warmup = warmupWindows(windows.length);
  if (windows.length <= warmup) return undefined;
  const baseline = baselineOf(windows[warmup - 1]!);
  const later = Math.max(...windows.slice(warmup).map(laterOf));
  return ((later - baseline) / baseline) * 100;
}

export function droppedTickPercent(outcome: SoakOutcome): number {
  const due = outcome.ticks + outcome.ticksSkipped;
  return due === 0 ? 100 : ((outcome.ticksSkipped + outcome.ticksStartedLate) / due) * 100;
}

export function targetChecks(outcome: SoakOutcome): TargetCheck[] {
  const { accounting: a, windows } = outcome;
  const growth = rssGrowthPercent(outcome);
  const worstP99 = Math.max(...windows.map((w) => w.tickMs.p99));
  const dropped = droppedTickPercent(outcome);
  const warmup = warmupWindows(windows.length);
  return [
    {
      figure: `RSS growth after window ${warmup}`,
      value: growth === undefined ? 'n/a' : `${growth.toFixed(1)} %`,
      target: '< 10 %',
      pass: growth !== undefined && growth < 10,
    },
    { figure: 'tick p99, worst window', value: `${worstP99.toFixed(2)} ms`, target: '≤ 20 ms in every window', pass: windows.every((w) => w.tickMs.p99 <= 20) },
    {
      figure: 'dropped ticks (skipped + started late)',
      value: `${dropped.toFixed(3)} % (${outcome.ticksSkipped} + ${outcome.ticksStartedLate} of ${outcome.ticks + outcome.ticksSkipped})`,
      target: '< 0.1 %',
      pass: dropped < 0.1,
    },
    { figure: 'recorder drops', value: String(a.recorderDropped), target: '0', pass: a.recorderDropped === 0 },
    { figure: 'memory writer drops', value: String(a.memoryDropped), target: '0', pass: a.memoryDropped === 0 },
    ...accountingChecks(a),
    stopCheck('stop after hand-back, autonomy off', outcome.handBackStop),
    stopCheck('stop on heartbeat lapse', outcome.heartbeatStop, WATCHDOG_TIMEOUT_MS),
    {
      figure: 'operator takeovers / hand-backs',
      value: `${outcome.operator.takeovers} / ${outcome.operator.handBacks}`,
      target: '≥ 1, none refused',
      pass: outcome.operator.takeovers >= 1 && outcome.operator.handBacks >= 1 && outcome.operator.refused === 0,
    },
    {
      figure: 'shutdown',
      value: outcome.shutdownStatus === 0 ? 'every part closed' : 'a part failed to close',
      target: 'clean',
      pass: outcome.shutdownStatus === 0,
    },
  ];
}

/** Every message the recorder was given read back (or counted where the quota deleted its file), every command and tick in the log, every tick a memory row. */
export function accountingChecks(a: SoakAccounting): TargetCheck[] {
  // Commands and ticks in a deleted file cannot be read back: with deletions, their checks ask for no more than was sent.
  const deletions = a.mcapFilesDeleted > 0;
  const deleted = deletions ? ` + ${a.recorderDeleted} deleted with ${a.mcapFilesDeleted} files` : '';
  const inLog = (read: number, sent: number) => (deletions ? read <= sent : read === sent);
  return [
    {
      figure: 'MCAP messages read back / given',
      value: `${a.mcapReadBack}${deleted} / ${a.recorderGiven} (${a.mcapFiles} files)`,
      target: 'equal, files finished',
      pass: a.mcapReadBack + a.recorderDeleted === a.recorderGiven && a.mcapUnfinishedFiles === 0,
    },
    {
      figure: 'commands in MCAP / sent',
      value: `${a.commandsInMcap} / ${a.commandsSent}`,
      target: deletions ? '≤ (files deleted)' : 'equal',
      pass: inLog(a.commandsInMcap, a.commandsSent),
    },
    {
      figure: 'ticks in MCAP / ticks',
      value: `${a.ticksInMcap} / ${a.ticks}`,
      target: deletions ? '≤ (files deleted)' : 'equal',
      pass: inLog(a.ticksInMcap, a.ticks),
    },
    {
      figure: 'memory rows read back / ticks',
      value: `${a.memoryRows} / ${a.ticks}`,
      target: 'equal',
      pass: a.memoryRows === a.ticks && a.memoryWritten === a.ticks,
    },
  ];
}

/** A zero within the allowed time (the watchdog's timeout, or at once), then nothing, and the robot at rest. */
function stopCheck(figure: string, check: StopCheck, allowedMs = 0): TargetCheck {
  const limitMs = allowedMs + STOP_GRACE_MS;
  const zero = check.zeroAfterMs === undefined ? 'no zero' : `zero after ${Math.round(check.zeroAfterMs)} ms`;
  const speed = check.speedAfterMps === undefined ? 'speed unknown' : `${check.speedAfterMps.toFixed(3)} m/s 1 s later`;
  const pass =
    check.zeroAfterMs !== undefined &&
    check.zeroAfterMs <= limitMs &&
    check.commandsAfterZero === 0 &&
    check.speedAfterMps !== undefined &&
    check.speedAfterMps < 0.05 &&
    check.driverAfter === 'idle';
  return {
    figure,
    value: `${zero}, ${check.commandsAfterZero} after, ${speed}, ${check.driverAfter}`,
    target: `zero ≤ ${limitMs} ms, then silence, < 0.05 m/s`,
    pass,
  };
}

export function formatWindowTable(outcome: SoakOutcome): string {
  const topics = Object.keys(outcome.windows[0]?.sensorHz ?? {});
  const header = [
    'window',
    'end s',
    'RSS MiB',
    'mean MiB',
    'peak MiB',
    'heap MiB',
    'ext MiB',
    'C used',
    'C free',
    'C mapped',
    'ticks',
    'tick p50',
    'p95',
    'p99 ms',
    'late p99 ms',
    'skipped',
    'late',
    'rec drop',
    'mem drop',
    ...topics.map((t) => `${t} Hz`),
  ];
  const rows = outcome.windows.map((w) => [
    String(w.index),
    w.endSecs.toFixed(0),
    w.rssMiB.toFixed(0),
    w.rssMeanMiB.toFixed(0),
    w.rssPeakMiB.toFixed(0),
    w.heapMiB.toFixed(0),
    w.externalMiB.toFixed(0),
    w.malloc?.inUseMiB.toFixed(0) ?? '-',
    w.malloc?.freeHeldMiB.toFixed(0) ?? '-',
    w.malloc?.mappedMiB.toFixed(0) ?? '-',
    String(w.ticks),
    w.tickMs.p50.toFixed(2),
    w.tickMs.p95.toFixed(2),
    w.tickMs.p99.toFixed(2),
    w.startLatenessMs.p99.toFixed(1),
    String(w.skipped),
    String(w.startedLate),
    String(w.recordingDropped),
    String(w.memoryDropped),
    ...topics.map((t) => (w.sensorHz[t] ?? 0).toFixed(1)),
  ]);
  return formatTable(header, rows);
}

export function formatChecks(checks: readonly TargetCheck[]): string {
  return formatTable(
    ['figure', 'value', 'target', ''],
    checks.map((c) => [c.figure, c.value, c.target, c.pass ? 'pass' : 'FAIL']),
  );
}

/** A report row: a figure, with its percentiles where it has them. */
export function row(name: string, unit: string, value: number, p?: Percentiles): BenchRow {
  return { name, unit, p50: p?.p50 ?? null, p95: p?.p95 ?? null, p99: p?.p99 ?? null, value };
}

export function soakRows(outcome: SoakOutcome): BenchRow[] {
  const a = outcome.accounting;
  return [
    ...outcome.windows.flatMap((w) => [row(`rss-min-${w.index}`, 'MiB', w.rssMiB), row(`tick-min-${w.index}`, 'ms', w.tickMs.p50, w.tickMs)]),
    row('rss-growth', '%', rssGrowthPercent(outcome) ?? Number.NaN),
    row('rss-level-growth', '%', rssLevelGrowthPercent(outcome) ?? Number.NaN),
    row('tick-p99-worst-minute', 'ms', Math.max(...outcome.windows.map((w) => w.tickMs.p99))),
    row('dropped-ticks', '%', droppedTickPercent(outcome)),
    row('recording-dropped', 'messages', a.recorderDropped),
    row('memory-dropped', 'rows', a.memoryDropped),
    row('mcap-unaccounted', 'messages', a.recorderGiven - a.mcapReadBack - a.recorderDeleted),
    row('memory-unaccounted', 'rows', a.ticks - a.memoryRows),
    row('stop-after-hand-back', 'ms', outcome.handBackStop.zeroAfterMs ?? Number.NaN),
    row('stop-after-heartbeat-lapse', 'ms', outcome.heartbeatStop.zeroAfterMs ?? Number.NaN),
  ];
}

/** Columns padded to their widest cell, two spaces apart. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
