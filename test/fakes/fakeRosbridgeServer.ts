// A small rosbridge v2 server for the rosbridge link's live tests: it publishes scripted topics over
// JSON or CBOR the way rosbridge_suite does (base64 bytes and null for inf/nan in JSON; byte strings
// and tagged float arrays in CBOR), merges one client's subscriptions to a topic like
// rosbridge_library does, answers rosapi and scripted services, records every frame clients send,
// and can drop out and come back on the same port. It mimics the real server's quirks the link must
// survive: types it "cannot" CBOR-encode stay silent, and bad requests get no reply.
// Lives in test/fakes: only tests import it.
import { Encoder } from 'cbor-x';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface FakeTopic {
  type: string;
  rateHz: number;
  /** The message (without header) for publish number `seq`; a header is added unless `headerless`. */
  message: (seq: number) => Record<string, unknown>;
  headerless?: boolean;
}

/** A service handler's answer: values to send, or NEVER to stay silent like a real server. */
export const NEVER = Symbol('never answer');
export type FakeService = (args: unknown) => unknown;

export interface FakeRosbridgeOptions {
  topics: Record<string, FakeTopic>;
  /** Types this server silently fails to CBOR-encode, like rosbridge_suite 0.11 with JointState. */
  cborSilentTypes: string[];
  services: Record<string, FakeService>;
  /** The robot's clock minus the test's clock (stamps and /rosapi/get_time). */
  clockOffsetMs: number;
  /** ROS 2 style stamps ({sec, nanosec}) instead of ROS 1's ({secs, nsecs}). */
  ros2Stamps: boolean;
  rosapi: boolean;
}

export interface ClientFrame {
  client: number;
  message: Record<string, unknown>;
}

interface ClientSubscription {
  compression: string;
  throttleMs: number;
  lastSentMs: number;
}

interface Client {
  id: number;
  socket: WebSocket;
  /** topic → subscription id → settings, merged per topic when sending (as rosbridge_library does). */
  subscriptions: Map<string, Map<string, ClientSubscription>>;
}

const cbor = new Encoder({ tagUint8Array: false, useRecords: false, variableMapSize: true });

export class FakeRosbridgeServer {
  readonly received: ClientFrame[] = [];
  private readonly clients = new Set<Client>();
  private readonly timers: Array<ReturnType<typeof setInterval>> = [];
  private readonly waiters = new Set<() => void>();
  private server: WebSocketServer | undefined;
  private nextClient = 1;
  private port = 0;

  private constructor(private readonly options: FakeRosbridgeOptions) {}

