// One connection to a foxglove server: a `ws` WebSocket offering both subprotocols (the library's
// client offers none of its own: it takes the socket it is given), @foxglove/ws-protocol's
// FoxgloveClient for the protocol's messages, and a ping with a silence timeout that resets a
// connection nothing arrives on, so that commands written meanwhile are discarded, never late.
import { FoxgloveClient, type IWebSocket, type ServerInfo } from './wsProtocol.ts';
import WebSocket from 'ws';
import { FOXGLOVE_SUBPROTOCOLS, type FoxgloveLimits, type FoxgloveTimings } from './foxgloveOptions.ts';

export interface SessionEvents {
  /** The server said who it is: the connection is usable. */
  ready(serverInfo: ServerInfo, subprotocol: string): void;
  advertise(channels: unknown): void;
  unadvertise(channelIds: unknown): void;
  message(subscriptionId: number, logTimeNanos: bigint, payload: Uint8Array): void;
  status(level: number, message: string): void;
  /** A frame the client could not read (bad JSON, an unknown opcode). */
  frameProblem(text: string): void;
  /** The answer to a getParameters request. */
  parameterValues(parameters: unknown, id: unknown): void;
  /** The answer to a fetchAsset request. */
  fetchAssetResponse(response: { requestId: number; status: number; error?: string; data?: ArrayBufferView }): void;
  /** The connection ended (never called after close()). */
  closed(reason: string): void;
}

export class FoxgloveSession {
  private readonly socket: WebSocket;
  private readonly client: FoxgloveClient;
  private ended = false;
  private lastHeardMs = Date.now();
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private serverInfoTimer: ReturnType<typeof setTimeout> | undefined;
  private ready = false;

  constructor(
    readonly url: string,
    private readonly timings: Readonly<FoxgloveTimings>,
    limits: Readonly<FoxgloveLimits>,
    /** PEM certificate authorities a wss:// server's certificate is checked against; undefined: the system's. */
    ca: string | undefined,
    private readonly events: SessionEvents,
  ) {
    this.socket = new WebSocket(url, [...FOXGLOVE_SUBPROTOCOLS], {
      maxPayload: limits.maxFrameBytes,
      perMessageDeflate: false,
      ...(ca === undefined ? {} : { ca }),
    });
    // ws' WebSocket has the browser-style handler properties FoxgloveClient sets; the types differ only in `any`s.
    this.client = new FoxgloveClient({ ws: this.socket as unknown as IWebSocket });
    this.socket.on('pong', () => (this.lastHeardMs = Date.now()));
    this.socket.on('message', () => (this.lastHeardMs = Date.now()));
    this.socket.on('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      const hint = status === 400 ? ' (the server refused the offered subprotocols)' : '';
      this.end(`the server answered HTTP ${status}${hint}`);
    });
    this.client.on('open', () => this.onOpen());
    this.client.on('close', (event) => this.end(closeReason(event)));
    this.client.on('error', (error) => {
      // Before the socket opens an error is the connection failing; after, a frame the client could not read.
      if (this.socket.readyState === WebSocket.OPEN) events.frameProblem(error.message);
      else if (/subprotocol/i.test(error.message)) this.end(`the server accepted neither ${FOXGLOVE_SUBPROTOCOLS.join(' nor ')}: it is not a foxglove server`);
      else this.end(error.message);
    });
    this.client.on('serverInfo', (info) => this.onServerInfo(info));
    this.client.on('advertise', (channels) => this.ready && events.advertise(channels));
    this.client.on('unadvertise', (ids) => this.ready && events.unadvertise(ids));
    this.client.on('status', (status) => events.status(status.level, String(status.message)));
    this.client.on('parameterValues', ({ parameters, id }) => this.ready && events.parameterValues(parameters, id));
    this.client.on('fetchAssetResponse', (response) => this.ready && events.fetchAssetResponse(response));
    this.client.on('message', ({ subscriptionId, timestamp, data }) => {
      if (this.ready) events.message(subscriptionId, timestamp, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    });
  }

