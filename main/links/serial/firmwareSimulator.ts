// The reference firmware (native/firmware) running under simavr with its UART on a pseudo-terminal,
// for tests and `reins bench`: builds firmware and harness with make (a no-op when up to date),
// starts the harness, and reads back the pty path it prints.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const NATIVE = fileURLToPath(new URL('../../../native/', import.meta.url));
export const FIRMWARE_ELF = `${NATIVE}firmware/build/reins-firmware.elf`;
export const HARNESS_BIN = `${NATIVE}simavr-harness/build/reins-simavr-harness`;
const run = promisify(execFile);

/** Debian packages the native build needs; named in the error when a tool is missing. */
export const NATIVE_DEBIAN_PACKAGES = ['gcc-avr', 'avr-libc', 'simavr', 'libsimavr-dev', 'make', 'gcc'];

let built: Promise<void> | undefined;

export function buildNative(): Promise<void> {
  built ??= (async () => {
    try {
      await run('make', ['-s', '-C', `${NATIVE}firmware`]);
      await run('make', ['-s', '-C', `${NATIVE}simavr-harness`]);
    } catch (error) {
      const output = error instanceof Error ? `${error.message}\n${(error as { stderr?: string }).stderr ?? ''}` : String(error);
      throw new Error(`Building native/ failed (needs Debian packages: ${NATIVE_DEBIAN_PACKAGES.join(' ')}):\n${output}`);
    }
  })();
  return built;
}

export interface RunningFirmware {
  ptyPath: string;
  child: ChildProcess;
  stderr: () => string;
  /** Stops the harness (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

export async function startFirmware(options: { linkPath?: string; timeoutMs?: number } = {}): Promise<RunningFirmware> {
  await buildNative();
  const args = [FIRMWARE_ELF, ...(options.linkPath ? ['--link', options.linkPath] : [])];
  const child = spawn(HARNESS_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-10_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ptyPath = await new Promise<string>((resolve, reject) => {
    // After a stall of the whole process the timer can fire before the output that arrived meanwhile
    // is read: let that I/O run once before giving up (a rejection after a resolve is ignored).
    const timer = setTimeout(
      () => setImmediate(() => reject(new Error(`the simavr harness printed no pty path; stderr:\n${stderr}`))),
      options.timeoutMs ?? 10_000,
    );
    child.once('exit', (code) => reject(new Error(`the simavr harness exited with ${code}; stderr:\n${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('/')) return;
      clearTimeout(timer);
      resolve(line.trim());
    });
  });
  return {
    ptyPath,
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
