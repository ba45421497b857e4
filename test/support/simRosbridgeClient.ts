// A bare rosbridge client for tests of the simulated robot's server: sends ops exactly as given
// (malformed ones included), keeps every frame it receives, and waits for the one wanted.
import { decode as decodeCbor } from 'cbor-x';
import WebSocket from 'ws';

export interface ReceivedFrame {
  /** The frame decoded: JSON for text frames, CBOR for binary ones. */
  op: { op?: unknown; [field: string]: unknown };
  binary: boolean;
  /** The raw frame (text, or bytes). */
  raw: string | Uint8Array;
  atMs: number;
}

export class SimRosbridgeClient {
  readonly frames: ReceivedFrame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      const raw = isBinary ? new Uint8Array(bytes) : bytes.toString('utf8');
      const op = isBinary ? decodeCbor(bytes) : JSON.parse(raw as string);
      this.frames.push({ op, binary: isBinary, raw, atMs: performance.now() });
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.wake();
      });
    });
  }

  static open(url: string): Promise<SimRosbridgeClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      const client = new SimRosbridgeClient(socket);
      socket.once('open', () => resolve(client));
      socket.once('error', reject);
    });
  }

  send(op: object | string): void {
    this.socket.send(typeof op === 'string' ? op : JSON.stringify(op));
  }

  /** Resolves with the first frame (already received, or from now on) that matches. */
  waitFor(matches: (frame: ReceivedFrame) => boolean, timeoutMs = 5000, what = 'a matching frame'): Promise<ReceivedFrame> {
    return this.waitUntil(() => this.frames.find(matches), timeoutMs, what);
  }

  /** The status reply to the op with this id. */
  statusFor(id: string, timeoutMs = 5000): Promise<ReceivedFrame['op']> {
    return this.waitFor((frame) => frame.op.op === 'status' && frame.op.id === id, timeoutMs, `a status for ${id}`).then((frame) => frame.op);
  }

  /** Calls a service and resolves with its service_response. */
  async call(service: string, args: unknown, id = `call:${service}:${Math.random()}`): Promise<ReceivedFrame['op']> {
    this.send({ op: 'call_service', id, service, args });
    const frame = await this.waitFor((each) => each.op.op === 'service_response' && each.op.id === id, 5000, `the response of ${service}`);
    return frame.op;
  }

  /** Frames that published to a topic, in arrival order. */
  published(topic: string): ReceivedFrame[] {
    return this.frames.filter((frame) => frame.op.op === 'publish' && frame.op.topic === topic);
  }

  /** Resolves once `count` messages have been published to the topic. */
  waitForPublished(topic: string, count: number, timeoutMs = 5000): Promise<ReceivedFrame[]> {
    return this.waitUntil(() => (this.published(topic).length >= count ? this.published(topic) : undefined), timeoutMs, `${count} messages on ${topic}`);
  }

  close(): void {
    this.socket.close();
  }

  private waitUntil<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = (): boolean => {
        const found = check();
        if (found === undefined) return false;
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== listener);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; got ${this.frames.length} frames`));
      }, timeoutMs);
      const listener = (): void => {
        if (attempt()) this.waiters = this.waiters.filter((waiter) => waiter !== listener);
      };
      if (!attempt()) this.waiters.push(listener);
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
