// V8 sets the old generation's next limit, after each full collection, from how fast its collector
// runs against how fast the program allocates on the JavaScript heap. The core allocates little there
// (a sensor frame's bytes live outside it), so V8 finds its collector quick and lets the limit grow by
// only 1.3× the live size (V8's floor is 1.1×): with ~80 MB live the old generation is never far from its limit, and V8
// marks it again as soon as it has finished. In a 160-second soak the loop's thread ran 547 full
// collections (13 s of pauses, 23 s more of incremental marking steps, mutator utilisation 0.7).
// Growth fixed at 2× the live size: 14 full collections in the same time (docs/reliability.md), for at
// most the live size again in resident memory (~80 MB here; the core's budget is 1.5 GiB). The flag is
// read at each full collection, so setting it as the session starts holds for the rest of the process,
// worker threads included.
import { setFlagsFromString } from 'node:v8';

/** The old generation's limit after a full collection: this much more than what survived it, in percent. */
export const HEAP_GROWING_PERCENT = 100;

/** Fixes the old generation's growth between full collections, for the whole process (calling it again changes nothing). */
export function tuneJsHeap(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
