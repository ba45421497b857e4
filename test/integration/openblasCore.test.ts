// OpenBLAS reads OPENBLAS_CORETYPE once, as it loads: the choice only counts if `reins` makes it before
// anything loads the addon. A process started the way `reins` starts (reins.mjs's first step, then the
// addon) must report the core the CPU's flags name, and a user's own setting must win.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nativeBlasForTests } from '../support/nativeBlasForTests.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = `
const { chooseOpenblasCore } = await import('./main/worldmodel/backend/openblasCore.ts');
const choice = chooseOpenblasCore();
const { loadNativeBlas } = await import('./main/worldmodel/backend/nativeBlas.ts');
const loaded = loadNativeBlas();
if (!loaded.loaded) throw new Error(loaded.reason);
console.log(JSON.stringify({ choice, running: loaded.blas.openblasCore() }));`;

function startedAsReins(core: string | undefined): { choice: { core?: string; source: string }; running: string } {
  const env = { ...process.env };
  delete env.OPENBLAS_CORETYPE;
  if (core) env.OPENBLAS_CORETYPE = core;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: REPO_ROOT, env, encoding: 'utf8' });
  return JSON.parse(output.trim().split('\n').at(-1)!);
}

describe.skipIf(nativeBlasForTests() === undefined)('OpenBLAS’s core in a process started as reins starts', () => {
  it('is the one the CPU’s flags name, or OpenBLAS’s own where they name none', () => {
    const { choice, running } = startedAsReins(undefined);
    if (choice.source === 'cpu-flags') expect(running).toBe(choice.core);
    else expect(choice.source).toBe('openblas');
    expect(running).toMatch(/\w/);
  });

  it('is the user’s when they name one', () => {
    const { choice, running } = startedAsReins('Prescott');
    expect(choice).toEqual({ core: 'Prescott', source: 'user' });
    expect(running).toBe('Prescott');
  });
});
