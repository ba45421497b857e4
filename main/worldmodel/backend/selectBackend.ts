// Picks the fastest TF.js backend that loads on this machine for the world model, and keeps the
// reason each faster one did not, so the operator can see why training is slow.
import { dirname, sep } from 'node:path';
import { createRequire } from 'node:module';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { NATIVE_BACKEND_NAME, registerNativeBackend } from './nativeBackend.ts';
import { loadNativeBlas } from './nativeBlas.ts';

export type BackendName = 'tfjs-node-gpu' | 'tfjs-node' | 'native' | 'wasm' | 'cpu';

/** Fastest first: libtensorflow on a GPU, libtensorflow, OpenBLAS, WebAssembly SIMD, plain JavaScript. */
export const BACKEND_PREFERENCE: readonly BackendName[] = ['tfjs-node-gpu', 'tfjs-node', 'native', 'wasm', 'cpu'];

export interface BackendAttempt {
  backend: BackendName;
  reason: string;
}

export interface BackendSelection {
  backend: BackendName;
  /** The backends tried before it, each with why it did not load. */
  tried: BackendAttempt[];
}

export interface BackendLoadOptions {
  /** Where the OpenBLAS addon is; tests point it at a missing file to see the fallback. */
  nativeBlasPath?: string;
}

export class BackendUnavailableError extends Error {
  constructor(
    readonly backend: BackendName,
    readonly reason: string,
  ) {
    super(`TF.js backend '${backend}' did not load: ${reason}`);
    this.name = 'BackendUnavailableError';
  }
}

/** The name TF.js itself registers each backend under (both tfjs-node packages register 'tensorflow'). */
export const TFJS_BACKEND_NAMES: Record<BackendName, string> = {
  'tfjs-node-gpu': 'tensorflow',
  'tfjs-node': 'tensorflow',
  native: NATIVE_BACKEND_NAME,
  wasm: 'wasm',
  cpu: 'cpu',
};

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

async function importOptional(moduleName: string): Promise<void> {
  try {
    // A variable specifier so neither TypeScript nor vite tries to resolve a package we do not depend on.
    await import(/* @vite-ignore */ moduleName);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /Cannot find (package|module)/.test(firstLine(error));
    throw new Error(missing ? `${moduleName} is not installed (it needs a download of libtensorflow)` : `${moduleName} failed to import: ${firstLine(error)}`);
  }
}

async function registerWasm(): Promise<void> {
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  // In Node the .wasm binaries are read from disk; point TF.js at the package's own dist folder.
  const distDir = dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
  wasm.setWasmPaths(`${distDir}${sep}`);
}

async function register(name: BackendName, options: BackendLoadOptions): Promise<void> {
  if (name === 'tfjs-node-gpu') return importOptional('@tensorflow/tfjs-node-gpu');
  if (name === 'tfjs-node') return importOptional('@tensorflow/tfjs-node');
  if (name === 'wasm') return registerWasm();
  if (name === 'native') {
    const native = loadNativeBlas(options.nativeBlasPath);
    if (!native.loaded) throw new Error(native.reason);
    registerNativeBackend(native.blas);
  }
}

/** Makes `name` TF.js's active backend, or throws a BackendUnavailableError saying why it cannot. */
export async function loadWorldModelBackend(name: BackendName, options: BackendLoadOptions = {}): Promise<void> {
  try {
    await register(name, options);
    // setBackend answers false (after a console warning) rather than throwing when init fails.
    if (!(await tf.setBackend(TFJS_BACKEND_NAMES[name]))) throw new Error(`TF.js could not initialise the '${TFJS_BACKEND_NAMES[name]}' backend`);
    await tf.ready();
  } catch (error) {
    throw error instanceof BackendUnavailableError ? error : new BackendUnavailableError(name, firstLine(error));
  }
}

/** Loads the first backend of `preference` that works; throws only when none does. */
export async function selectWorldModelBackend(
  preference: readonly BackendName[] = BACKEND_PREFERENCE,
  options: BackendLoadOptions = {},
): Promise<BackendSelection> {
  const tried: BackendAttempt[] = [];
  for (const backend of preference) {
    try {
      await loadWorldModelBackend(backend, options);
      return { backend, tried };
    } catch (error) {
      tried.push({ backend, reason: error instanceof BackendUnavailableError ? error.reason : firstLine(error) });
    }
  }
  throw new Error(`no TF.js backend loaded: ${tried.map((t) => `${t.backend}: ${t.reason}`).join('; ')}`);
}
