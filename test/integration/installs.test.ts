// Installs are decided by the project, not by npm's version or the machine: every dependency install
// script is covered by package.json's allowScripts (strict in .npmrc), and no npm command warns about
// a config key it does not know (an unknown key is ignored by the next npm).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

describe('installs', () => {
  it('print no unknown-config warning from npm or npx', async () => {
    for (const command of ['npm', 'npx']) {
      const { stderr } = await run(command, ['--version'], { cwd: ROOT });
      expect(stderr, command).not.toMatch(/Unknown (project|user|global|env) config/);
    }
  }, 30_000);

  it('leave no installed package with an install script outside allowScripts, and .npmrc makes that strict', async () => {
    const { stdout } = await run('npm', ['install-scripts', 'ls'], { cwd: ROOT });
    expect(stdout.trim()).toBe('No packages with unreviewed install scripts.');
    expect(readFileSync(`${ROOT}.npmrc`, 'utf8')).toMatch(/^strict-allow-scripts=true$/m);
    const allowScripts = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { allowScripts: Record<string, boolean> }).allowScripts;
    // Each entry has its reason in README's "Install scripts" table.
    const readme = readFileSync(`${ROOT}README.md`, 'utf8');
    expect(Object.keys(allowScripts).filter((name) => !readme.includes(`| \`${name}\``))).toEqual([]);
  }, 30_000);
});
