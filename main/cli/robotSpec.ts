// Parses `--robot`: the built-in simulated robot, a rosbridge server, or a serial port.
import { parseSerialUrl, SerialUrlError } from '../links/serial/serialUrl.ts';

export type RobotSpec =
  | { kind: 'sim' }
  | { kind: 'rosbridge'; url: string }
  | { kind: 'serial'; path: string; baud: number };

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
    try {
      const { path, baud } = parseSerialUrl(text);
      return { kind: 'serial', path, baud };
    } catch (error) {
      if (error instanceof SerialUrlError) throw new UsageError(`--robot ${error.message}`);
      throw error;
    }
  }
  throw new UsageError(`--robot ${text}: expected "sim", ws://HOST:PORT (rosbridge) or serial:/dev/PATH?baud=N`);
}

/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
