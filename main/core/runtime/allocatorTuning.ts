// The core runs for hours on one process, and glibc's allocator, left to itself, holds on to more and
// more of what the process frees. Freed blocks go back to per-thread arenas, and glibc raises its
// mmap threshold (up to 32 MiB) each time a mapped block is freed, so the camera frames, tensors and
// LanceDB batches that come and go every tick end up carved from those arenas. Their holes are reused
// only by blocks that fit. A 7-minute soak grew 815 → 911 MiB and kept growing; with the threshold
// fixed at 128 KiB it stayed between 640 and 800 MiB (docs/reliability.md). A fixed threshold gives
// every block of 128 KiB or more its own mapping, returned to the system as soon as it is freed.
// The price is a system call and fresh zeroed pages per large block, a few hundred a second here.
//
// The call goes through a tiny addon (native/reins_alloc.c) because Node has no mallopt. Without the
// addon, or off glibc, the core runs untuned and says why.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const DEFAULT_ALLOCATOR_ADDON_PATH = fileURLToPath(new URL('../../../native/build/reins_alloc.node', import.meta.url));
/** glibc's own starting threshold, kept fixed instead of rising. */
export const MMAP_THRESHOLD_BYTES = 128 * 1024;

export type AllocatorTuning = { tuned: true; mmapThresholdBytes: number } | { tuned: false; reason: string };

/** The C heap, all arenas together, in bytes (glibc's mallinfo2). */
export interface MallocStats {
  /** Held by live allocations carved from the arenas. */
  inUse: number;
  /** Freed, but kept by the arenas (fragmentation, or memory not yet trimmed). */
  freeHeld: number;
  /** Live blocks with mappings of their own (the large ones). */
  mapped: number;
}

interface AllocatorAddon {
  fixMmapThreshold(bytes: number): boolean;
  mallocStats(): MallocStats | null;
  trimHeap(): boolean;
}

const tunings = new Map<string, AllocatorTuning>();

/** Fixes the mmap threshold once per addon path (`addonPath` lets tests point at a missing file). */
export function tuneAllocator(addonPath: string = DEFAULT_ALLOCATOR_ADDON_PATH): AllocatorTuning {
  let tuning = tunings.get(addonPath);
  if (!tuning) {
    tuning = tune(addonPath);
    tunings.set(addonPath, tuning);
  }
  return tuning;
}

/** The C heap's figures, or undefined off glibc or without the addon (for reports, not decisions). */
export function mallocStats(addonPath: string = DEFAULT_ALLOCATOR_ADDON_PATH): MallocStats | undefined {
  const addon = loadAddon(addonPath);
  return 'addon' in addon ? (addon.addon.mallocStats() ?? undefined) : undefined;
}

/**
 * Gives the arenas' free pages back to the system (glibc's malloc_trim): what the threshold leaves
 * behind. Blocks under 128 KiB still come from the arenas, and a freed one keeps its pages resident
 * until something reuses them, so in a long session `freeHeld` reaches 100 MiB and more. Answers
 * whether anything was released and how long it took; undefined without the addon.
 */
export function trimHeap(addonPath: string = DEFAULT_ALLOCATOR_ADDON_PATH): { released: boolean; tookMs: number } | undefined {
  const loaded = loadAddon(addonPath);
  if (!('addon' in loaded)) return undefined;
  const startedMs = performance.now();
  const released = loaded.addon.trimHeap();
  return { released, tookMs: performance.now() - startedMs };
}

/**
 * Trims the C heap every `everyMs`, each time just after a control tick so that it lands in the
 * tick's idle time (the trim holds each arena's lock while it walks it: a few milliseconds).
 * Answers a function that stops it.
 */
export function trimHeapBetweenTicks(
  loop: { onTick(listener: () => void): () => void },
  options: {
    everyMs: number;
    trim?: () => { released: boolean; tookMs: number } | undefined;
    clock?: () => number;
    onTrim?: (outcome: { released: boolean; tookMs: number }) => void;
  },
): () => void {
  const { everyMs, trim = () => trimHeap(), clock = () => performance.now(), onTrim } = options;
  if (!(everyMs > 0)) throw new RangeError(`the heap is trimmed every positive number of ms, got ${everyMs}`);
  let lastMs = clock();
  let pending: NodeJS.Immediate | undefined;
  const stopTicks = loop.onTick(() => {
    if (pending !== undefined || clock() - lastMs < everyMs) return;
    pending = setImmediate(() => {
      pending = undefined;
      lastMs = clock();
      const outcome = trim();
      if (outcome !== undefined) onTrim?.(outcome);
    });
  });
  return () => {
    stopTicks();
    if (pending !== undefined) clearImmediate(pending);
    pending = undefined;
  };
}

function tune(addonPath: string): AllocatorTuning {
  if (process.platform !== 'linux') return { tuned: false, reason: `the allocator is tuned only on Linux (here: ${process.platform})` };
  const loaded = loadAddon(addonPath);
  if (!('addon' in loaded)) return { tuned: false, reason: loaded.reason };
  if (!loaded.addon.fixMmapThreshold(MMAP_THRESHOLD_BYTES)) return { tuned: false, reason: 'this C library is not glibc, or it refused the mmap threshold' };
  return { tuned: true, mmapThresholdBytes: MMAP_THRESHOLD_BYTES };
}

const addons = new Map<string, { addon: AllocatorAddon } | { reason: string }>();

function loadAddon(addonPath: string): { addon: AllocatorAddon } | { reason: string } {
  let loaded = addons.get(addonPath);
  if (!loaded) {
    loaded = requireAddon(addonPath);
    addons.set(addonPath, loaded);
  }
  return loaded;
}

function requireAddon(addonPath: string): { addon: AllocatorAddon } | { reason: string } {
  let addon: AllocatorAddon;
  try {
    addon = createRequire(import.meta.url)(addonPath) as AllocatorAddon;
  } catch (error) {
    const notBuilt = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND';
    return {
      reason: notBuilt
        ? `${addonPath} is not built (run node native/build.mjs; it needs gcc)`
        : `${addonPath} did not load: ${(error as Error).message.split('\n')[0]}`,
    };
  }
  const missing = (['fixMmapThreshold', 'mallocStats', 'trimHeap'] as const).filter((name) => typeof addon[name] !== 'function');
  if (missing.length > 0) return { reason: `${addonPath} lacks ${missing.join(', ')} (stale build? run node native/build.mjs)` };
  return { addon };
}
