// The WebSocket under a rosbridge connection, reduced to what the transport needs, so tests can put a
// scripted socket in its place. `openWsSocket` is the real one (the `ws` package).
import type { Socket } from 'node:net';
import WebSocket from 'ws';

export type SocketState = 'connecting' | 'open' | 'closing' | 'closed';

export interface SocketHandlers {
  open(): void;
  /** The socket is gone; `reason` says why, for the operator. */
  close(reason: string): void;
  /** A text frame as a string, a binary frame as an ArrayBuffer. */
  frame(data: string | ArrayBuffer): void;
  pong(): void;
}

export interface SocketPort {
  state(): SocketState;
  /** Called once, before any event can fire. */
  listen(handlers: SocketHandlers): void;
  send(text: string): void;
  ping(): void;
  /** Closes with the closing handshake. */
  close(): void;
  /** Drops a connection that stopped answering, without waiting for a handshake that will not come. */
  terminate(): void;
}

export interface WsSocketOptions {
  handshakeTimeoutMs: number;
  maxPayloadBytes: number;
  /** PEM certificate authorities a wss:// server's certificate is checked against (`--ca`); default: the system's. */
  ca?: string;
}

/** rosbridge's own default maximum message is 10 MB; leave room above it. */
export const DEFAULT_WS_SOCKET_OPTIONS: Readonly<WsSocketOptions> = Object.freeze({ handshakeTimeoutMs: 5000, maxPayloadBytes: 64 * 1024 * 1024 });

const STATES: readonly SocketState[] = ['connecting', 'open', 'closing', 'closed'];

/** Throws (a SyntaxError) when `url` is not a ws:// or wss:// URL. */
export function openWsSocket(url: string, options: Readonly<WsSocketOptions> = DEFAULT_WS_SOCKET_OPTIONS): SocketPort {
  const socket = new WebSocket(url, {
    handshakeTimeout: options.handshakeTimeoutMs,
    maxPayload: options.maxPayloadBytes,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  socket.binaryType = 'arraybuffer';
  // The TCP socket under the WebSocket, once upgraded: a silent connection is reset through it.
  let tcp: Socket | undefined;
  socket.once('upgrade', (response) => (tcp = response.socket));
  return {
    state: () => STATES[socket.readyState] ?? 'closed',
    listen(handlers) {
      let lastError: string | undefined;
      socket.on('open', () => handlers.open());
      // ws follows every error with a close; the error only explains it.
      socket.on('error', (error) => (lastError = error.message));
      socket.on('close', (code, reason) => handlers.close(lastError ?? `closed with code ${code}${reason.length > 0 ? ` (${reason.toString()})` : ''}`));
      socket.on('pong', () => handlers.pong());
      socket.on('message', (data, isBinary) => {
        const bytes = Array.isArray(data) ? Buffer.concat(data) : data;
        if (!isBinary) handlers.frame(Buffer.isBuffer(bytes) ? bytes.toString('utf8') : Buffer.from(bytes).toString('utf8'));
        else handlers.frame(Buffer.isBuffer(bytes) ? exactArrayBuffer(bytes) : bytes);
      });
    },
    send: (text) => socket.send(text),
    ping: () => socket.ping(),
    close: () => socket.close(),
    terminate: () => {
      // A reset, not a FIN: commands written since the robot stopped answering, still unacknowledged
      // in the send buffer, are discarded instead of reaching the robot seconds late when the network
      // returns (test/faults/linkStall.test.ts). Bytes the robot's side already acknowledged cannot
      // be recalled; its own command timeout bounds those.
      if (tcp !== undefined && !tcp.destroyed) tcp.resetAndDestroy();
      socket.terminate();
    },
  };
}

function exactArrayBuffer(bytes: Buffer): ArrayBuffer {
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return copy;
}
