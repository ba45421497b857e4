import { describe, expect, it } from 'vitest';
import { chooseOpenblasCore, cpuinfoFlags, openblasCoreForFlags, type OpenblasCoreHost } from './openblasCore.ts';

// The flags line of this project's machines (a Sapphire Rapids Xeon under a hypervisor), shortened.
const SAPPHIRE_RAPIDS =
  'processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu sse sse2 ssse3 fma sse4_1 avx avx2 avx512f avx512dq avx512cd avx512bw avx512vl avx512_bf16 amx_tile\n\nprocessor\t: 1\nflags\t\t: fpu\n';
const HASWELL = 'flags\t: fpu sse sse2 ssse3 fma sse4_1 avx avx2 bmi2\n';
const SANDY_BRIDGE = 'flags\t: fpu sse sse2 ssse3 sse4_1 avx\n';

function host(overrides: Partial<OpenblasCoreHost> = {}): OpenblasCoreHost {
  return { platform: 'linux', arch: 'x64', env: {}, readCpuinfo: () => SAPPHIRE_RAPIDS, ...overrides };
}

describe('the OpenBLAS core', () => {
  it('is read from the first processor’s flags', () => {
    expect(openblasCoreForFlags(cpuinfoFlags(SAPPHIRE_RAPIDS))).toBe('SkylakeX');
    expect(openblasCoreForFlags(cpuinfoFlags(HASWELL))).toBe('Haswell');
    expect(openblasCoreForFlags(cpuinfoFlags(SANDY_BRIDGE))).toBeUndefined();
    expect(openblasCoreForFlags(cpuinfoFlags('no flags here'))).toBeUndefined();
    // AVX-512 without one of the subsets the SkylakeX kernels use (Knights Landing has no BW/DQ/VL).
    expect(openblasCoreForFlags(new Set(['avx512f', 'avx512cd', 'avx2', 'fma']))).toBe('Haswell');
  });

  it('is named in the environment on x86-64 Linux, and the user’s own choice is kept', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(chooseOpenblasCore(host({ env }))).toEqual({ core: 'SkylakeX', source: 'cpu-flags' });
    expect(env.OPENBLAS_CORETYPE).toBe('SkylakeX');
    const named: NodeJS.ProcessEnv = { OPENBLAS_CORETYPE: 'Haswell' };
    expect(chooseOpenblasCore(host({ env: named }))).toEqual({ core: 'Haswell', source: 'user' });
    expect(named.OPENBLAS_CORETYPE).toBe('Haswell');
  });

  it('is left to OpenBLAS elsewhere, or when the CPU cannot be read or has no wide vectors', () => {
    for (const [overrides, reason] of [
      [{ platform: 'darwin' }, 'not x86-64 Linux'],
      [{ arch: 'arm64' }, 'not x86-64 Linux'],
      [
        {
          readCpuinfo: () => {
            throw new Error('EACCES');
          },
        },
        '/proc/cpuinfo could not be read: EACCES',
      ],
      [{ readCpuinfo: () => SANDY_BRIDGE }, 'the CPU has neither AVX-512 nor AVX2 with FMA'],
    ] as const) {
      const env: NodeJS.ProcessEnv = {};
      expect(chooseOpenblasCore(host({ ...(overrides as Partial<OpenblasCoreHost>), env }))).toEqual({ core: undefined, source: 'openblas', reason });
      expect(env.OPENBLAS_CORETYPE).toBeUndefined();
    }
  });
});
