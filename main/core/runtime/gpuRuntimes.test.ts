import { describe, expect, it } from 'vitest';
import { judgeGpuPaths, parseDriverCudaVersion, parseLdconfig, parseSmiDevices, runtimeLibrariesIn, type GpuFacts } from './gpuRuntimes.ts';

// What an H200 lent to this project showed on 2026-11-26 (nvidia-smi, ldconfig -p): a CUDA 13 machine.
const H200_SMI = 'NVIDIA H200, 580.159.04, 143771\n';
const H200_BANNER = '| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |';
const LDCONFIG = [
  '\tlibcudnn.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn.so.9',
  '\tlibcudnn_ops.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn_ops.so.9',
  '\tlibcudart.so.13 (libc6,x86-64) => /usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.13',
  '\tlibcublas.so.13 (libc6,x86-64) => /usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13',
].join('\n');

const facts = (overrides: Partial<GpuFacts> = {}): GpuFacts => ({
  smiProblem: undefined,
  devices: parseSmiDevices(H200_SMI),
  driverCudaVersion: parseDriverCudaVersion(H200_BANNER),
  libraries: runtimeLibrariesIn(parseLdconfig(LDCONFIG), true),
  ...overrides,
});

describe('what the machine offers the GPU paths', () => {
  it('reads the GPU, the driver and its CUDA version, and the runtime libraries by major version', () => {
    expect(parseSmiDevices(H200_SMI)).toEqual([{ name: 'NVIDIA H200', driverVersion: '580.159.04', memoryMiB: 143771 }]);
    expect(parseDriverCudaVersion(H200_BANNER)).toBe('13.0');
    expect(facts().libraries.map((library) => `${library.library}${library.major}`)).toEqual(['cudnn9', 'cudart13', 'cublas13']);
  });

  it('says neither path can work on a CUDA 13 machine, naming each missing runtime', () => {
    const [onnx, tfjs] = judgeGpuPaths(facts());
    expect(onnx!.canWork).toBe(false);
    expect(onnx!.missing).toEqual(['the CUDA 12 runtime (libcudart.so.12); found libcudart 13', 'cuBLAS of CUDA 12 (libcublas.so.12); found libcublas 13']);
    expect(tfjs!.canWork).toBe(false);
    expect(tfjs!.missing).toContain('cuDNN 8.1 (libcudnn.so.8); found libcudnn 9');
  });

  it('says the encoders can use the GPU where CUDA 12 and cuDNN 9 are loadable', () => {
    const libraries = runtimeLibrariesIn(['/usr/lib/libcudart.so.12.4.127', '/usr/lib/libcublas.so.12', '/usr/lib/libcudnn.so.9.1.0'], true);
    const [onnx, tfjs] = judgeGpuPaths(facts({ libraries }));
    expect(onnx).toMatchObject({ canWork: true, missing: [] });
    expect(tfjs!.canWork).toBe(false);
  });

  it('tells a library that exists but that the loader cannot find apart from one that is missing', () => {
    const libraries = [
      ...runtimeLibrariesIn(['/usr/lib/libcudart.so.12', '/usr/lib/libcublas.so.12'], true),
      ...runtimeLibrariesIn(['/opt/venv/nvidia/cudnn/lib/libcudnn.so.9'], false),
    ];
    const [onnx] = judgeGpuPaths(facts({ libraries }));
    expect(onnx!.missing).toEqual([
      "cuDNN 9 (libcudnn.so.9) on the loader's path: it is at /opt/venv/nvidia/cudnn/lib/libcudnn.so.9, which LD_LIBRARY_PATH or ldconfig does not name",
    ]);
  });

  it('names the missing GPU and an old driver', () => {
    const none = judgeGpuPaths(facts({ devices: [], smiProblem: 'nvidia-smi is not installed or did not answer' }));
    expect(none[0]!.missing[0]).toBe('an NVIDIA GPU with its driver (nvidia-smi is not installed or did not answer)');
    const old = judgeGpuPaths(
      facts({ driverCudaVersion: '11.4', libraries: runtimeLibrariesIn(['/l/libcudart.so.12', '/l/libcublas.so.12', '/l/libcudnn.so.9'], true) }),
    );
    expect(old[0]!.missing).toEqual(['a driver for CUDA 12 or newer (this driver supports CUDA 11.4)']);
  });
});
