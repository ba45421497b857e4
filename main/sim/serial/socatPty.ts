// A pseudo-terminal pair from socat: one end appears at the path the cockpit opens (a symlink that
// socat makes), the other is where the simulated device reads and writes. Node cannot make a pty
// pair by itself without a native addon; socat (Debian package `socat`) can.
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';

export interface PtyPair {
  /** The cockpit's end: the symlink at the requested path. */
  readonly linkPath: string;
  /** The device's end, e.g. /dev/pts/7. */
  readonly devicePath: string;
  readonly process: ChildProcess;
  /** Resolves when socat exits, for whatever reason. */
  readonly exited: Promise<void>;
  close(): Promise<void>;
}

const PTY_LINE = /PTY is (\S+)/;

export async function openPtyPair(linkPath: string, timeoutMs = 5000): Promise<PtyPair> {
  // A link left behind by a socat that was killed would point at a pty that no longer exists.
  await rm(linkPath, { force: true });
  const child = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${linkPath}`, 'pty,raw,echo=0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  const ptys: string[] = [];
  const devicePath = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`socat made no pty pair within ${timeoutMs} ms: ${stderr.trim()}`)), timeoutMs);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', (error) =>
      fail(new Error((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'socat is not installed (Debian: apt install socat)' : error.message)),
    );
    const onEarlyExit = (code: number | null): void => fail(new Error(`socat exited (${code}) before the pty pair was ready: ${stderr.trim()}`));
    child.once('exit', onEarlyExit);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
      for (const line of chunk.toString().split('\n')) {
        const match = PTY_LINE.exec(line);
        if (match) ptys.push(match[1]!);
        // The transfer loop starts after both ptys exist and the link is made.
        if (line.includes('starting data transfer loop') && ptys.length === 2) {
          clearTimeout(timer);
          child.off('exit', onEarlyExit);
          resolve(ptys[1]!);
        }
      }
    });
  });
  return {
    linkPath,
    devicePath,
    process: child,
    exited,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await rm(linkPath, { force: true });
    },
  };
}