  static async start(options: Partial<FakeRosbridgeOptions> = {}): Promise<FakeRosbridgeServer> {
    const server = new FakeRosbridgeServer({ topics: {}, cborSilentTypes: [], services: {}, clockOffsetMs: 0, ros2Stamps: false, rosapi: true, ...options });
    await server.listen();
    for (const [topic, spec] of Object.entries(server.options.topics)) {
      let seq = 0;
      server.timers.push(setInterval(() => server.publish(topic, spec, ++seq), 1000 / spec.rateHz));
    }
    return server;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  clientCount(): number {
    return this.clients.size;
  }

  /** Frames of one op (optionally on one topic) that clients sent. */
  framesOf(op: string, topic?: string): ClientFrame[] {
    return this.received.filter((frame) => frame.message['op'] === op && (topic === undefined || frame.message['topic'] === topic));
  }

  /** Resolves with the first truthy value of `check`, re-checked whenever anything happens. */
  async waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = (): void => {
        const value = check();
        if (value === undefined || value === false) return;
        this.waiters.delete(attempt);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(attempt);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(attempt);
      attempt();
    });
  }

  /** Sends a raw frame to every client (for malformed-input tests). */
  sendToAll(frame: string | Uint8Array): void {
    for (const client of this.clients) client.socket.send(frame);
  }

  /** A message on a topic, to every client subscribed to it, as each asked (JSON or CBOR). */
  publishNow(topic: string, message: Record<string, unknown>): void {
    for (const client of this.clients) {
      const subscriptions = client.subscriptions.get(topic);
      if (subscriptions === undefined || subscriptions.size === 0) continue;
      const cborWanted = [...subscriptions.values()].some((sub) => sub.compression === 'cbor');
      const frame = { op: 'publish', topic, msg: message };
      client.socket.send(cborWanted ? cbor.encode(frame) : JSON.stringify(frame, jsonReplacer));
    }
  }

  /** The robot vanishes: connections cut, port closed. */
  async stop(): Promise<void> {
    for (const client of this.clients) client.socket.terminate();
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The robot comes back on the same port. */
  async restart(): Promise<void> {
    await this.listen();
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.stop();
  }

  private async listen(): Promise<void> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: this.port });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    server.on('connection', (socket) => this.accept(socket));
  }

  private accept(socket: WebSocket): void {
    const client: Client = { id: this.nextClient++, socket, subscriptions: new Map() };
    this.clients.add(client);
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      try {
        this.handle(client, JSON.parse(String(data)) as Record<string, unknown>);
      } catch {
        // A real server only logs what it cannot parse.
      }
      this.wake();
    });
    socket.on('close', () => {
      this.clients.delete(client);
      this.wake();
    });
    this.wake();
  }

  private handle(client: Client, message: Record<string, unknown>): void {
    this.received.push({ client: client.id, message });
    const topic = message['topic'];
    switch (message['op']) {
      case 'subscribe': {
        if (typeof topic !== 'string') return;
        const subscriptions = client.subscriptions.get(topic) ?? new Map<string, ClientSubscription>();
        client.subscriptions.set(topic, subscriptions);
        const throttle = message['throttle_rate'];
        subscriptions.set(String(message['id']), {
          compression: String(message['compression'] ?? 'none'),
          throttleMs: typeof throttle === 'number' ? throttle : 0,
          lastSentMs: 0,
        });
        return;
      }
      case 'unsubscribe':
        if (typeof topic === 'string') client.subscriptions.get(topic)?.delete(String(message['id']));
        return;
      case 'call_service':
        this.callService(client, message);
        return;
    }
  }

  private callService(client: Client, message: Record<string, unknown>): void {
    const service = String(message['service']);
    const handler = this.options.services[service] ?? this.builtInService(service);
    const respond = (values: unknown, result: boolean): void =>
      client.socket.send(JSON.stringify({ op: 'service_response', service, values, result, id: message['id'] }));
    if (handler === undefined) return respond(`Service ${service} does not exist`, false);
    const values = handler(message['args']);
    if (values !== NEVER) respond(values, true);
  }

  private builtInService(service: string): FakeService | undefined {
    if (!this.options.rosapi) return undefined;
    if (service === '/rosapi/topics') {
      const topics = Object.entries(this.options.topics);
      return () => ({ topics: topics.map(([name]) => name), types: topics.map(([, spec]) => spec.type) });
    }
    if (service === '/rosapi/get_time') return () => ({ time: this.stamp() });
    return undefined;
  }

  private publish(topic: string, spec: FakeTopic, seq: number): void {
    const message = spec.headerless ? spec.message(seq) : { header: { seq, stamp: this.stamp(), frame_id: 'fake' }, ...spec.message(seq) };
    const nowMs = Date.now();
    for (const client of this.clients) {
      const subscriptions = [...(client.subscriptions.get(topic)?.values() ?? [])];
      if (subscriptions.length === 0) continue;
      const throttleMs = Math.min(...subscriptions.map((sub) => sub.throttleMs));
      if (nowMs - (subscriptions[0]?.lastSentMs ?? 0) < throttleMs) continue;
      for (const sub of subscriptions) sub.lastSentMs = nowMs;
      const cborWanted = subscriptions.some((sub) => sub.compression === 'cbor');
      if (cborWanted && this.options.cborSilentTypes.includes(spec.type)) continue;
      const frame = { op: 'publish', topic, msg: message };
      client.socket.send(cborWanted ? cbor.encode(frame) : JSON.stringify(frame, jsonReplacer));
    }
  }

  private stamp(): Record<string, number> {
    const ms = Date.now() + this.options.clockOffsetMs;
    const secs = Math.floor(ms / 1000);
    const nanos = Math.round((ms - secs * 1000) * 1e6);
    return this.options.ros2Stamps ? { sec: secs, nanosec: nanos } : { secs, nsecs: nanos };
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** rosbridge's JSON: uint8[] as base64, other arrays as lists (where inf and nan become null). */
function jsonReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<number>);
  return value;
}
