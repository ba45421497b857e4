// What a session does to its own process so the control loop wins the CPU and the process holds its
// size for hours: the C allocator and the JavaScript heap's growth tuned before anything allocates,
// the helper threads (LanceDB's runtime, V8's and libuv's pools) lowered behind the loop's thread, and
// the C heap's free pages given back between ticks. `reins start`, `reins soak` and the
// tick-with-learner bench all go through here, so the bench times the loop as a session runs it.
import type { Logger } from 'pino';
import { trimHeapBetweenTicks, tuneAllocator, type AllocatorTuning } from '../core/runtime/allocatorTuning.ts';
import { keepHelperThreadsBehindTheLoop } from '../core/runtime/helperThreads.ts';
import { tuneJsHeap } from '../core/runtime/jsHeapTuning.ts';

/** How often the C heap's free pages are given back to the system. */
export const HEAP_TRIM_EVERY_MS = 15_000;

/**
 * Tunes the C allocator and the JavaScript heap's growth: call before the encoders, LanceDB and the
 * learners start allocating (allocatorTuning.ts, jsHeapTuning.ts).
 */
export function tuneSessionMemory(log: Pick<Logger, 'info'>): AllocatorTuning {
  tuneJsHeap();
  const allocator = tuneAllocator();
  if (!allocator.tuned) log.info({ reason: allocator.reason }, 'the C allocator keeps its defaults');
  return allocator;
}

/**
 * Keeps the loop first for as long as the session runs: its helper threads lowered (helperThreads.ts)
 * and, with the allocator tuned, the C heap trimmed between ticks. Returns the stop.
 */
export function keepTheLoopFirst(
  loop: { onTick(listener: () => void): () => void },
  allocator: AllocatorTuning,
  clock: () => number,
  log: Pick<Logger, 'info' | 'debug'>,
): () => void {
  const stopLowering = keepHelperThreadsBehindTheLoop((problem) => log.info({ problem }, 'helper threads run at the loop’s priority'));
  // The arenas' free pages go back to the system every few seconds, between ticks (see allocatorTuning.ts).
  const stopTrimming = allocator.tuned
    ? trimHeapBetweenTicks(loop, { everyMs: HEAP_TRIM_EVERY_MS, clock, onTrim: (trim) => log.debug(trim, 'C heap trimmed') })
    : () => {};
  return () => {
    stopLowering();
    stopTrimming();
  };
}
