// A UI-like WebSocket client for integration tests: collects events and waits for the one wanted.
import WebSocket from 'ws';
import { Event, decodeBinaryFrame, type BinaryFrame } from '../../main/core/contract.ts';

export class SocketClient {
  readonly events: Event[] = [];
  readonly frames: BinaryFrame[] = [];
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (isBinary) this.frames.push(decodeBinaryFrame(new Uint8Array(bytes)));
      else this.events.push(Event.parse(JSON.parse(bytes.toString('utf8'))));
      for (const wake of this.waiters.splice(0)) wake();
    });
    socket.on('close', () => {
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static open(url: string, origin: string | undefined): Promise<SocketClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, origin === undefined ? {} : { origin });
      const client = new SocketClient(socket);
      socket.once('open', () => resolve(client));
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => reject(new RefusedUpgrade(response.statusCode ?? 0, body)));
      });
    });
  }

  send(request: unknown): void {
    this.socket.send(typeof request === 'string' ? request : JSON.stringify(request));
  }

  /** Resolves with the first event (from now on, or already received) that matches. */
  next<T extends Event>(match: (event: Event) => event is T, timeoutMs?: number): Promise<T>;
  next(match: (event: Event) => boolean, timeoutMs?: number): Promise<Event>;
  async next(match: (event: Event) => boolean, timeoutMs = 5000): Promise<Event> {
    const deadline = Date.now() + timeoutMs;
    let seen = 0;
    for (;;) {
      for (; seen < this.events.length; seen++) if (match(this.events[seen]!)) return this.events.splice(seen, 1)[0]!;
      if (this.socket.readyState === WebSocket.CLOSED) throw new Error('socket closed while waiting for an event');
      const remainingMs = deadline - Date.now();
      if (remainingMs <= 0) throw new Error('timed out waiting for an event');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remainingMs);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  closed(): Promise<{ code: number; reason: string }> {
    return new Promise((resolve) => this.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  close(): void {
    this.socket.close();
  }
}

export class RefusedUpgrade extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: string,
  ) {
    super(`upgrade refused with ${statusCode}: ${body}`);
  }
}
