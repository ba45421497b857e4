// What this machine offers the GPU paths, read from the machine itself: the NVIDIA GPUs and driver
// (nvidia-smi), and the CUDA and cuDNN runtime libraries the dynamic loader can find. Each GPU
// package needs particular major versions (onnxruntime-node's CUDA provider: CUDA 12 and cuDNN 9;
// tfjs-node-gpu 4.22: CUDA 11.2 and cuDNN 8.1), so "a GPU is present" says little on its own.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

export interface GpuDevice {
  name: string;
  driverVersion: string;
  memoryMiB: number | undefined;
}

/** A runtime library found on this machine, by its major version. */
export interface RuntimeLibrary {
  library: 'cudart' | 'cublas' | 'cudnn';
  major: number;
  path: string;
  /** The dynamic loader finds it (ldconfig's cache or LD_LIBRARY_PATH); otherwise it sits elsewhere and a process would not load it. */
  onLoaderPath: boolean;
}

export interface GpuFacts {
  /** Why no GPU could be listed (no nvidia-smi, or it failed); undefined when it answered. */
  smiProblem: string | undefined;
  devices: GpuDevice[];
  /** The newest CUDA version the driver supports, from nvidia-smi's header ("CUDA Version: 13.0"). */
  driverCudaVersion: string | undefined;
  libraries: RuntimeLibrary[];
}

/** What one GPU path of Reins needs. */
export interface GpuPathNeeds {
  id: 'onnxruntime-cuda' | 'tfjs-node-gpu';
  /** What the path runs on the GPU. */
  purpose: string;
  npmPackage: string;
  cudaMajor: number;
  cudaText: string;
  cudnnMajor: number;
  cudnnText: string;
  /** The CUDA version the driver must at least support. */
  minDriverCuda: number;
}

export const GPU_PATHS: readonly GpuPathNeeds[] = [
  {
    id: 'onnxruntime-cuda',
    purpose: 'the encoders (onnxruntime-node 1.30 CUDA execution provider)',
    npmPackage: 'onnxruntime-node@1.30.0 (its CUDA 12 provider files)',
    cudaMajor: 12,
    cudaText: 'CUDA 12',
    cudnnMajor: 9,
    cudnnText: 'cuDNN 9',
    minDriverCuda: 12,
  },
  {
    id: 'tfjs-node-gpu',
    purpose: 'the world model (TensorFlow.js native GPU backend)',
    npmPackage: '@tensorflow/tfjs-node-gpu@4.22.0',
    cudaMajor: 11,
    cudaText: 'CUDA 11.2',
    cudnnMajor: 8,
    cudnnText: 'cuDNN 8.1',
    minDriverCuda: 11.2,
  },
];

export interface GpuPathVerdict {
  path: GpuPathNeeds;
  canWork: boolean;
  /** What is missing, in words; empty when it can work. */
  missing: string[];
}

const SONAME = /^lib(cudart|cublas|cudnn)\.so\.(\d+)(?:\.\d+)*$/;

/** Parses `nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader,nounits`. */
export function parseSmiDevices(csv: string): GpuDevice[] {
  return csv
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const [name = '', driverVersion = '', memory = ''] = line.split(',').map((part) => part.trim());
      const memoryMiB = Number(memory);
      return { name, driverVersion, memoryMiB: Number.isFinite(memoryMiB) && memory !== '' ? memoryMiB : undefined };
    });
}

/** The "CUDA Version: X.Y" of nvidia-smi's banner. */
export function parseDriverCudaVersion(banner: string): string | undefined {
  return /CUDA Version:\s*([0-9]+(?:\.[0-9]+)?)/.exec(banner)?.[1];
}

