// The 'native' TF.js backend: the cpu backend with its matrix products on OpenBLAS, and its
// element-wise, slicing and reduction kernels replaced by straight loops for the layouts a model
// uses (the cpu ones, written for any broadcast, took most of a training step once the products were
// native). Every other kernel is the cpu one, and gradients come from tfjs-core.
import { findBackendFactory, getKernel, getKernelsForBackend, registerBackend, registerKernel } from '@tensorflow/tfjs-core';
import type { NativeBlas } from './nativeBlas.ts';
import { NativeBlasBackend } from './nativeBlasBackend.ts';
import { fastElementwiseKernels } from './fastElementwiseKernels.ts';
import { fastLayoutKernels } from './fastLayoutKernels.ts';
import { registerFusedMlpKernels } from './fusedMlpKernel.ts';
import { nativeMatMulKernels } from './nativeMatMulKernels.ts';
import { registerRssmSequenceKernels } from './rssmSequenceKernel.ts';

export const NATIVE_BACKEND_NAME = 'native';
// Below cpu's 1: TF.js never picks this backend by itself; selectWorldModelBackend chooses it.
const NATIVE_BACKEND_PRIORITY = 0;

/** Registers the backend and its kernels once per process; later calls do nothing. */
export function registerNativeBackend(blas: NativeBlas): void {
  if (findBackendFactory(NATIVE_BACKEND_NAME)) return;
  registerBackend(NATIVE_BACKEND_NAME, () => new NativeBlasBackend(blas), NATIVE_BACKEND_PRIORITY);
  for (const config of [...nativeMatMulKernels(NATIVE_BACKEND_NAME), ...fastElementwiseKernels(NATIVE_BACKEND_NAME), ...fastLayoutKernels(NATIVE_BACKEND_NAME)])
    registerKernel(config);
  registerRssmSequenceKernels(NATIVE_BACKEND_NAME);
  registerFusedMlpKernels(NATIVE_BACKEND_NAME);
  for (const config of getKernelsForBackend('cpu')) {
    if (!getKernel(config.kernelName, NATIVE_BACKEND_NAME)) registerKernel({ ...config, backendName: NATIVE_BACKEND_NAME });
  }
}
