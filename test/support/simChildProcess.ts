// Runs `reins sim` as a real child process (its own rosbridge server), so a fault test can kill it
// the way a crashing robot computer dies (SIGKILL: no close frames, the port refusing) or freeze it
// (SIGSTOP: the TCP connection stays open and nothing arrives), and start it again on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const REINS = fileURLToPath(new URL('../../main/cli/reins.mjs', import.meta.url));

export interface SimChild {
  child: ChildProcess;
  url: string;
  port: number;
  /** Its foxglove_bridge address, where it was started with --foxglove-port. */
  foxgloveUrl: string | undefined;
  /** Resolves with the exit code or signal once the process is gone. */
  exited: Promise<number | NodeJS.Signals | null>;
  stderr: () => string;
}

/** Starts `reins sim` on `port` (0: a free one) with a small camera (a `--camera` in `extraArgs` wins), resolving once it listens. */
export function startSimChild(port = 0, extraArgs: readonly string[] = [], timeoutMs = 30_000): Promise<SimChild> {
  const child = spawn(process.execPath, [REINS, 'sim', '--rosbridge-port', String(port), '--camera', '32x24@5', ...extraArgs], {
    env: { ...process.env, REINS_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-10_000)));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`reins sim did not listen within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`reins sim exited (${String(how)}) before listening; stderr:\n${stderr}`));
    });
    // The foxglove address, where there is one, is printed before the rosbridge one.
    let foxgloveUrl: string | undefined;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      foxgloveUrl ??= /^Reins sim foxglove: (ws:\/\/\S+)$/.exec(line)?.[1];
      const match = /^Reins sim: (ws:\/\/127\.0\.0\.1:(\d+))$/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve({ child, url: match[1]!, port: Number(match[2]), foxgloveUrl, exited, stderr: () => stderr });
    });
  });
}

/** Kills the sim (SIGKILL unless told) and resolves once it is gone; a stopped one is woken first so it can die. */
export async function killSimChild(sim: SimChild, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (sim.child.exitCode !== null || sim.child.signalCode !== null) return;
  sim.child.kill(signal);
  sim.child.kill('SIGCONT');
  await sim.exited;
}
