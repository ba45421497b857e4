// Parses `--robot`: the built-in simulated robot, a rosbridge server, or a serial port.

export type RobotSpec =
  | { kind: 'sim' }
  | { kind: 'rosbridge'; url: string }
  | { kind: 'serial'; path: string; baud: number };

export const DEFAULT_SERIAL_BAUD = 115200;

export function parseRobotSpec(text: string | undefined): RobotSpec {
  if (text === undefined || text === 'sim') return { kind: 'sim' };
  if (text.startsWith('ws://') || text.startsWith('wss://')) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new UsageError(`--robot ${text}: not a valid WebSocket URL (expected ws://HOST:PORT)`);
    }
    if (!url.hostname) throw new UsageError(`--robot ${text}: the URL needs a host (ws://HOST:PORT)`);
    return { kind: 'rosbridge', url: url.toString() };
  }
  if (text.startsWith('serial:')) {
    const [path, query = ''] = text.slice('serial:'.length).split('?', 2) as [string, string?];
    if (!path.startsWith('/') && !/^COM\d+$/i.test(path)) {
      throw new UsageError(`--robot ${text}: expected serial:/dev/PATH?baud=N (or serial:COM3 on Windows)`);
    }
    const params = new URLSearchParams(query);
    for (const key of params.keys()) if (key !== 'baud') throw new UsageError(`--robot ${text}: unknown serial option "${key}" (only baud)`);
    const baudText = params.get('baud');
    const baud = baudText === null ? DEFAULT_SERIAL_BAUD : Number(baudText);
    if (!Number.isInteger(baud) || baud < 300 || baud > 4_000_000) {
      throw new UsageError(`--robot ${text}: baud must be a whole number between 300 and 4000000, got "${baudText}"`);
    }
    return { kind: 'serial', path, baud };
  }
  throw new UsageError(`--robot ${text}: expected "sim", ws://HOST:PORT (rosbridge) or serial:/dev/PATH?baud=N`);
}

/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
