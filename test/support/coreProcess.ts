// Runs `reins start --headless --port 0` as a real child process, the way a user would, and reads
// back the UI address it prints.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { testEncoderManifest } from './testEncoders.ts';

const REINS = fileURLToPath(new URL('../../main/cli/reins.mjs', import.meta.url));

export interface CoreProcess {
  child: ChildProcess;
  uiUrl: string;
  origin: string;
  token: string;
  stderr: () => string;
  stop(): Promise<number | null>;
}

export interface CoreProcessOptions {
  /** The command and its operands; `['start']` unless told (`['review', FILE]` for review mode). */
  command?: string[];
  /** The data folder (XDG_DATA_HOME) to use and keep; without it, one of the test's own, removed at exit. */
  dataHome?: string;
}

export function startCoreProcess(args: string[] = [], timeoutMs = 30_000, options: CoreProcessOptions = {}): Promise<CoreProcess> {
  const command = options.command ?? ['start'];
  // Real encoders, independent of the trained default models (one test covers those).
  const encoders = args.includes('--encoders') ? [] : ['--encoders', testEncoderManifest()];
  // Recordings and memory go where they would for a user, under a data folder of the test's own.
  const dataHome = options.dataHome ?? mkdtempSync(join(tmpdir(), 'reins-core-data-'));
  const child = spawn(process.execPath, [REINS, ...command, '--headless', '--port', '0', ...encoders, ...args], {
    env: { ...process.env, REINS_LOG_LEVEL: 'warn', XDG_DATA_HOME: dataHome },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (options.dataHome === undefined) child.once('exit', () => rmSync(dataHome, { recursive: true, force: true }));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  const stop = () =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`reins ${command[0]} printed no UI line within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    const exitedBeforeServing = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`reins ${command[0]} exited with ${code} before serving; stderr:\n${stderr}`));
    };
    child.once('exit', exitedBeforeServing);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = line.match(/^Reins UI: (http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)$/);
      if (!match) return;
      clearTimeout(timer);
      // Only this listener: the one that removes the test's data folder at exit stays.
      child.off('exit', exitedBeforeServing);
      resolve({ child, uiUrl: line.slice('Reins UI: '.length), origin: match[1]!, token: decodeURIComponent(match[2]!), stderr: () => stderr, stop });
    });
  });
}
