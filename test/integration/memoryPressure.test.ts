// Issue 31: the core's memory budget filled on purpose, by real allocation in the core's own process
// (Buffers whose every page is written), never by a faked reading. A whole core as `reins start` composes
// it (world model and its learner, policy learner, recording, memory) runs in lockstep on the simulated
// robot with the operator driving. Near the budget: the notice is in the cockpit's alerts, both learners
// stop taking steps, and the loop, the recorder and the memory writer go on. Freed: the notice clears
// and both learn again. After shutdown every tick is a memory row and every message the recorder was
// given is read back from its files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { afterAll, expect, it, vi } from 'vitest';
import { parseStartArgs } from '../../main/cli/args.ts';
import { MEMORY_PRESSURE_ALERT_KEY } from '../../main/core/runtime/memoryBudget.ts';
import { openLockstepCore, type LockstepCore } from '../../main/session/lockstepCore.ts';
import { readBackMemoryTicks, readBackRecording } from '../../main/session/sessionReadBack.ts';
import { createSimLink } from '../../main/sim/lockstepLink.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

const MIB = 1024 * 1024;
/** The budget sits this far above the test process's resident memory before the core opens. */
const HEADROOM_MIB = 1536;
const folder = mkdtempSync(join(tmpdir(), 'reins-memory-pressure-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

function rssMiB(): number {
  return process.memoryUsage.rss() / MIB;
}

/** `mib` of memory the process really holds: allocated, and every page written. */
function allocateResident(mib: number): Buffer[] {
  return Array.from({ length: Math.ceil(mib / 16) }, () => Buffer.allocUnsafe(16 * MIB).fill(7));
}

/** Steps the core with the operator driving a slow curve, `secs` of simulated time. */
async function drive(lockstep: LockstepCore, secs: number): Promise<void> {
  const { loop } = lockstep.core;
  for (let i = 0; i < secs * loop.rateHz; i++) {
    loop.heartbeat();
    loop.operatorDrive({ linearMps: 0.15, angularRadps: 0.25 });
    await lockstep.step();
  }
}

function pressureAlert(lockstep: LockstepCore) {
  return lockstep.core.cockpit.state().alerts.find((alert) => alert.key === MEMORY_PRESSURE_ALERT_KEY);
}

it('pauses the learners near the memory budget with a notice, loses no tick or message, and resumes when memory is freed', async () => {
  collectGarbage();
  const budgetMiB = Math.ceil(rssMiB() + HEADROOM_MIB);
  const args = parseStartArgs([
    '--robot',
    'sim',
    '--encoders',
    testEncoderManifest(),
    '--world-model',
    'wm-xxs',
    '--memory',
    join(folder, 'memory'),
    '--recordings',
    join(folder, 'recordings'),
    '--memory-budget-mib',
    String(budgetMiB),
  ]);
  const link = createSimLink({ arenaSeed: 1, episodeSeed: 1, camera: { widthPx: 160, heightPx: 120 }, scan: { beams: 360 } });
  const lockstep = await openLockstepCore({ args, link, dataFolder: join(folder, 'data'), log: pino({ level: 'silent' }) });
  const { core } = lockstep;
  let ticks = 0;
  core.loop.onTick(() => void ticks++);
  core.loop.takeOver();
  const worldModelState = () => core.worldModelLearning!.status().learner;

  // Learning before the budget is near: the policy learner's first rounds need 200 operator ticks.
  await drive(lockstep, 32);
  expect(pressureAlert(lockstep), `the core alone is near its budget (${Math.round(rssMiB())} of ${budgetMiB} MiB): raise HEADROOM_MIB`).toBeUndefined();
  const before = core.learnerSteps();
  expect(before.policy).toBeGreaterThan(0);
  expect(before.worldModel).toBeGreaterThan(0);

  // Filled past 90 % of the budget by the core's own process, topped up until a reading (every 2 s) sees it:
  // the collector may free the core's garbage meanwhile.
  const held: Buffer[] = [];
  while (!core.memoryBudget.status().underPressure && held.length * 16 < budgetMiB) {
    held.push(...allocateResident(Math.max(16, budgetMiB * 0.93 - rssMiB())));
    await drive(lockstep, 2.5);
  }
  const alert = pressureAlert(lockstep);
  expect(alert?.severity).toBe('warn');
  expect(alert?.message).toMatch(/learning is paused/);
  expect(core.memoryBudget.status().underPressure).toBe(true);
  await vi.waitFor(() => expect(worldModelState()).toBe('paused'), { timeout: 10_000 });

  // A round that was already training ends within one round period (5 s); nothing starts after it.
  await drive(lockstep, 6);
  const paused = core.learnerSteps();
  const ticksAtPause = ticks;
  await drive(lockstep, 15);
  expect(core.learnerSteps()).toEqual(paused);
  expect(ticks - ticksAtPause).toBe(150);
  expect(pressureAlert(lockstep)).toBeDefined();

  // Freed: back under 80 % of the budget once the collector's sweep has given the blocks back.
  held.length = 0;
  collectGarbage();
  await vi.waitFor(
    async () => {
      await drive(lockstep, 1);
      expect(core.memoryBudget.status().underPressure).toBe(false);
    },
    { timeout: 30_000, interval: 20 },
  );
  expect(pressureAlert(lockstep)).toBeUndefined();
  await vi.waitFor(() => expect(worldModelState()).not.toBe('paused'), { timeout: 10_000 });
  await drive(lockstep, 12);
  const after = core.learnerSteps();
  expect(after.worldModel).toBeGreaterThan(paused.worldModel);
  expect(after.policy).toBeGreaterThan(paused.policy);

  const recording = core.stores.recording!;
  const memory = core.stores.memory!;
  expect(await lockstep.close()).toBe(0);
  const stats = recording.stats();
  const readBack = await readBackRecording(stats.files);
  expect(stats.dropped).toBe(0);
  expect(readBack.total).toBe(stats.messagesAdded);
  expect(readBack.ticks).toBe(ticks);
  expect(memory.writerStatus().dropped).toBe(0);
  expect(await readBackMemoryTicks(memory)).toBe(ticks);
}, 240_000);
