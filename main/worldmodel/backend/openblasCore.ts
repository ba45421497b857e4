// Which kernels OpenBLAS runs. It picks them from the CPU model it recognises, and a model it does not
// know gets its most basic x86-64 kernels: OpenBLAS 0.3.21 (Debian 12's) takes this project's machines
// (Sapphire Rapids, named only "Intel(R) Xeon(R) Processor" under their hypervisor) for a Prescott and
// runs SSE3 code on a CPU with AVX-512 — the world model's products ran 4–7× slower than they can
// (matMulBench.ts: 16×512×512 at 19 GFLOP/s on Prescott's kernels, 90 on SkylakeX's, one thread).
// So before the library loads, the core is named from the CPU's own feature flags, unless the user
// named one (OPENBLAS_CORETYPE is OpenBLAS's own setting, read once as the library loads).
import { readFileSync } from 'node:fs';

/** OpenBLAS's setting; honoured by its DYNAMIC_ARCH builds (Debian's, Ubuntu's, Fedora's). */
export const OPENBLAS_CORE_VARIABLE = 'OPENBLAS_CORETYPE';

/** The AVX-512 subsets OpenBLAS's SkylakeX kernels use; AVX2 and FMA for its Haswell ones. */
const SKYLAKEX_FLAGS = ['avx512f', 'avx512cd', 'avx512bw', 'avx512dq', 'avx512vl'] as const;
const HASWELL_FLAGS = ['avx2', 'fma'] as const;

/** The best OpenBLAS core for these x86-64 feature flags (as Linux lists them), or undefined to leave the choice to OpenBLAS. */
export function openblasCoreForFlags(flags: ReadonlySet<string>): 'SkylakeX' | 'Haswell' | undefined {
  if (SKYLAKEX_FLAGS.every((flag) => flags.has(flag))) return 'SkylakeX';
  if (HASWELL_FLAGS.every((flag) => flags.has(flag))) return 'Haswell';
  return undefined;
}

/** The first processor's feature flags from /proc/cpuinfo's text (Linux lists only those the kernel enabled). */
export function cpuinfoFlags(cpuinfo: string): Set<string> {
  const line = cpuinfo.split('\n').find((entry) => /^flags\s*:/.test(entry));
  return new Set(
    line
      ? line
          .slice(line.indexOf(':') + 1)
          .trim()
          .split(/\s+/)
      : [],
  );
}

export type OpenblasCoreChoice = { core: string; source: 'user' | 'cpu-flags' } | { core: undefined; source: 'openblas'; reason: string };

export interface OpenblasCoreHost {
  platform: NodeJS.Platform;
  arch: string;
  env: NodeJS.ProcessEnv;
  readCpuinfo: () => string;
}

const THIS_HOST: OpenblasCoreHost = {
  platform: process.platform,
  arch: process.arch,
  env: process.env,
  readCpuinfo: () => readFileSync('/proc/cpuinfo', 'utf8'),
};

/**
 * Names OpenBLAS's core in `host.env` from the CPU's flags, unless the user named one. Must run in the
 * process's main thread before anything loads the addon (a worker's process.env is its own copy, and
 * OpenBLAS reads the variable once, as it loads): reins.mjs calls it first.
 */
export function chooseOpenblasCore(host: OpenblasCoreHost = THIS_HOST): OpenblasCoreChoice {
  const named = host.env[OPENBLAS_CORE_VARIABLE];
  if (named) return { core: named, source: 'user' };
  if (host.platform !== 'linux' || host.arch !== 'x64') return { core: undefined, source: 'openblas', reason: 'not x86-64 Linux' };
  let cpuinfo: string;
  try {
    cpuinfo = host.readCpuinfo();
  } catch (error) {
    return { core: undefined, source: 'openblas', reason: `/proc/cpuinfo could not be read: ${(error as Error).message}` };
  }
  const core = openblasCoreForFlags(cpuinfoFlags(cpuinfo));
  if (!core) return { core: undefined, source: 'openblas', reason: 'the CPU has neither AVX-512 nor AVX2 with FMA' };
  host.env[OPENBLAS_CORE_VARIABLE] = core;
  return { core, source: 'cpu-flags' };
}
