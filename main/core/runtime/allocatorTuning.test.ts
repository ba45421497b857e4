import { createRequire } from 'node:module';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ALLOCATOR_ADDON_PATH, MMAP_THRESHOLD_BYTES, mallocStats, trimHeap, trimHeapBetweenTicks, tuneAllocator } from './allocatorTuning.ts';

describe('tuneAllocator', () => {
  it.runIf(process.platform === 'linux')('fixes glibc’s mmap threshold through the built addon', () => {
    expect(tuneAllocator()).toEqual({ tuned: true, mmapThresholdBytes: MMAP_THRESHOLD_BYTES });
  });

  it('says the addon is not built rather than throwing', () => {
    const missing = join(import.meta.dirname, 'no-such-addon.node');
    const tuning = tuneAllocator(missing);
    expect(tuning.tuned).toBe(false);
    if (!tuning.tuned) expect(tuning.reason).toMatch(process.platform === 'linux' ? /not built \(run node native\/build\.mjs/ : /only on Linux/);
  });

  it.runIf(process.platform === 'linux')('says a file that is not an addon did not load', () => {
    const tuning = tuneAllocator(import.meta.filename);
    expect(tuning).toEqual({ tuned: false, reason: expect.stringMatching(/did not load|lacks fixMmapThreshold/) });
  });

  it.runIf(process.platform === 'linux')('the addon refuses thresholds outside 4 KiB–32 MiB', () => {
    const addon = createRequire(import.meta.url)(DEFAULT_ALLOCATOR_ADDON_PATH) as { fixMmapThreshold(bytes: unknown): boolean };
    for (const bad of [0, 4095, 32 * 1024 * 1024 + 1, -1, 'big', Number.NaN]) expect(() => addon.fixMmapThreshold(bad)).toThrow(RangeError);
    expect(addon.fixMmapThreshold(MMAP_THRESHOLD_BYTES)).toBe(true);
  });
});

describe('mallocStats', () => {
  it.runIf(process.platform === 'linux')('sees blocks carved from the arenas and blocks mapped on their own', () => {
    const before = mallocStats()!;
    // ArrayBuffers' memory comes from the C heap: 64 KiB blocks from the arenas, 1 MiB ones mapped
    // (the threshold is fixed at 128 KiB by the first test).
    const small = Array.from({ length: 100 }, () => new ArrayBuffer(64 * 1024));
    const large = Array.from({ length: 8 }, () => new ArrayBuffer(1024 * 1024));
    const after = mallocStats()!;
    expect(after.inUse - before.inUse).toBeGreaterThanOrEqual(0.9 * small.length * 64 * 1024);
    expect(after.mapped - before.mapped).toBeGreaterThanOrEqual(large.length * 1024 * 1024);
    expect(after.freeHeld).toBeGreaterThanOrEqual(0);
  });

  it('is undefined without the addon', () => {
    expect(mallocStats(join(import.meta.dirname, 'no-such-addon.node'))).toBeUndefined();
  });
});

describe('trimHeap', () => {
  it.runIf(process.platform === 'linux')('gives the pages of freed blocks back to the system', () => {
    // In a process of its own: the C heap is the whole process's, and tests running beside this one
    // would reuse the freed blocks before they could be counted.
    const script = `
      const addon = require(${JSON.stringify(DEFAULT_ALLOCATOR_ADDON_PATH)});
      addon.fixMmapThreshold(${MMAP_THRESHOLD_BYTES});
      addon.trimHeap();
      const blockBytes = 64 * 1024;
      let blocks = Array.from({ length: 400 }, () => new Uint8Array(blockBytes).fill(1));
      const held = addon.mallocStats().freeHeld;
      blocks = undefined;
      const startedMs = Date.now();
      const wait = () => {
        gc();
        const freed = addon.mallocStats().freeHeld - held;
        if (freed < 300 * blockBytes && Date.now() - startedMs < 10000) return setTimeout(wait, 20);
        const before = process.memoryUsage.rss();
        const released = addon.trimHeap();
        console.log(JSON.stringify({ blockBytes, freed, released, dropBytes: before - process.memoryUsage.rss() }));
      };
      wait();`;
    const run = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout) as { blockBytes: number; freed: number; released: boolean; dropBytes: number };
    // Freed, but still resident until the trim…
    expect(outcome.freed).toBeGreaterThan(300 * outcome.blockBytes);
    // …which gives the pages back.
    expect(outcome.released).toBe(true);
    expect(outcome.dropBytes).toBeGreaterThan(200 * outcome.blockBytes);
  });

  it('answers how long it took where the addon is built, and is undefined without it', () => {
    if (process.platform === 'linux') expect(trimHeap()).toEqual({ released: expect.any(Boolean), tookMs: expect.any(Number) });
    expect(trimHeap(join(import.meta.dirname, 'no-such-addon.node'))).toBeUndefined();
  });
});

describe('trimHeapBetweenTicks', () => {
  function fakeLoop() {
    const listeners = new Set<() => void>();
    return {
      onTick: (listener: () => void) => (listeners.add(listener), () => listeners.delete(listener)),
      tick: () => listeners.forEach((listener) => listener()),
      listeners,
    };
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('trims once the period has passed, just after a tick, and never two at once', async () => {
    const loop = fakeLoop();
    let nowMs = 0;
    const trims: number[] = [];
    const seen: number[] = [];
    const stop = trimHeapBetweenTicks(loop, {
      everyMs: 1000,
      clock: () => nowMs,
      trim: () => (trims.push(nowMs), { released: true, tookMs: 2 }),
      onTrim: (outcome) => seen.push(outcome.tookMs),
    });
    loop.tick();
    nowMs = 999;
    loop.tick();
    await turn();
    expect(trims).toEqual([]);
    nowMs = 1000;
    loop.tick();
    loop.tick();
    expect(trims).toEqual([]);
    await turn();
    expect(trims).toEqual([1000]);
    expect(seen).toEqual([2]);
    nowMs = 1500;
    loop.tick();
    await turn();
    expect(trims).toEqual([1000]);
    nowMs = 2000;
    loop.tick();
    await turn();
    expect(trims).toEqual([1000, 2000]);
    stop();
    expect(loop.listeners.size).toBe(0);
  });

  it('stops a trim that is due, and refuses a period that is not positive', async () => {
    const loop = fakeLoop();
    let nowMs = 0;
    const trims: number[] = [];
    const stop = trimHeapBetweenTicks(loop, { everyMs: 10, clock: () => nowMs, trim: () => (trims.push(nowMs), undefined) });
    nowMs = 10;
    loop.tick();
    stop();
    await turn();
    expect(trims).toEqual([]);
    expect(() => trimHeapBetweenTicks(loop, { everyMs: 0 })).toThrow(RangeError);
    expect(() => trimHeapBetweenTicks(loop, { everyMs: Number.NaN })).toThrow(RangeError);
  });
});
