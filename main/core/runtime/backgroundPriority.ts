// The control loop's neighbours in the same process (the world-model learner, the policy learner)
// train on worker threads that would otherwise compete with the loop's thread as equals: on a small
// machine a training step then delays a tick. Each such thread lowers its own scheduling priority
// (Linux lets any thread raise its own niceness), so the loop's thread wins the CPU when both want it
// and the learners take what is left.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How much lower than the loop a learner thread runs (nice 0 → 10). */
export const LEARNER_NICENESS = 10;

/** Lowers the calling thread's priority; returns why it could not, or undefined when done. */
export function runBehindTheLoop(niceness = LEARNER_NICENESS): string | undefined {
  if (process.platform !== 'linux') return `thread priorities are set only on Linux (here: ${process.platform})`;
  try {
    // "/proc/thread-self" links to "PID/task/TID": the kernel's id of this very thread.
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(threadId) || threadId <= 0) return 'this thread’s id could not be read';
    lowerThread(threadId, niceness);
    return undefined;
  } catch (error) {
    return `the thread’s priority could not be lowered: ${(error as Error).message}`;
  }
}

/** Lowers one thread (a Linux thread id) to `niceness`; true if it changed. Never raises: a thread
 *  already as low (the whole process niced) stays where it is. Throws if the thread is gone. */
export function lowerThread(threadId: number, niceness: number): boolean {
  if (getPriority(threadId) >= niceness) return false;
  setPriority(threadId, niceness);
  return true;
}
