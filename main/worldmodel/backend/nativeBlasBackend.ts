// The native backend's class: the cpu backend carrying the OpenBLAS binding its kernels multiply with.
// Its own file so that the kernels, which read `backend.blas`, need not import nativeBackend.ts, which
// imports them to register them.
import { MathBackendCPU } from '@tensorflow/tfjs-backend-cpu';
import type { NativeBlas } from './nativeBlas.ts';

export class NativeBlasBackend extends MathBackendCPU {
  constructor(readonly blas: NativeBlas) {
    super();
    // The cpu backend's first write prints "install tfjs-node to speed things up": wrong advice here,
    // where tfjs-node cannot install and the products already run natively.
    (this as unknown as { firstUse: boolean }).firstUse = false;
  }
}
