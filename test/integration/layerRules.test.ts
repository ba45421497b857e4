// The layer rules are enforced, not only written down: a planted upward import and a planted cycle are
// refused by the same dependency-cruiser run `npm run lint:layers` makes.
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEPCRUISE = `${ROOT}node_modules/.bin/depcruise`;
const planted: string[] = [];

function plant(path: string, text: string): string {
  writeFileSync(`${ROOT}${path}`, text);
  planted.push(`${ROOT}${path}`);
  return path;
}

async function cruise(...paths: string[]): Promise<{ failed: boolean; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(DEPCRUISE, [...paths, '--config', '.dependency-cruiser.cjs'], { cwd: ROOT });
    return { failed: false, output: stdout };
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string };
    return { failed: true, output: `${stdout}${stderr}` };
  }
}

afterEach(() => {
  for (const path of planted.splice(0)) rmSync(path, { force: true });
});

describe('the layer rules', () => {
  it('refuse a lower layer importing a higher one (memory importing the loop)', async () => {
    const file = plant(
      'main/memory/plantedUpwardImport.ts',
      "import type { ControlLoop } from '../loop/controlLoop.ts';\nexport type Planted = ControlLoop;\n",
    );
    const result = await cruise(file);
    expect(result.failed).toBe(true);
    expect(result.output).toContain('layer-memory: main/memory/plantedUpwardImport.ts → main/loop/controlLoop.ts');
  }, 60_000);

  it('refuse the core importing anything of the cli, and any import cycle', async () => {
    const a = plant('main/core/plantedCycleA.ts', "import type { B } from './plantedCycleB.ts';\nexport type A = { b?: B };\n");
    const b = plant('main/core/plantedCycleB.ts', "import type { A } from './plantedCycleA.ts';\nexport type B = { a?: A };\n");
    const c = plant('main/core/plantedCliImport.ts', "import type { StartArgs } from '../session/startArgs.ts';\nexport type C = StartArgs;\n");
    const result = await cruise(a, b, c);
    expect(result.failed).toBe(true);
    expect(result.output).toContain('no-circular: main/core/plantedCycleA.ts');
    expect(result.output).toContain('layer-core: main/core/plantedCliImport.ts → main/session/startArgs.ts');
  }, 60_000);

  it('pass the tree as it is', async () => {
    const result = await cruise('app', 'main', 'models', 'renderer', 'test');
    expect(result.output).toContain('no dependency violations found');
    expect(result.failed).toBe(false);
  }, 120_000);
});
