// The learner's TF.js backend: the fastest that loads, and — on OpenBLAS — one BLAS thread, so the
// learner's matrix products keep to one core and the control loop keeps the other. OpenBLAS's thread
// count is process-wide: the pin holds for every thread of this process that uses the addon.
import { BACKEND_PREFERENCE, selectWorldModelBackend, type BackendName, type BackendSelection } from '../backend/selectBackend.ts';
import { loadNativeBlas } from '../backend/nativeBlas.ts';

const LEARNER_BLAS_THREADS = 1;

export interface LearnerBackend extends BackendSelection {
  /** OpenBLAS's thread count after pinning; undefined when the native backend is not in use. */
  openblasThreads: number | undefined;
  /** The kernels OpenBLAS runs (openblasCore.ts); undefined when the native backend is not in use. */
  openblasCore: string | undefined;
}

export async function loadLearnerBackend(preference: readonly BackendName[] = BACKEND_PREFERENCE): Promise<LearnerBackend> {
  const selection = await selectWorldModelBackend(preference);
  if (selection.backend !== 'native') return { ...selection, openblasThreads: undefined, openblasCore: undefined };
  // Loaded once per path: this is the addon the native backend already runs on.
  const native = loadNativeBlas();
  if (!native.loaded) return { ...selection, openblasThreads: undefined, openblasCore: undefined };
  native.blas.setOpenblasThreads(LEARNER_BLAS_THREADS);
  return { ...selection, openblasThreads: native.blas.openblasThreads(), openblasCore: native.blas.openblasCore() };
}
