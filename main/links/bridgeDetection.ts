// Which bridge answers at a plain ws:// (or wss://) address: foxglove_bridge or rosbridge. One
// WebSocket handshake offering the foxglove subprotocols tells them apart: a foxglove server selects
// one (`foxglove.sdk.v1` from 3.x, `foxglove.websocket.v1` before), while rosbridge_server (tornado)
// selects none, which `ws` reports as "Server sent no subprotocol". The socket is dropped at once.
import WebSocket from 'ws';
import { FOXGLOVE_SUBPROTOCOLS } from './foxglove/foxgloveOptions.ts';

export type BridgeProtocol = 'rosbridge' | 'foxglove';

/** What answered, or why nothing could be told (nothing listening, a TLS failure, a timeout). */
export type BridgeDetection = { ok: true; protocol: BridgeProtocol; subprotocol?: string } | { ok: false; reason: string };

export interface BridgeDetectionOptions {
  /** The handshake must complete within this long. */
  timeoutMs: number;
  /** PEM certificate authorities a wss:// server's certificate is checked against (`--ca`); default: the system's. */
  ca?: string;
}

/** Never rejects: the outcome says what answered, or why the question could not be asked. */
export function detectBridge(url: string, options: Readonly<BridgeDetectionOptions>): Promise<BridgeDetection> {
  return new Promise((resolve) => {
    let socket: WebSocket;
    try {
      socket = new WebSocket(url, [...FOXGLOVE_SUBPROTOCOLS], {
        handshakeTimeout: options.timeoutMs,
        perMessageDeflate: false,
        maxPayload: 64 * 1024,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      });
    } catch (error) {
      resolve({ ok: false, reason: error instanceof Error ? error.message : String(error) });
      return;
    }
    let settled = false;
    const settle = (detection: BridgeDetection): void => {
      if (settled) return;
      settled = true;
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      resolve(detection);
    };
    socket.on('open', () => {
      const subprotocol = socket.protocol;
      settle(FOXGLOVE_SUBPROTOCOLS.includes(subprotocol) ? { ok: true, protocol: 'foxglove', subprotocol } : { ok: true, protocol: 'rosbridge' });
    });
    // A WebSocket server that took the connection without a subprotocol: rosbridge, the ws:// default.
    socket.on('error', (error) => settle(/no subprotocol/i.test(error.message) ? { ok: true, protocol: 'rosbridge' } : { ok: false, reason: error.message }));
    // An HTTP answer instead of an upgrade: not a foxglove server (it would have taken one of the two
    // names); left to the rosbridge link, which says what it finds there.
    socket.on('unexpected-response', (_request, response) => {
      response.resume();
      settle({ ok: true, protocol: 'rosbridge' });
    });
  });
}