/** Library files named in `ldconfig -p` output: "\tlibcudart.so.12 (libc6,x86-64) => /usr/lib/…/libcudart.so.12". */
export function parseLdconfig(output: string): string[] {
  return output
    .split('\n')
    .map((line) => /=>\s*(\S+)\s*$/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
}

/** The runtime libraries among `paths` (each a file path), by soname and major version. */
export function runtimeLibrariesIn(paths: readonly string[], onLoaderPath: boolean): RuntimeLibrary[] {
  const found: RuntimeLibrary[] = [];
  for (const path of paths) {
    const match = SONAME.exec(path.slice(path.lastIndexOf('/') + 1));
    if (match) found.push({ library: match[1] as RuntimeLibrary['library'], major: Number(match[2]), path, onLoaderPath });
  }
  return found;
}

/** Judges each GPU path against what the machine has. */
export function judgeGpuPaths(facts: GpuFacts, paths: readonly GpuPathNeeds[] = GPU_PATHS): GpuPathVerdict[] {
  return paths.map((path) => {
    const missing: string[] = [];
    if (facts.devices.length === 0) missing.push(`an NVIDIA GPU with its driver (${facts.smiProblem ?? 'nvidia-smi lists none'})`);
    else if (facts.driverCudaVersion !== undefined && Number(facts.driverCudaVersion) < path.minDriverCuda) {
      missing.push(`a driver for ${path.cudaText} or newer (this driver supports CUDA ${facts.driverCudaVersion})`);
    }
    const need = (library: RuntimeLibrary['library'], major: number, text: string) => {
      const loadable = facts.libraries.some((found) => found.library === library && found.major === major && found.onLoaderPath);
      if (loadable) return;
      const elsewhere = facts.libraries.find((found) => found.library === library && found.major === major);
      const others = [...new Set(facts.libraries.filter((found) => found.library === library).map((found) => found.major))].sort((a, b) => a - b);
      const seen = others.length > 0 ? `; found lib${library} ${others.join(', ')}` : '';
      missing.push(
        elsewhere
          ? `${text} (lib${library}.so.${major}) on the loader's path: it is at ${elsewhere.path}, which LD_LIBRARY_PATH or ldconfig does not name`
          : `${text} (lib${library}.so.${major})${seen}`,
      );
    };
    need('cudart', path.cudaMajor, `the ${path.cudaText} runtime`);
    need('cublas', path.cudaMajor, `cuBLAS of ${path.cudaText}`);
    need('cudnn', path.cudnnMajor, path.cudnnText);
    return { path, canWork: missing.length === 0, missing };
  });
}

function run(command: string, args: readonly string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
  } catch {
    return undefined;
  }
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function filesIn(folder: string): string[] {
  try {
    return readdirSync(folder).map((name) => join(folder, name));
  } catch {
    return [];
  }
}

/** Folders where CUDA and cuDNN are often installed without being on the loader's path. */
function likelyFolders(): string[] {
  const folders: string[] = [];
  for (const root of ['/usr/local', '/opt']) {
    for (const entry of filesIn(root)) if (/\/cuda[^/]*$/.test(entry)) folders.push(join(entry, 'lib64'), join(entry, 'lib'));
  }
  // Python wheels (nvidia-cudnn-cu12, nvidia-cuda-runtime-cu12, …) put their libraries under site-packages/nvidia/*/lib.
  for (const python of ['/usr/lib/python3/dist-packages', '/usr/local/lib', '/opt']) {
    const stack = [python];
    for (let depth = 0; depth < 5 && stack.length > 0; depth++) {
      const next: string[] = [];
      for (const folder of stack) {
        for (const entry of filesIn(folder)) {
          if (entry.endsWith('/nvidia') && existsSync(entry)) for (const library of filesIn(entry)) folders.push(join(library, 'lib'));
          else if (/(site-packages|dist-packages|python3[.0-9]*|lib|\.venv|venv|torch)$/.test(entry)) next.push(entry);
        }
      }
      stack.splice(0, stack.length, ...next);
    }
  }
  return folders;
}

/** Reads the machine: nvidia-smi, ldconfig's cache, LD_LIBRARY_PATH, and the usual CUDA folders. */
export function readGpuFacts(env: NodeJS.ProcessEnv = process.env): GpuFacts {
  const csv = run('nvidia-smi', ['--query-gpu=name,driver_version,memory.total', '--format=csv,noheader,nounits']);
  const banner = csv === undefined ? undefined : run('nvidia-smi', []);
  const loaderFiles = [
    ...parseLdconfig(run('ldconfig', ['-p']) ?? run('/sbin/ldconfig', ['-p']) ?? ''),
    ...(env.LD_LIBRARY_PATH ?? '')
      .split(':')
      .filter((folder) => folder.length > 0)
      .flatMap(filesIn),
  ];
  const loaderSet = new Set(loaderFiles);
  const elsewhere = likelyFolders()
    .flatMap(filesIn)
    .filter((path) => !loaderSet.has(path));
  // One entry per library file: /usr/local/cuda and /usr/local/cuda-13.0, lib and lib64 are often the same folder.
  const seen = new Set<string>();
  const libraries = [...runtimeLibrariesIn(loaderFiles, true), ...runtimeLibrariesIn(elsewhere, false)].filter((library) => {
    const key = realPath(library.path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    smiProblem: csv === undefined ? 'nvidia-smi is not installed or did not answer' : undefined,
    devices: csv === undefined ? [] : parseSmiDevices(csv),
    driverCudaVersion: banner === undefined ? undefined : parseDriverCudaVersion(banner),
    libraries,
  };
}
