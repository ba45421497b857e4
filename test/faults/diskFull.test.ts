// Fault: the disk fills up mid-session. The recorder's file layer (`node:fs/promises` open) is given
// a handle that fails with ENOSPC once the space runs out, writing what fits first; the memory's
// table writes fail as LanceDB reports a full disk. Checks: the recorder and the memory raise keyed
// alerts, the operator keeps driving the robot, every finished chunk and every written batch stays
// readable, and when space returns the memory catches up with every tick (none lost) on its own.
// The recorder stops for good after a failed write (its design: the file's state is unknown), so it
// is checked to keep what it had, not to resume.
import type { SentCommand } from '../../main/core/tickReport.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSessionStores, type SessionStores } from '../../main/session/sessionStores.ts';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import { Memory } from '../../main/memory/memory.ts';
import { ticksFromArrow } from '../../main/memory/tickRead.ts';
import { TickStore } from '../../main/memory/tickStore.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { createSimLink, startRealtime } from '../../main/sim/lockstepLink.ts';
import { FullDisk } from '../fakes/fullDisk.ts';
import { readLogAsItIs } from '../support/mcapMessages.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';
import { WaitableLog } from '../support/waitableLog.ts';

const gate = vi.hoisted(() => ({ disk: undefined as FullDisk | undefined }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const open = async (...args: Parameters<typeof real.open>) => {
    const handle = await real.open(...args);
    return gate.disk ? gate.disk.wrap(String(args[0]), handle) : handle;
  };
  return { ...real, default: { ...real, open }, open };
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  gate.disk = undefined;
  vi.restoreAllMocks();
});

describe('the disk full mid-session', () => {
  it('alerts from the recorder and the memory, keeps the robot controllable, loses nothing committed, and the memory catches up when space returns', async () => {
    const root = mkdtempSync(join(tmpdir(), 'reins-disk-full-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const disk = new FullDisk(root);
    gate.disk = disk;
    const realWrite = TickStore.prototype.write;
    vi.spyOn(TickStore.prototype, 'write').mockImplementation(async function (this: TickStore, rows) {
      disk.failIfFull();
      return realWrite.call(this, rows);
    });

    const link = createSimLink({});
    const stopRobot = startRealtime(link);
    const perception = await loadPerception(testEncoderManifest());
    const loop = await createControlLoop(link, { perception });
    const stores: SessionStores = await openSessionStores(
      link,
      loop,
      perception,
      { recordings: join(root, 'recordings'), record: true, memory: join(root, 'memory'), remember: true },
      pino({ level: 'silent' }),
    );
    const recording = stores.recording!;
    const memoryFacts = stores.memory!;
    const sent = new WaitableLog<SentCommand>('commands the loop sent');
    loop.onSent((command) => sent.push(command));
    const ticks = new WaitableLog<{ atMs: number; alerts: string[]; speedMps: number }>('ticks');
    loop.onTick(() => ticks.push({ atMs: Date.now(), alerts: loop.alerts().map((alert) => alert.key), speedMps: link.robot.groundTruth().linearMps }));
    loop.start();
    const operator = setInterval(() => {
      loop.heartbeat();
      loop.operatorDrive({ linearMps: 0.3, angularRadps: 0 });
    }, 100);
    let closed = false;
    const closeAll = async () => {
      if (closed) return;
      closed = true;
      clearInterval(operator);
      await loop.close();
      await stores.close();
      stopRobot();
      await link.close();
    };
    cleanups.push(closeAll);

    // Before: finished chunks on disk and batches in memory.
    await ticks.until(() => recording.stats().chunksWritten >= 2 && memoryFacts.writtenTicks() >= 10, 'two chunks and ten memory rows', 20_000);
    const logBefore = await readLogAsItIs(recording.currentPath());
    const rowsBefore = memoryFacts.writtenTicks();
    expect(logBefore.messages).toBeGreaterThan(0);

    const fullAtMs = Date.now();
    disk.fill(4096); // a little left: the next chunk is torn part-way, then ENOSPC
    await ticks.until((all) => ['recording-failed', 'memory-degraded'].every((key) => all.at(-1)!.alerts.includes(key)), 'both alerts', 10_000);
    const alertedMs = Date.now() - fullAtMs;
    const recordingAlert = loop.alerts().find((alert) => alert.key === 'recording-failed')!;
    expect(recordingAlert).toMatchObject({
      severity: 'error',
      message: expect.stringMatching(/no space left on device/i),
      hint: expect.stringMatching(/free space/i),
    });
    expect(loop.alerts().find((alert) => alert.key === 'memory-degraded')?.message).toMatch(/No space left on device/);

    // The robot stays under the operator's control on a full disk: commands go out, it moves, it stops.
    const fullFrom = ticks.items.length;
    await ticks.until((all) => all.length >= fullFrom + 10, 'ten ticks on a full disk');
    expect(sent.items.filter((each) => each.atMs >= fullAtMs).every((each) => each.delivered)).toBe(true);
    expect(ticks.items.at(-1)!.speedMps).toBeGreaterThan(0.2);
    expect(loop.alerts().map((alert) => alert.key)).not.toContain('watchdog-loop');

    // Space returns: the memory writes everything it held back and the alert clears.
    const freedAtMs = Date.now();
    disk.free();
    const queuedWhenFreed = memoryFacts.writerStatus().queued;
    expect(queuedWhenFreed).toBeGreaterThan(0);
    await ticks.until(
      () => !memoryFacts.writerStatus().degraded && memoryFacts.writtenTicks() >= rowsBefore + queuedWhenFreed,
      'the memory to catch up',
      15_000,
    );
    const memoryRecoveredMs = Date.now() - freedAtMs;
    await ticks.until((all) => !all.at(-1)!.alerts.includes('memory-degraded'), 'the memory alert to clear');
    // The recorder does not resume (see the header): its alert stays.
    expect(loop.alerts().map((alert) => alert.key)).toContain('recording-failed');

    clearInterval(operator);
    const releasedAtMs = Date.now();
    await sent.until(
      (all) => all.some((each) => each.atMs >= releasedAtMs && each.command.linearMps === 0 && each.command.angularRadps === 0),
      'the stop once the operator lets go',
    );
    const path = recording.currentPath();
    const { written, dropped } = memoryFacts.writerStatus();
    await closeAll();

    // Nothing committed is lost: every finished chunk from before reads; every tick reached memory, in order.
    const logAfter = await readLogAsItIs(path);
    expect(logAfter.footer).toBe(false);
    expect(logAfter.messages).toBeGreaterThanOrEqual(logBefore.messages);
    for (const [topic, count] of logBefore.topics) expect(logAfter.topics.get(topic) ?? 0).toBeGreaterThanOrEqual(count);
    expect(dropped).toBe(0);
    const memory = await Memory.open({ uri: join(root, 'memory'), maintenance: { periodMs: 0 } });
    try {
      const rows = ticksFromArrow(await (await memory.ticks(memoryFacts.space)).query());
      const steps = rows.map((row) => row.step).sort((a, b) => a - b);
      expect(steps).toEqual(Array.from({ length: steps.length }, (_, step) => step));
      expect(rows.length).toBeGreaterThanOrEqual(written);
    } finally {
      await memory.close();
    }
    console.info(
      `disk full: both alerts ${alertedMs} ms after the disk filled (${disk.refusedWrites} writes refused); ${logBefore.messages} messages in finished chunks kept (${logAfter.messages} readable after); ` +
        `memory caught up ${memoryRecoveredMs} ms after space returned (${queuedWhenFreed} rows held back, 0 lost)`,
    );
  }, 60_000);
});
