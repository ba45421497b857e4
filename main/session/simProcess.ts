// The built-in simulated robot as a process of its own (DESIGN §6): `reins sim` on a free loopback
// port, reached over rosbridge like any robot, and confirmed by a handshake to be the sim this
// cockpit started — never a real robot that happens to listen on that port.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { newToken } from '../api/access.ts';
import { openRosbridgeLink, waitUntilPresent, type CommandStampOptions, type RosbridgeLink } from './linkParts.ts';

const REINS = fileURLToPath(new URL('../cli/reins.mjs', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const HANDSHAKE_TIMEOUT_MS = 10_000;

export interface SimProcess {
  link: RosbridgeLink;
  url: string;
  /** Where it also serves the foxglove protocol (`--foxglove-port`), if asked to. */
  foxgloveUrl?: string;
  close(): Promise<void>;
}

export async function startSimProcess(log: Logger, extraArgs: string[] = [], command?: Partial<CommandStampOptions>): Promise<SimProcess> {
  const identity = newToken();
  // `--identity=…` in one word: a token may start with "-", which parseArgs would read as an option.
  const child = spawn(process.execPath, [REINS, 'sim', '--rosbridge-port', '0', `--identity=${identity}`, ...extraArgs], {
    // stdin stays open as a lifeline: the sim exits when it reads end-of-file (this process died).
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, REINS_EXIT_WITH_STDIN: '1' },
  });
  const stop = () => stopChild(child);
  let link: RosbridgeLink | undefined;
  try {
    const { url, foxgloveUrl } = await readSimUrls(child);
    log.info({ url, pid: child.pid }, 'simulated robot started');
    link = openRosbridgeLink({ url, robotName: 'reins-sim', simulated: true, ...(command === undefined ? {} : { command }) });
    await waitUntilPresent(link, HANDSHAKE_TIMEOUT_MS);
    await confirmIdentity(link, url, identity);
    let closing = false;
    child.once('exit', (code, signal) => {
      if (!closing) log.error({ code, signal }, 'the simulated robot exited: the link will keep trying to reconnect');
    });
    const opened = link;
    return {
      link: opened,
      url,
      ...(foxgloveUrl === undefined ? {} : { foxgloveUrl }),
      async close() {
        closing = true;
        await opened.close();
        await stop();
      },
    };
  } catch (error) {
    await link?.close();
    await stop();
    throw error;
  }
}

async function confirmIdentity(link: RosbridgeLink, url: string, identity: string): Promise<void> {
  const answer = await link.callService('/sim/identify', 'reins_sim/Identify', {}, HANDSHAKE_TIMEOUT_MS);
  const given = (answer as { identity?: unknown } | undefined)?.identity;
  if (given !== identity) {
    throw new Error(`the rosbridge server at ${url} is not the simulated robot this cockpit started (handshake failed): refusing to drive it`);
  }
}

/** The rosbridge address, and the foxglove one printed before it where the sim serves one. */
function readSimUrls(child: ChildProcess): Promise<{ url: string; foxgloveUrl: string | undefined }> {
  let foxgloveUrl: string | undefined;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the simulated robot printed no address within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`the simulated robot exited with ${code} before it listened (see its log above)`));
    };
    child.once('exit', onExit);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      foxgloveUrl ??= line.match(/^Reins sim foxglove: (ws:\/\/127\.0\.0\.1:\d+)$/)?.[1];
      const match = line.match(/^Reins sim: (ws:\/\/127\.0\.0\.1:\d+)$/);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ url: match[1]!, foxgloveUrl });
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
