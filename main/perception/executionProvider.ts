// Where an encoder runs: onnxruntime's CUDA execution provider when it is installed and loads, the
// CPU otherwise (DESIGN §7: `npm ci` runs no dependency's install script, so the CUDA files come only
// from `npx reins setup gpu`, where CUDA 12 and cuDNN 9 are present). The thread settings are chosen so that onnxruntime's pool does not fight the control loop.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { ExecutionProvider } from '../core/perception.ts';

export interface ThreadSettings {
  /** Threads one encoder run may use. 1 runs it on the calling thread, with no pool at all. */
  intraOpThreads: number;
  /** Threads for running independent graph branches at once; unused in sequential execution. */
  interOpThreads: number;
}

/**
 * Measured with `reins bench perception` and `reins bench tick`, 1 against 2 intra-op threads, on the
 * 2-core reference machine while a training run loaded it: one thread has the lower median (fused
 * step ~0.20 against ~0.25 ms; in-tick encode ~0.27 against ~0.32 ms) and uses less CPU; the tails
 * come from other processes preempting the loop and favoured neither setting. These encoders are too
 * small to gain from a pool, and a pool thread is one more thread on two cores beside the loop and the
 * learner.
 */
export const DEFAULT_THREADS: Readonly<ThreadSettings> = Object.freeze({ intraOpThreads: 1, interOpThreads: 1 });

/** auto: CUDA when it loads, else the CPU. cpu: the CPU only (benchmarks' CPU rows). */
export type ProviderPreference = 'auto' | 'cpu';

const CUDA_INSTALL_HINT = 'install it with npx reins setup gpu; npx reins setup gpu --check says what this machine lacks';

/**
 * Whether onnxruntime-node's CUDA provider library sits beside its binding (where its installer puts
 * it). Checked first so a CPU-only install does not log a failed library load for every encoder.
 */
export function cudaProviderInstalled(): boolean {
  const file = { linux: 'libonnxruntime_providers_cuda.so', win32: 'onnxruntime_providers_cuda.dll' }[process.platform as string];
  if (file === undefined) return false;
  const packageDir = dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json'));
  return existsSync(join(packageDir, 'bin', 'napi-v6', process.platform, process.arch, file));
}

function sessionOptions(provider: ExecutionProvider, threads: ThreadSettings): ort.InferenceSession.SessionOptions {
  return {
    executionProviders: [provider],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: threads.intraOpThreads,
    interOpNumThreads: threads.interOpThreads,
    // A spinning pool thread would burn a core between ticks that the loop and the learner need.
    extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
  };
}

export interface CreatedSession {
  session: ort.InferenceSession;
  provider: ExecutionProvider;
  /** Why CUDA was not used, when it was wanted. */
  providerNote?: string;
}

/** Creates a session from model bytes: CUDA first when wanted and installed, then the CPU. */
export async function createSession(modelBytes: Uint8Array, preference: ProviderPreference, threads: ThreadSettings): Promise<CreatedSession> {
  let providerNote: string | undefined;
  if (preference === 'auto') {
    if (!cudaProviderInstalled()) {
      providerNote = `the CUDA execution provider is not installed (${CUDA_INSTALL_HINT})`;
    } else {
      try {
        return { session: await ort.InferenceSession.create(modelBytes, sessionOptions('cuda', threads)), provider: 'cuda' };
      } catch (error) {
        providerNote = `the CUDA execution provider did not load (${(error as Error).message.trim()})`;
      }
    }
  }
  const session = await ort.InferenceSession.create(modelBytes, sessionOptions('cpu', threads));
  return { session, provider: 'cpu', ...(providerNote ? { providerNote } : {}) };
}
