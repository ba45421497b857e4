// `reins sim` as a child process for benches that measure the link, not the robot: the sim's CPU is
// then apart from the client's, as a real robot's would be. Resolves with the rosbridge URL it
// prints; stop() ends it, and it is also killed if this process exits first.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const REINS = fileURLToPath(new URL('../reins.mjs', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5000;
const URL_LINE = /^Reins sim: (ws:\/\/[^\s]+)$/;

export interface SimChild {
  url: string;
  /** Ends the sim (SIGTERM, then SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts `reins sim --rosbridge-port 0 ...simArgs`; the sim's log goes to this process's stderr. */
export async function startSimChild(simArgs: readonly string[]): Promise<SimChild> {
  const child = spawn(process.execPath, [REINS, 'sim', '--rosbridge-port', '0', ...simArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    await stopChild(child);
  };
  try {
    return { url: await readUrl(child), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function readUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const finish = (outcome: () => void): void => {
      clearTimeout(timer);
      child.off('exit', onExit);
      lines.off('line', onLine);
      outcome();
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`reins sim printed no address within ${START_TIMEOUT_MS} ms`))), START_TIMEOUT_MS);
    const onExit = (code: number | null): void => finish(() => reject(new Error(`reins sim exited with ${code} before it listened (its log is above)`)));
    const onLine = (line: string): void => {
      const match = URL_LINE.exec(line.trim());
      if (match) finish(() => resolve(match[1]!));
    };
    child.once('exit', onExit);
    lines.on('line', onLine);
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