  isOpen(): boolean {
    return !this.ended && this.ready && this.socket.readyState === WebSocket.OPEN;
  }

  subscribe(channelId: number): number | undefined {
    return this.isOpen() ? this.client.subscribe(channelId) : undefined;
  }

  unsubscribe(subscriptionId: number): void {
    if (this.isOpen()) this.client.unsubscribe(subscriptionId);
  }

  /** Asks for node parameters (the server's `parameters` capability); false when not open. */
  getParameters(names: string[], id: string): boolean {
    if (!this.isOpen()) return false;
    this.client.getParameters(names, id);
    return true;
  }

  /** Asks for a file the server serves (its `assets` capability); false when not open. */
  fetchAsset(uri: string, requestId: number): boolean {
    if (!this.isOpen()) return false;
    this.client.fetchAsset(uri, requestId);
    return true;
  }

  /** Advertises a client channel (the protocol's client publishing); undefined when not open. */
  advertise(channel: { topic: string; encoding: string; schemaName: string; schema: string; schemaEncoding: string }): number | undefined {
    return this.isOpen() ? this.client.advertise(channel) : undefined;
  }

  /** Sends now or not at all: ws would throw on a socket that is not open, and it never queues for a later one. */
  send(clientChannelId: number, payload: Uint8Array): boolean {
    if (!this.isOpen()) return false;
    this.client.sendMessage(clientChannelId, payload);
    return true;
  }

  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.stopTimers();
    this.socket.removeAllListeners('message');
    this.socket.on('error', () => undefined);
    if (this.socket.readyState === WebSocket.CONNECTING || this.socket.readyState === WebSocket.OPEN) this.socket.terminate();
  }

  private onOpen(): void {
    const subprotocol = this.socket.protocol;
    if (!FOXGLOVE_SUBPROTOCOLS.includes(subprotocol)) {
      this.end(`the server at ${this.url} accepted no foxglove subprotocol${subprotocol ? ` (it chose "${subprotocol}")` : ''}: it is not a foxglove server`);
      return;
    }
    this.lastHeardMs = Date.now();
    this.pingTimer = setInterval(() => this.checkSilence(), this.timings.pingIntervalMs);
    this.serverInfoTimer = setTimeout(
      () => this.end(`the server sent no serverInfo within ${this.timings.serverInfoTimeoutMs} ms of connecting: is it a foxglove server?`),
      this.timings.serverInfoTimeoutMs,
    );
  }

  private onServerInfo(info: ServerInfo): void {
    if (this.ready) return;
    if (typeof info.name !== 'string' || !Array.isArray(info.capabilities)) {
      this.end('the server sent a malformed serverInfo');
      return;
    }
    if (this.serverInfoTimer !== undefined) clearTimeout(this.serverInfoTimer);
    this.serverInfoTimer = undefined;
    this.ready = true;
    this.events.ready(info, this.socket.protocol);
  }

  private checkSilence(): void {
    if (Date.now() - this.lastHeardMs > this.timings.silenceTimeoutMs) {
      this.end(`nothing heard for ${this.timings.silenceTimeoutMs} ms`);
      return;
    }
    try {
      this.socket.ping();
    } catch {
      // The socket is closing; its close event ends the session.
    }
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.close();
    this.events.closed(reason);
  }

  private stopTimers(): void {
    if (this.pingTimer !== undefined) clearInterval(this.pingTimer);
    if (this.serverInfoTimer !== undefined) clearTimeout(this.serverInfoTimer);
    this.pingTimer = undefined;
    this.serverInfoTimer = undefined;
  }
}

function closeReason(event: { code?: number; reason?: string }): string {
  if (event.code === 1009) return 'the server sent a frame larger than the link accepts (WebSocket close 1009)';
  return `closed${event.code === undefined ? '' : ` (${event.code}${event.reason ? `: ${event.reason}` : ''})`}`;
}
