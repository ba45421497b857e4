// A foxglove server built by hand on a plain `ws` server, for the foxglove link's bad-input tests:
// the test writes each control message and binary frame itself (serverInfo, advertise, unadvertise,
// and `0x01 | u32 subscription id | u64 log time ns | payload`), so it can send what no well-behaved
// server would. It selects foxglove.sdk.v1 and records what the client sends.
// Lives in test/fakes: only tests import it.
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { WaitableLog } from '../support/waitableLog.ts';

export interface ClientOp {
  op: string;
  [field: string]: unknown;
}

export class HandBuiltFoxgloveServer {
  /** JSON ops from the client, in order. */
  readonly ops = new WaitableLog<ClientOp>('client ops');
  /** Binary frames from the client (client publishing). */
  readonly binary = new WaitableLog<Uint8Array>('client binary frames');
  private socket: WebSocket | undefined;
  /** channel id → subscription id, as the client asked. */
  private readonly subscriptions = new Map<number, number>();

  private constructor(private readonly wss: WebSocketServer) {
    wss.on('connection', (socket) => {
      this.socket = socket;
      this.subscriptions.clear();
      socket.on('message', (data, isBinary) => {
        if (isBinary) return this.binary.push(new Uint8Array(data as Buffer));
        const op = JSON.parse(String(data)) as ClientOp;
        if (op.op === 'subscribe')
          for (const { id, channelId } of op['subscriptions'] as { id: number; channelId: number }[]) this.subscriptions.set(channelId, id);
        if (op.op === 'unsubscribe') {
          for (const id of op['subscriptionIds'] as number[])
            for (const [channel, sub] of this.subscriptions) if (sub === id) this.subscriptions.delete(channel);
        }
        this.ops.push(op);
      });
      this.sendJson({ op: 'serverInfo', name: 'hand-built', capabilities: ['clientPublish'], supportedEncodings: ['cdr'] });
    });
  }

  static async start(): Promise<HandBuiltFoxgloveServer> {
    const wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      maxPayload: 512 * 1024 * 1024,
      handleProtocols: (offered) => (offered.has('foxglove.sdk.v1') ? 'foxglove.sdk.v1' : false),
    });
    await new Promise((resolve) => wss.once('listening', resolve));
    return new HandBuiltFoxgloveServer(wss);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}`;
  }

  sendJson(message: object): void {
    this.socket?.send(JSON.stringify(message));
  }

  /** Sends raw text, which need not be JSON. */
  sendText(text: string): void {
    this.socket?.send(text);
  }

  /** Whether the client has subscribed to this channel. */
  subscribed(channelId: number): boolean {
    return this.subscriptions.has(channelId);
  }

  /** A messageData frame on a channel the client subscribed to; false if it has not. */
  sendMessage(channelId: number, payload: Uint8Array, logTimeNanos = BigInt(Date.now()) * 1_000_000n): boolean {
    const subscriptionId = this.subscriptions.get(channelId);
    if (subscriptionId === undefined || this.socket === undefined) return false;
    const frame = new Uint8Array(13 + payload.byteLength);
    const view = new DataView(frame.buffer);
    view.setUint8(0, 0x01);
    view.setUint32(1, subscriptionId, true);
    view.setBigUint64(5, logTimeNanos, true);
    frame.set(payload, 13);
    this.socket.send(frame);
    return true;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
