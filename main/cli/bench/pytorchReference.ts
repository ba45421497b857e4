// The `wm-s-train-pytorch` row: the same world-model configuration written plainly in PyTorch
// (models/reference/rssm_wm_s.py), timed on the CPU at 1 and 2 threads; the faster counts. It needs
// Debian's python3-torch and libopenblas0-pthread, and says so instead of failing where they are missing.
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';

const run = promisify(execFile);

export const PYTHON_PATH = '/usr/bin/python3';
/** Resolved from this file, so the bench finds the script whatever the working directory. */
export const REFERENCE_SCRIPT_PATH = fileURLToPath(new URL('../../../models/reference/rssm_wm_s.py', import.meta.url));
const THREAD_SETTINGS = [1, 2] as const;
/** Past the timed seconds: importing torch and three warm-up steps take a few seconds; be generous. */
const STARTUP_ALLOWANCE_MS = 120_000;
const PROBE_TIMEOUT_MS = 60_000;
const MULTIARCH: Partial<Record<NodeJS.Architecture, string>> = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };

export interface PytorchReferenceOptions {
  /** Timed seconds per thread setting. */
  seconds: number;
}

export interface PytorchRun {
  threads: number;
  /** Training steps per second (batch 16 × 64 ticks each). */
  stepsPerSec: number;
  steps: number;
  params: number;
}

export type PytorchReferenceResult = { stepsPerSec: number; threads: number; params: number; perThreads: PytorchRun[] } | { skipped: string };

const runLine = z.object({
  stepsPerSec: z.number().positive(),
  threads: z.number().int().positive(),
  steps: z.number().int().nonnegative(),
  params: z.number().int().positive(),
});

/** Runs the reference at each thread setting in turn (never together: they would share the cores). */
export async function runPytorchReference(options: PytorchReferenceOptions): Promise<PytorchReferenceResult> {
  if (!(options.seconds > 0)) throw new RangeError(`seconds must be > 0, got ${options.seconds}`);
  const missing = await missingPrerequisite();
  if (missing !== undefined) return { skipped: missing };
  const perThreads: PytorchRun[] = [];
  for (const threads of THREAD_SETTINGS) perThreads.push(await runAtThreads(threads, options.seconds));
  const best = perThreads.reduce((a, b) => (b.stepsPerSec > a.stepsPerSec ? b : a));
  return { stepsPerSec: best.stepsPerSec, threads: best.threads, params: best.params, perThreads };
}

async function runAtThreads(threads: number, seconds: number): Promise<PytorchRun> {
  // As the script's docstring asks: one BLAS thread under two torch threads, one OpenMP thread alone.
  const env = { ...process.env, ...(threads === 1 ? { OMP_NUM_THREADS: '1' } : { OPENBLAS_NUM_THREADS: '1' }) };
  let stdout: string;
  try {
    ({ stdout } = await run(PYTHON_PATH, [REFERENCE_SCRIPT_PATH, String(threads), String(seconds)], {
      env,
      timeout: seconds * 1000 + STARTUP_ALLOWANCE_MS,
      maxBuffer: 1 << 20,
    }));
  } catch (error) {
    const { killed, stderr } = error as { killed?: boolean; stderr?: string };
    const why = killed ? `was stopped after ${seconds + STARTUP_ALLOWANCE_MS / 1000} s` : `failed: ${lastLines(stderr) || (error as Error).message}`;
    throw new Error(`PyTorch reference at ${threads} thread(s) ${why}`);
  }
  const line = stdout.trim().split('\n').at(-1) ?? '';
  let parsed: z.infer<typeof runLine>;
  try {
    parsed = runLine.parse(JSON.parse(line));
  } catch (error) {
    throw new Error(`PyTorch reference at ${threads} thread(s) printed "${line.slice(0, 200)}", not its JSON result line: ${(error as Error).message}`);
  }
  return { threads: parsed.threads, stepsPerSec: parsed.stepsPerSec, steps: parsed.steps, params: parsed.params };
}

/** Why the reference cannot run here, or undefined when it can. */
async function missingPrerequisite(): Promise<string | undefined> {
  try {
    await access(PYTHON_PATH, constants.X_OK);
  } catch {
    return `${PYTHON_PATH} is missing (apt-get install python3 python3-torch libopenblas0-pthread)`;
  }
  try {
    await run(PYTHON_PATH, ['-c', 'import torch'], { timeout: PROBE_TIMEOUT_MS });
  } catch (error) {
    return `${PYTHON_PATH} cannot import torch (apt-get install python3-torch): ${lastLines((error as { stderr?: string }).stderr) || (error as Error).message}`;
  }
  if (!(await openblasPthreadInstalled()))
    return 'libopenblas0-pthread is not installed (apt-get install libopenblas0-pthread): the reference would time another BLAS';
  return undefined;
}

async function openblasPthreadInstalled(): Promise<boolean> {
  try {
    const { stdout } = await run('dpkg-query', ['-W', '-f=${Status}', 'libopenblas0-pthread'], { timeout: PROBE_TIMEOUT_MS });
    if (stdout.includes('install ok installed')) return true;
  } catch {
    // No dpkg, or no such package known to it: the library itself may still be there.
  }
  const multiarch = MULTIARCH[process.arch];
  if (multiarch === undefined) return false;
  try {
    await access(`/usr/lib/${multiarch}/openblas-pthread/libopenblas.so.0`, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

function lastLines(text: string | undefined, count = 3): string {
  return (text ?? '').trim().split('\n').slice(-count).join(' | ');
}
