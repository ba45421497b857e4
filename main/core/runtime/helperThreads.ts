// The control loop runs on the process's main thread; everything else the core starts runs on helper
// threads beside it: LanceDB's runtime (the learners' replay reads, compaction), V8's garbage-collector
// helpers (busiest for the learners' heaps), libuv's pool (the recorder's file writes). At normal
// priority they compete with the loop as equals, and on a small machine the loop's thread, woken for
// a tick, then waits out a scheduler period (~12 ms on two cores) in the middle of it. Lowered, they
// take the CPU the loop leaves, which is most of it (a tick is ~5 ms in 100).
//
// Threads start lazily (LanceDB's on first use, libuv's on the first file write), so the lowering is
// repeated every few seconds. A thread is never raised back.
import { readdirSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { LEARNER_NICENESS, lowerThread } from './backgroundPriority.ts';

export const HELPER_RESCAN_MS = 5000;

export interface HelperThreadReport {
  /** Threads lowered by this pass. */
  lowered: number;
  /** Why nothing could be lowered (not Linux, not the main thread, /proc unreadable). */
  problem: string | undefined;
}

/** One pass: every thread of this process but the main one to at least `niceness`. */
export function lowerHelperThreads(niceness = LEARNER_NICENESS): HelperThreadReport {
  if (process.platform !== 'linux') return { lowered: 0, problem: `thread priorities are set only on Linux (here: ${process.platform})` };
  // From a worker thread, "every other thread" would include the loop's own.
  if (!isMainThread) return { lowered: 0, problem: 'helper threads are lowered only from the main thread, where the loop runs' };
  let tids: number[];
  try {
    tids = readdirSync('/proc/self/task').map(Number);
  } catch (error) {
    return { lowered: 0, problem: `this process’s threads could not be listed: ${(error as Error).message}` };
  }
  let lowered = 0;
  for (const tid of tids) {
    if (tid === process.pid || !Number.isInteger(tid)) continue;
    try {
      if (lowerThread(tid, niceness)) lowered++;
    } catch {
      // The thread ended between the listing and now.
    }
  }
  return { lowered, problem: undefined };
}

/** Lowers the helper threads now and every HELPER_RESCAN_MS until stopped; returns the stop. */
export function keepHelperThreadsBehindTheLoop(onProblem: (problem: string) => void, niceness = LEARNER_NICENESS): () => void {
  const first = lowerHelperThreads(niceness);
  if (first.problem !== undefined) {
    onProblem(first.problem);
    return () => undefined;
  }
  const timer = setInterval(() => lowerHelperThreads(niceness), HELPER_RESCAN_MS);
  timer.unref();
  return () => clearInterval(timer);
}
