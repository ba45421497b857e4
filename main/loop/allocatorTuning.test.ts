import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ALLOCATOR_ADDON_PATH, MMAP_THRESHOLD_BYTES, mallocStats, tuneAllocator } from './allocatorTuning.ts';

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
