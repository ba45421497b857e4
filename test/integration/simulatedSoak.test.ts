// A short accelerated soak: `reins soak --simulated-hours`'s runner for one simulated minute in
// 20-second windows, at reduced sensor rates. It checks that the core's timers run on the simulated
// clock (memory upkeep at its period, a simulated minute, whatever the wall time), that every window's figures
// are read back from the core (memory rows, searches, recording bytes, learner steps), and that nothing
// committed was lost: every tick a memory row, every message, command and tick in the MCAP log.
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { runSimulatedSoak } from '../../main/cli/soak/simulatedSoak.ts';
import { simulatedTargetChecks } from '../../main/cli/soak/simulatedSoakReport.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

it('runs the whole core on the simulated clock, reports each window from what the core kept, and loses nothing', async () => {
  const outcome = await runSimulatedSoak({
    simulatedSecs: 60,
    windowSimSecs: 20,
    camera: { widthPx: 80, heightPx: 60, rateHz: 10 },
    scan: { beams: 180, rateHz: 10 },
    rateHz: 10,
    encoders: testEncoderManifest(),
    worldModel: { preset: 'wm-xxs', replayRatio: 64 },
    seed: 1,
    keep: false,
    log: pino({ level: 'silent' }),
  });

  expect(outcome.shutdownStatus).toBe(0);
  expect(outcome.ticks).toBe(600);
  const { windows } = outcome;
  expect(windows.map((w) => w.ticks)).toEqual([200, 200, 200]);
  expect(windows.map((w) => w.endSimSecs)).toEqual([20, 40, 60]);
  // Upkeep runs once a simulated minute, at the last tick; on the wall clock it would not have run yet.
  expect(windows.map((w) => w.maintenanceRuns)).toEqual([0, 0, 1]);
  expect(windows[2]!.maintenanceMs).toBeGreaterThan(0);
  expect(windows.every((w) => w.rssLevelMiB > 0 && w.rssPeakMiB >= w.rssLevelMiB)).toBe(true);
  // Read back at each window's end: every tick so far a row, searched, and the recording growing.
  expect(windows.map((w) => w.memoryRows)).toEqual([200, 400, 600]);
  expect(windows.every((w) => w.queryMs.p50 > 0)).toBe(true);
  expect(windows[1]!.recordingBytes).toBeGreaterThan(windows[0]!.recordingBytes);
  expect(windows[2]!.recordingBytes).toBeGreaterThan(windows[1]!.recordingBytes);
  // Both learners take steps on the simulated clock: the world model from the first minute, the policy once it has the operator's ticks.
  expect(windows.every((w) => w.learnerSteps.worldModel > 0)).toBe(true);
  expect(windows.reduce((sum, w) => sum + w.learnerSteps.policy, 0)).toBeGreaterThan(0);

  const a = outcome.accounting;
  expect(a.recorderDropped).toBe(0);
  expect(a.mcapFilesDeleted).toBe(0);
  expect(a.mcapUnfinishedFiles).toBe(0);
  expect(a.mcapReadBack).toBe(a.recorderGiven);
  expect(a.commandsSent).toBeGreaterThan(0);
  expect(a.commandsInMcap).toBe(a.commandsSent);
  expect(a.ticksInMcap).toBe(600);
  expect(a.memoryDropped).toBe(0);
  expect(a.memoryRows).toBe(600);
  expect(outcome.operator.refused).toBe(0);

  // The report's accounting reads the same: every check of it passes.
  const accounting = simulatedTargetChecks(outcome).filter((check) => /MCAP|memory rows/.test(check.figure));
  expect(accounting).toHaveLength(4);
  expect(accounting.filter((check) => !check.pass)).toEqual([]);
}, 90_000);
