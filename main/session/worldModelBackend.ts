// The TF.js backend a session's world model runs on: the fastest that loads for the loop's filter (and
// the policy learner beside it), the same with OpenBLAS pinned to one thread for the learner's worker,
// and, for the benches that time each backend in turn, one named backend made active.
import {
  BACKEND_PREFERENCE,
  loadWorldModelBackend,
  selectWorldModelBackend,
  type BackendName,
  type BackendSelection,
} from '../worldmodel/backend/selectBackend.ts';
import { loadNativeBlas } from '../worldmodel/backend/nativeBlas.ts';
import { loadLearnerBackend, type LearnerBackend } from '../worldmodel/learner/learnerBackend.ts';

export { BACKEND_PREFERENCE, type BackendName, type BackendSelection, type LearnerBackend };

/** The fastest backend that loads here, as the loop's world-model filter runs on it; the reason each faster one did not. */
export function selectSessionBackend(): Promise<BackendSelection> {
  return selectWorldModelBackend();
}

/** What the world-model learner's worker trains on: the fastest backend, OpenBLAS on one thread. */
export function selectLearnerBackend(): Promise<LearnerBackend> {
  return loadLearnerBackend();
}

export interface ActiveBackend {
  backend: BackendName;
  /** Sets OpenBLAS's process-wide thread count: only on the native backend, with its addon loaded. */
  setBlasThreads?: (threads: number) => void;
}

/** Makes one named backend active (a BackendUnavailableError says why it cannot), to time each in turn. */
export async function activateBackend(backend: BackendName): Promise<ActiveBackend> {
  await loadWorldModelBackend(backend);
  const native = backend === 'native' ? loadNativeBlas() : undefined;
  return native?.loaded ? { backend, setBlasThreads: (threads) => native.blas.setOpenblasThreads(threads) } : { backend };
}
