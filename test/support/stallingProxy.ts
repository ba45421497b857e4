// A TCP proxy between a link and its robot that can stall: while stalled it forwards nothing in
// either direction and answers nothing (not even WebSocket pings, which it cannot see), yet every
// connection stays open, as on a network that silently stops carrying packets. Bytes sent meanwhile
// are held and flow on, in order, when the stall ends, as TCP would deliver them; a connection reset
// by either end drops what it held, as the sender's kernel discards its unsent bytes on a reset.
import { createServer, connect, type Server, type Socket } from 'node:net';

export class StallingProxy {
  private readonly pairs = new Set<{ client: Socket; upstream: Socket; flush: () => void }>();
  private stalledNow = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** A proxy on a free loopback port, forwarding to 127.0.0.1:`targetPort`. */
  static async start(targetPort: number): Promise<StallingProxy> {
    let proxy: StallingProxy | undefined;
    const server = createServer((client) => proxy!.accept(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP port');
    proxy = new StallingProxy(server, address.port);
    return proxy;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  get stalled(): boolean {
    return this.stalledNow;
  }

  /** Connections open through the proxy now (both ends still open). */
  get openConnections(): number {
    return this.pairs.size;
  }

  /** Stops forwarding: nothing passes either way until `resume()`; no connection is closed. */
  stall(): void {
    this.stalledNow = true;
  }

  /** Forwards what waited during the stall, in order (ends included), then carries on. */
  resume(): void {
    this.stalledNow = false;
    for (const pair of this.pairs) pair.flush();
  }

  async close(): Promise<void> {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    const held: Array<{ to: Socket; data: Buffer | 'end' }> = [];
    const pass = (to: Socket, data: Buffer | 'end') => {
      if (this.stalledNow) held.push({ to, data });
      else if (data === 'end') to.end();
      else to.write(data);
    };
    const pair = {
      client,
      upstream,
      flush: () => {
        for (const { to, data } of held.splice(0)) pass(to, data);
      },
    };
    this.pairs.add(pair);
    client.on('data', (data) => pass(upstream, data));
    upstream.on('data', (data) => pass(client, data));
    client.on('end', () => pass(upstream, 'end'));
    upstream.on('end', () => pass(client, 'end'));
    // A reset (or error) is not held: it is what a peer sees at once when the other end is gone.
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.once('close', () => {
      if (held.length === 0) drop();
    });
    upstream.once('close', () => {
      if (held.length === 0) drop();
    });
  }
}
