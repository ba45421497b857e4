// Fault: the core is killed (SIGKILL of a `reins start` child) while it records and writes memory,
// with an operator driving over the UI socket. Checks: the simulated robot's process goes with it (its
// lifeline); every MCAP chunk finished before the kill and every memory batch committed before it is
// still there and readable afterwards (the log through review's damaged-log path, the rows unchanged);
// the memory opens and takes new rows.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Memory } from '../../main/memory/memory.ts';
import { MemoryWriter } from '../../main/memory/memoryWriter.ts';
import { ticksFromArrow } from '../../main/memory/tickRead.ts';
import type { TickRow, TickSpace } from '../../main/memory/tickSchema.ts';
import { openReviewLog } from '../../main/recording/reviewLog.ts';
import { startCoreProcess, type CoreProcess } from '../support/coreProcess.ts';
import { readLogAsItIs } from '../support/mcapMessages.ts';
import { SocketClient } from '../support/socketClient.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

const MIN_ROWS_BEFORE_KILL = 30;

let core: CoreProcess | undefined;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  if (core?.child.exitCode === null && core.child.signalCode === null) core.child.kill('SIGKILL');
  core = undefined;
});

/** Checks every `periodMs` until `check` gives a value; fails at the deadline. */
async function pollUntil<T>(check: () => Promise<T | undefined>, what: string, timeoutMs: number, periodMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, periodMs));
  }
}

/** The memory's rows as another process sees them now (a LanceDB table does not follow another writer, so it opens afresh). */
async function rowsNow(uri: string, space: TickSpace) {
  const memory = await Memory.open({ uri, maintenance: { periodMs: 0 } });
  try {
    return ticksFromArrow(await (await memory.ticks(space)).query());
  } finally {
    await memory.close();
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the core killed while recording and writing memory', () => {
  it('keeps every finished chunk and committed batch readable, and its simulated robot goes with it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'reins-core-killed-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const recordings = join(root, 'recordings');
    const memoryUri = join(root, 'memory');
    core = await startCoreProcess(['--recordings', recordings, '--memory', memoryUri, '--no-world-model'], 60_000);
    const simPids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(core.child.pid)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(simPids.length).toBeGreaterThanOrEqual(1);
    const encoderVersion = (JSON.parse(readFileSync(testEncoderManifest(), 'utf8')) as { version: string }).version;
    const space: TickSpace = { encoderVersion, embeddingSize: 256, distance: 'l2' };
    const logPath = join(
      recordings,
      readdirSync(recordings).find((name) => name.endsWith('.mcap'))!,
    );

    // An operator drives over the socket, as the UI does.
    const client = await SocketClient.open(`${core.origin.replace('http', 'ws')}/api/socket?token=${encodeURIComponent(core.token)}`, core.origin);
    cleanups.push(() => client.socket.terminate());
    const tab = setInterval(() => {
      client.send({ type: 'heartbeat', sentAtMs: Date.now() });
      client.send({ type: 'drive', linearMps: 0.3, angularRadps: 0.2 });
    }, 100);
    cleanups.push(() => clearInterval(tab));

    // Committed before the kill: batches the memory shows another process, chunks a reader finds on disk.
    const rowsBefore = await pollUntil(
      async () => {
        const rows = await rowsNow(memoryUri, space).catch(() => []);
        return rows.length >= MIN_ROWS_BEFORE_KILL ? rows : undefined;
      },
      `${MIN_ROWS_BEFORE_KILL} memory rows`,
      45_000,
    );
    const logBefore = await pollUntil(
      async () => {
        const log = await readLogAsItIs(logPath);
        return log.topics.has('/cmd_vel') && log.messages > 0 ? log : undefined;
      },
      'finished chunks holding commands',
      15_000,
    );

    const exited = new Promise((resolve) => core!.child.once('exit', (_code, signal) => resolve(signal)));
    core.child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const killedAtMs = Date.now();
    await pollUntil(async () => (simPids.every((pid) => !isRunning(pid)) ? true : undefined), 'the simulated robot to exit', 10_000, 50);
    const simGoneMs = Date.now() - killedAtMs;

    // The log: at least what was there, readable by review (no footer: read through, chunk by chunk).
    const logAfter = await readLogAsItIs(logPath);
    expect(logAfter.footer).toBe(false);
    expect(logAfter.messages).toBeGreaterThanOrEqual(logBefore.messages);
    for (const [topic, count] of logBefore.topics) expect(logAfter.topics.get(topic) ?? 0).toBeGreaterThanOrEqual(count);
    const review = await openReviewLog(logPath);
    try {
      const reviewTopics = new Map(review.summary.topics.map((topic) => [topic.topic, topic.messageCount]));
      for (const [topic, count] of logBefore.topics) expect(reviewTopics.get(topic) ?? 0).toBeGreaterThanOrEqual(count);
    } finally {
      await review.close();
    }

    // The memory: every row committed before the kill, unchanged; steps without gaps; it takes new rows.
    const rowsAfter = await rowsNow(memoryUri, space);
    const byStep = new Map(rowsAfter.map((row) => [row.step, row]));
    for (const row of rowsBefore) expect(byStep.get(row.step)).toEqual(row);
    const steps = rowsAfter.map((row) => row.step).sort((a, b) => a - b);
    expect(steps).toEqual(Array.from({ length: steps.length }, (_, step) => step));
    const memory = await Memory.open({ uri: memoryUri, maintenance: { periodMs: 0 } });
    try {
      const store = await memory.ticks(space);
      const writer = new MemoryWriter(store);
      const next: TickRow = { ...rowsBefore[0]!, step: steps.length, embedding: new Float32Array(256), latent: undefined };
      expect(writer.append(next)).toEqual({ accepted: true });
      await writer.close();
      expect(await store.countRows()).toBe(rowsAfter.length + 1);
    } finally {
      await memory.close();
    }
    console.info(
      `core killed: ${logBefore.messages} messages in finished chunks before, ${logAfter.messages} readable after; ${rowsBefore.length} rows committed before, ${rowsAfter.length} after, none changed; ` +
        `the sim exited ${simGoneMs} ms after the core`,
    );
  }, 90_000);
});
