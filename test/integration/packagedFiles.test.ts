// The packaged desktop app ships only what electron-builder.yml's `files:` lists (asar off: plain files
// under resources/app). Every file the core loads at run time by a path of its own — native addons,
// worker bootstraps, the encoder manifest and models, the built UI, the CLI it spawns — must be among
// them, or the packaged app falls back silently (the addons) or fails at start (the rest).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** References to files the packaged app does not need: developer tools that also need a toolchain. */
const DEVELOPER_ONLY: Readonly<Record<string, string>> = {
  'main/links/serial/firmwareSimulator.ts -> native/': 'builds the reference firmware with avr-gcc and runs it under simavr: a test and bench tool',
  'main/cli/bench/pytorchReference.ts -> models/reference/rssm_wm_s.py':
    'the PyTorch reference of `reins bench worldmodel` (needs Debian python3-torch): a developer bench',
};

function builderFiles(): { include: string[]; exclude: string[] } {
  const config = parse(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as { files: string[] };
  return {
    include: config.files.filter((pattern) => !pattern.startsWith('!')),
    exclude: config.files.filter((pattern) => pattern.startsWith('!')).map((pattern) => pattern.slice(1)),
  };
}

function shipped(path: string, files = builderFiles()): boolean {
  const matches = (pattern: string) => minimatch(path, pattern, { dot: true }) || minimatch(`${path}/x`, pattern, { dot: true });
  return files.include.some(matches) && !files.exclude.some((pattern) => minimatch(path, pattern, { dot: true }));
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .map((name) => `${folder}/${name}`)
    .filter((path) => /\.(ts|mts|cts|mjs)$/.test(path) && !/\.test\.ts$/.test(path) && statSync(join(ROOT, path)).isFile());
}

/** `new URL('relative', import.meta.url)` in the core's and the shell's own code: the files they load by path. */
function runTimeReferences(): { from: string; to: string }[] {
  const references: { from: string; to: string }[] = [];
  for (const file of [...sourceFiles('main'), ...sourceFiles('app').filter((path) => !path.startsWith('app/dist/'))]) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(/new URL\('(\.{1,2}\/[^']*)', import\.meta\.url\)/g)) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), match[1]!));
      references.push({ from: file, to: match[1]!.endsWith('/') ? `${target}/` : target });
    }
  }
  return references;
}

describe("the packaged app's files", () => {
  it('include every file the core and the shell load at run time by a path of their own', () => {
    const references = runTimeReferences();
    expect(references.length).toBeGreaterThanOrEqual(8);
    const missing = references
      .filter(({ from, to }) => DEVELOPER_ONLY[`${from} -> ${to}`] === undefined)
      .filter(({ to }) => to !== '' && to !== '/' && !shipped(to.replace(/\/$/, '')))
      .map(({ from, to }) => `${from} loads ${to}`);
    expect(missing).toEqual([]);
  });

  it('include the native addons, the encoder manifest and every model it names, the built UI and the shell', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'models/manifest.json'), 'utf8')) as { encoders: Record<string, { file: string }> };
    const needed = [
      'native/build/reins_blas.node',
      'native/build/reins_alloc.node',
      'models/manifest.json',
      ...Object.values(manifest.encoders).map((encoder) => `models/${encoder.file}`),
      'renderer/dist/index.html',
      'app/dist/main.js',
      'main/cli/reins.mjs',
    ];
    expect(needed.filter((path) => !shipped(path))).toEqual([]);
    // The addons are built by `npm run build`; the check above is about the configuration, this one that the names are real.
    expect(needed.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('would catch a file left out (the check has teeth)', () => {
    const files = builderFiles();
    const withoutNative = { include: files.include.filter((pattern) => !pattern.startsWith('native/')), exclude: files.exclude };
    expect(shipped('native/build/reins_alloc.node', withoutNative)).toBe(false);
    expect(shipped('main/cli/reins.mjs', { include: files.include, exclude: [...files.exclude, 'main/cli/**'] })).toBe(false);
  });
});

describe('the Linux packages', () => {
  it("keep electron-builder's default deb scripts, which install the AppArmor profile Ubuntu 24.04 needs for Electron's sandbox", () => {
    const config = parse(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as { deb?: Record<string, unknown>; linux?: Record<string, unknown> };
    expect(config.deb?.afterInstall).toBeUndefined();
    expect(config.deb?.afterRemove).toBeUndefined();
    expect(config.linux?.appArmorProfile).toBeUndefined();
    const template = readFileSync(join(ROOT, 'node_modules/app-builder-lib/templates/linux/after-install.tpl'), 'utf8');
    expect(template).toContain('apparmor_parser --replace');
    expect(readFileSync(join(ROOT, 'node_modules/app-builder-lib/templates/linux/apparmor-profile.tpl'), 'utf8')).toContain('userns');
  });
});
