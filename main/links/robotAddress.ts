// Where a robot is, as the operator writes it: "sim" (the built-in simulated robot), a bridge at
// ws://HOST:PORT (rosbridge or foxglove_bridge, told apart by the WebSocket handshake when the link
// connects: bridgeDetection.ts), a foxglove server named as such (foxglove://HOST:PORT) or a serial
// port (serial:/dev/PATH?baud=N). Shared by `--robot` and the cockpit's connection manager;
// the opener that turns an address into a link lives with the CLI.
import type { Link } from '../core/link.ts';
import { parseSerialUrl, SerialUrlError } from './serial/serialUrl.ts';

export type RobotSpec =
  | { kind: 'sim' }
  /** A ws:// or wss:// address: rosbridge or foxglove_bridge, whichever answers the handshake there. */
  | { kind: 'websocket'; url: string }
  /** `url` is the ws:// (or wss://, from foxglove+wss://) address the link connects to. */
  | { kind: 'foxglove'; url: string }
  | { kind: 'serial'; path: string; baud: number };

export interface OpenedRobot {
  link: Link;
  /** Closes the link (one last zero goes out if anyone was driving) and whatever it started. */
  close(): Promise<void>;
}

/** A robot address that cannot be read; the message names the problem and the expected forms. */
export class RobotAddressError extends Error {
  override readonly name = 'RobotAddressError';
}

const EXPECTED_FORMS = 'expected "sim", ws://HOST:PORT (rosbridge or foxglove_bridge), foxglove://HOST:PORT (foxglove_bridge) or serial:/dev/PATH?baud=N';

export function parseRobotAddress(text: string | undefined): RobotSpec {
  if (text === undefined || text === 'sim') return { kind: 'sim' };
  if (text.trim() === '') throw new RobotAddressError(`no robot address given: ${EXPECTED_FORMS}`);
  if (text.startsWith('ws://') || text.startsWith('wss://')) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new RobotAddressError(`${text}: not a valid WebSocket URL (expected ws://HOST:PORT)`);
    }
    if (!url.hostname) throw new RobotAddressError(`${text}: the URL needs a host (ws://HOST:PORT)`);
    return { kind: 'websocket', url: url.toString() };
  }
  if (text.startsWith('foxglove://') || text.startsWith('foxglove+wss://')) {
    const secure = text.startsWith('foxglove+wss://');
    const wsText = `${secure ? 'wss' : 'ws'}://${text.slice(secure ? 'foxglove+wss://'.length : 'foxglove://'.length)}`;
    let url: URL;
    try {
      url = new URL(wsText);
    } catch {
      throw new RobotAddressError(`${text}: not a valid foxglove address (expected foxglove://HOST:PORT)`);
    }
    if (!url.hostname) throw new RobotAddressError(`${text}: the address needs a host (foxglove://HOST:PORT)`);
    return { kind: 'foxglove', url: url.toString() };
  }
  if (text.startsWith('serial:')) {
    try {
      const { path, baud } = parseSerialUrl(text);
      return { kind: 'serial', path, baud };
    } catch (error) {
      if (error instanceof SerialUrlError) throw new RobotAddressError(error.message);
      throw error;
    }
  }
  throw new RobotAddressError(`${text}: ${EXPECTED_FORMS}`);
}
