// The desktop shell's launch code starts a real core: its arguments must reach the core's parser
// whatever the generated token looks like. A base64url token starts with "-" one time in 64; passed
// as a separate argument it was read as an option and the core refused to start.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CoreProcess, type CoreChild } from '../../app/core.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

const CLI_PATH = fileURLToPath(new URL('../../main/cli/reins.mjs', import.meta.url));
const cores: CoreProcess[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const core of cores.splice(0)) await core.stop();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('the desktop shell launching the core', () => {
  it('starts it with a token that begins with "-" and the UI address carries that token', async () => {
    const dataHome = mkdtempSync(join(tmpdir(), 'reins-launch-'));
    folders.push(dataHome);
    const token = '-Ab3_x9Qk-lW2pZr7TtYv0c1d2e3f4g5h6i7j8k9l0m';
    // What utilityProcess.fork does in Electron, with Node's own fork: the CLI module, its arguments, piped output.
    const forkCore = (modulePath: string, args: string[]): CoreChild => {
      const child = fork(modulePath, args, {
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        env: { ...process.env, REINS_LOG_LEVEL: 'warn', XDG_DATA_HOME: dataHome },
      });
      return {
        get pid() {
          return child.pid;
        },
        stdout: child.stdout,
        stderr: child.stderr,
        once: (_event, listener) => child.once('exit', (code) => listener(code ?? 1)),
        kill: () => child.kill(),
      };
    };
    const core = CoreProcess.spawn(forkCore, { cliPath: CLI_PATH, launch: { token, encoders: testEncoderManifest() }, startTimeoutMs: 60_000 });
    cores.push(core);
    const address = await core.ready;
    expect(address.hostname).toBe('127.0.0.1');
    expect(new URLSearchParams(address.hash.slice(1)).get('token')).toBe(token);
    const health = await fetch(new URL('/api/status', address), { headers: { authorization: `Bearer ${token}` } });
    expect(health.status).toBe(200);
  }, 90_000);
});
