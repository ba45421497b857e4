// A short soak: the runner of `reins soak` for 20 s at reduced sensor rates. It checks behaviour, not
// figures: nothing crashed, nothing committed was lost (every MCAP message and memory row accounted
// for exactly), the scripted operator took over and handed back, and the robot stopped when it should.
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { runSoak } from '../../main/cli/soak/soakRun.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

it('runs the whole core with the operator intervening, loses nothing, and stops the robot on time', async () => {
  const outcome = await runSoak({
    durationSecs: 20,
    windowSecs: 5,
    camera: { widthPx: 160, heightPx: 120, rateHz: 15 },
    scan: { beams: 360, rateHz: 10 },
    rateHz: 10,
    encoders: testEncoderManifest(),
    worldModel: { preset: 'wm-xxs', replayRatio: 64 },
    seed: 1,
    keep: false,
    log: pino({ level: 'silent' }),
  });

  expect(outcome.shutdownStatus).toBe(0);
  expect(outcome.windows).toHaveLength(4);
  expect(outcome.ticks).toBeGreaterThan(150);
  expect(outcome.windows.every((window) => window.ticks > 0)).toBe(true);

  const a = outcome.accounting;
  expect(a.recorderDropped).toBe(0);
  expect(a.mcapUnfinishedFiles).toBe(0);
  expect(a.mcapReadBack).toBe(a.recorderGiven);
  expect(a.commandsInMcap).toBe(a.commandsSent);
  expect(a.ticksInMcap).toBe(outcome.ticks);
  expect(a.memoryDropped).toBe(0);
  expect(a.memoryRows).toBe(outcome.ticks);

  expect(outcome.operator.takeovers).toBeGreaterThanOrEqual(1);
  expect(outcome.operator.handBacks).toBeGreaterThanOrEqual(1);
  expect(outcome.operator.refused).toBe(0);

  // Hand-back with autonomy off: one zero at once, then nothing, and the robot at rest.
  expect(outcome.handBackStop.zeroAfterMs).toBeLessThanOrEqual(100);
  expect(outcome.handBackStop.commandsAfterZero).toBe(0);
  expect(outcome.handBackStop.speedAfterMps).toBeLessThan(0.05);
  expect(outcome.handBackStop.driverAfter).toBe('idle');
  // The cockpit falls silent while the policy drives: zero within the watchdog's 300 ms (and a little for a busy machine).
  expect(outcome.heartbeatStop.zeroAfterMs).toBeLessThanOrEqual(400);
  expect(outcome.heartbeatStop.commandsAfterZero).toBe(0);
  expect(outcome.heartbeatStop.speedAfterMps).toBeLessThan(0.05);
  expect(outcome.heartbeatStop.driverAfter).toBe('idle');
}, 60_000);
