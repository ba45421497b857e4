// The core finds its native addons by paths relative to the file that loads them, and quietly falls
// back without them (the allocator untuned, the world model on a slower backend). A file moved to
// another folder would keep its old relative path and lose its addon with no test noticing, so here
// each default path must name the file `node native/build.mjs` wrote, and the loader must load it.
// `npm run build` runs before the tests, in CI always; without its output this fails and says so.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ALLOCATOR_ADDON_PATH, tuneAllocator } from '../../main/core/runtime/allocatorTuning.ts';
import { DEFAULT_NATIVE_BLAS_PATH, loadNativeBlas } from '../../main/worldmodel/backend/nativeBlas.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface NativeAddon {
  /** The file under native/build/ that native/build.mjs writes. */
  builtFile: string;
  /** The module that loads it, for the failure message. */
  loader: string;
  defaultPath: string;
  /** Loads the addon from its default path: undefined when loaded, else the loader's reason. */
  loadFailure(): string | undefined;
}

const ADDONS: NativeAddon[] = [
  {
    builtFile: 'native/build/reins_alloc.node',
    loader: 'main/core/runtime/allocatorTuning.ts',
    defaultPath: DEFAULT_ALLOCATOR_ADDON_PATH,
    loadFailure() {
      // Off Linux the allocator is never tuned (the reason says so), whatever was built.
      if (process.platform !== 'linux') return undefined;
      const tuning = tuneAllocator();
      return tuning.tuned ? undefined : tuning.reason;
    },
  },
  {
    builtFile: 'native/build/reins_blas.node',
    loader: 'main/worldmodel/backend/nativeBlas.ts',
    defaultPath: DEFAULT_NATIVE_BLAS_PATH,
    loadFailure() {
      const load = loadNativeBlas();
      return load.loaded ? undefined : load.reason;
    },
  },
];

describe.each(ADDONS)('the native addon $builtFile', (addon) => {
  const built = resolve(REPO_ROOT, addon.builtFile);

  it('was built', () => {
    expect(
      existsSync(built),
      `${addon.builtFile} is missing: run \`npm run build\` (or \`node native/build.mjs\`; it needs gcc and libopenblas-dev) before the tests`,
    ).toBe(true);
  });

  it(`is where ${addon.loader} looks for it`, () => {
    expect(
      resolve(addon.defaultPath),
      `${addon.loader}'s default addon path no longer reaches ${addon.builtFile}: was the file moved without updating its relative path?`,
    ).toBe(built);
    expect(existsSync(addon.defaultPath), `${addon.defaultPath} does not exist: run \`npm run build\` before the tests`).toBe(true);
  });

  it('loads from its default path', () => {
    const failure = addon.loadFailure();
    expect(failure, `${addon.loader} did not load its addon: ${failure ?? ''}`).toBeUndefined();
  });
});
