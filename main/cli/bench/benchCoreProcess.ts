// `reins start --headless --port 0` as a child process, the way an operator runs it, for benches that
// measure the cockpit from the outside. Its log goes to this process's stderr at warn level.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { StatusResponse, type CockpitState } from '../../core/contract.ts';

const REINS = fileURLToPath(new URL('../reins.mjs', import.meta.url));
const START_TIMEOUT_MS = 60_000;

export interface BenchCore {
  uiUrl: string;
  /** GET /api/status with the bearer token. */
  state(): Promise<CockpitState>;
  stop(): Promise<number | null>;
}

export function startBenchCore(startArgs: string[]): Promise<BenchCore> {
  // Recording and memory run as for a user, into a data folder of the bench's own.
  const dataHome = mkdtempSync(join(tmpdir(), 'reins-bench-data-'));
  const child = spawn(process.execPath, [REINS, 'start', '--headless', '--port', '0', ...startArgs], {
    env: { ...process.env, REINS_LOG_LEVEL: process.env.REINS_LOG_LEVEL ?? 'warn', XDG_DATA_HOME: dataHome },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.once('exit', () => rmSync(dataHome, { recursive: true, force: true }));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`reins start printed no UI address within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`reins start exited with ${code} before serving (see its log above)`));
    };
    child.once('exit', onExit);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^Reins UI: (https?:\/\/[^/]+)\/#token=(\S+)$/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      const origin = match[1]!;
      const headers = { authorization: `Bearer ${decodeURIComponent(match[2]!)}` };
      resolve({
        uiUrl: line.slice('Reins UI: '.length),
        async state() {
          const response = await fetch(`${origin}/api/status`, { headers });
          return StatusResponse.parse(await response.json()).state;
        },
        stop: () => stopChild(child),
      });
    });
  });
}

function stopChild(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', (code) => {
      clearTimeout(force);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}
