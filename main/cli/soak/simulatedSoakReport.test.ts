// The accelerated soak's verdict on its windows: upkeep and resident memory of the last hour against
// the second (the first is the warm-up), tick p99 in every hour, and a shift's wall time from this run's pace.
import { describe, expect, it } from 'vitest';
import type { HourFigures } from './simulatedHours.ts';
import type { SimulatedSoakOutcome } from './simulatedSoak.ts';
import { lastAgainstSecond, shiftWallMinutes, simulatedTargetChecks } from './simulatedSoakReport.ts';
import type { SoakAccounting } from './soakRun.ts';

const hour = (maintenanceMs: number, rssLevelMiB: number, p99: number): HourFigures =>
  ({ maintenanceMs, rssLevelMiB, tickMs: { p50: 4, p95: 8, p99 } }) as HourFigures;

const exact: SoakAccounting = {
  recorderGiven: 100,
  recorderWritten: 100,
  recorderDropped: 0,
  recorderDeleted: 0,
  mcapReadBack: 100,
  mcapFiles: 1,
  mcapFilesDeleted: 0,
  mcapUnfinishedFiles: 0,
  commandsSent: 10,
  commandsInMcap: 10,
  ticks: 10,
  ticksInMcap: 10,
  memoryWritten: 10,
  memoryDropped: 0,
  memoryRows: 10,
};

function outcome(windows: HourFigures[], wallSecs: number, accounting = exact): SimulatedSoakOutcome {
  return { windows, wallSecs, ticks: windows.length * 36_000, options: { rateHz: 10 }, accounting, shutdownStatus: 0 } as SimulatedSoakOutcome;
}

const verdicts = (o: SimulatedSoakOutcome) => Object.fromEntries(simulatedTargetChecks(o).map((check) => [check.figure, check.pass]));

describe('the accelerated soak’s verdict', () => {
  it('compares the last hour with the second, never with the warm-up hour', () => {
    const windows = [hour(9000, 400, 12), hour(1000, 700, 12), hour(1200, 780, 12), hour(1400, 790, 15)];
    expect(lastAgainstSecond(windows, (w) => w.maintenanceMs)).toBeCloseTo(1.4, 9);
    const checks = verdicts(outcome(windows, 4 * 540));
    expect(checks['maintenance time, last window / second']).toBe(true);
    expect(checks['RSS level, last window / second']).toBe(true);
    expect(checks['tick p99, worst window']).toBe(true);
    expect(checks['wall time for 8 simulated hours']).toBe(true);
  });

  it('fails upkeep that grows, memory that grows, one slow hour, and a slow pace', () => {
    const windows = [hour(1000, 700, 12), hour(1000, 700, 12), hour(1600, 810, 20.5)];
    const checks = verdicts(outcome(windows, 3 * 600));
    expect(checks['maintenance time, last window / second']).toBe(false);
    expect(checks['RSS level, last window / second']).toBe(false);
    expect(checks['tick p99, worst window']).toBe(false);
    expect(shiftWallMinutes(outcome(windows, 3 * 600))).toBeCloseTo(80, 9);
    expect(checks['wall time for 8 simulated hours']).toBe(false);
  });

  it('has no ratio under three hours, and counts what the recording quota deleted', () => {
    expect(lastAgainstSecond([hour(1, 1, 1), hour(1, 1, 1)], (w) => w.maintenanceMs)).toBeUndefined();
    const deleted = { ...exact, mcapReadBack: 60, recorderDeleted: 40, mcapFilesDeleted: 2, commandsInMcap: 6, ticksInMcap: 6 };
    const checks = verdicts(outcome([hour(1, 1, 1)], 60, deleted));
    expect(checks['MCAP messages read back / given']).toBe(true);
    expect(checks['commands in MCAP / sent']).toBe(true);
    expect(verdicts(outcome([hour(1, 1, 1)], 60, { ...deleted, recorderDeleted: 39 }))['MCAP messages read back / given']).toBe(false);
  });
});
