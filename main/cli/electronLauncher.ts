// Finds a usable Electron for `reins start`. Electron's binary is not downloaded at install (offline
// installs and servers must still work); on the first desktop start we run Electron's own installer,
// and if that fails the caller falls back to headless.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';

export type ElectronLookup = { ok: true; binaryPath: string; appDir: string } | { ok: false; reason: string };

const INSTALL_TIMEOUT_MS = 5 * 60_000;

export function displayAvailable(env: NodeJS.ProcessEnv = process.env, platform = process.platform): boolean {
  if (platform !== 'linux' && platform !== 'freebsd' && platform !== 'openbsd') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

export function findElectron(repoRoot: string, log: Logger): ElectronLookup {
  if (!displayAvailable()) return { ok: false, reason: 'no display (DISPLAY/WAYLAND_DISPLAY unset)' };
  const appMainPath = join(repoRoot, 'app', 'dist', 'main.js');
  if (!existsSync(appMainPath)) return { ok: false, reason: `the desktop shell is not built (${appMainPath} missing): run "npm run build"` };
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(join(repoRoot, 'package.json')).resolve('electron/package.json'));
  } catch {
    return { ok: false, reason: 'the electron package is not installed' };
  }
  const existing = electronBinary(packageDir);
  if (existing) return { ok: true, binaryPath: existing, appDir: repoRoot };
  if (process.env.CI) return { ok: false, reason: "Electron's binary is not installed (not downloading it under CI)" };
  log.info("Electron's binary is not installed yet: running Electron's installer (first desktop start)");
  const result = spawnSync(process.execPath, [join(packageDir, 'install.js')], { stdio: ['ignore', 2, 2], timeout: INSTALL_TIMEOUT_MS });
  const installed = electronBinary(packageDir);
  if (installed) return { ok: true, binaryPath: installed, appDir: repoRoot };
  const why = result.error ? result.error.message : `installer exited with ${result.status ?? result.signal}`;
  return { ok: false, reason: `Electron's binary could not be installed (${why})` };
}

function electronBinary(packageDir: string): string | undefined {
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

/**
 * Runs the desktop app (which spawns the core itself) and resolves with its exit code. Electron is
 * given the repository folder, so it reads package.json ("main": app/dist/main.js) and names the app
 * and its data folder "reins".
 */
export function runElectron(lookup: { binaryPath: string; appDir: string }, passthrough: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(lookup.binaryPath, [lookup.appDir, '--', ...passthrough], { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => child.kill(signal));
  });
}
