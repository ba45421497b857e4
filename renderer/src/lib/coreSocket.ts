// The connection to the core: one WebSocket, reopened with backoff when it drops; heartbeats while it
// is open; every event validated against the contract; binary frames decoded. The core is "lost" when
// the socket closes or falls silent, and a socket silent for long is dropped and reopened.
import { ReconnectBackoff } from './backoff.ts';
import type { Clock, TimerId } from './clock.ts';
import { API_VERSION, Event, HEARTBEAT_PERIOD_MS, decodeBinaryFrame, type BinaryFrame, type Request } from './contract.ts';

export type CoreLinkStatus = 'connecting' | 'connected' | 'disconnected';

/** What a transport tells the connection; one set of handlers per socket. */
export interface SocketHandlers {
  close(code: number, reason: string): void;
  text(data: string): void;
  binary(data: Uint8Array): void;
}

export interface SocketLike {
  readonly isOpen: boolean;
  send(text: string): void;
  close(code: number, reason: string): void;
}

export type OpenSocket = (url: string, handlers: SocketHandlers) => SocketLike;

export interface CoreSocketListener {
  status(status: CoreLinkStatus): void;
  event(event: Event): void;
  frame(frame: BinaryFrame): void;
  /** Something from the core could not be used; it was dropped and the connection kept. */
  problem(message: string): void;
}

export interface CoreSocketOptions {
  url: string;
  openSocket: OpenSocket;
  clock: Clock;
  backoff?: ReconnectBackoff;
  /** Silence after which the core counts as lost (the core sends state about 10 times a second). */
  lostAfterMs?: number;
  /** Silence after which the socket is dropped and reopened. */
  reopenAfterMs?: number;
}

export const CORE_LOST_AFTER_MS = 800;
export const CORE_REOPEN_AFTER_MS = 3000;
/** Closed by us because the core went quiet (4000–4999 is for applications). */
const CLOSE_SILENT = 4000;

export class CoreSocket {
  readonly #url: string;
  readonly #openSocket: OpenSocket;
  readonly #clock: Clock;
  readonly #backoff: ReconnectBackoff;
  readonly #lostAfterMs: number;
  readonly #reopenAfterMs: number;
  #socket: SocketLike | undefined;
  #helloSeen = false;
  #status: CoreLinkStatus = 'connecting';
  #quietSinceMs = 0;
  #reopenTimer: TimerId | undefined;
  #tickTimer: TimerId | undefined;
  #running = false;

  constructor(
    options: CoreSocketOptions,
    private readonly listener: CoreSocketListener,
  ) {
    this.#url = options.url;
    this.#openSocket = options.openSocket;
    this.#clock = options.clock;
    this.#backoff = options.backoff ?? new ReconnectBackoff();
    this.#lostAfterMs = options.lostAfterMs ?? CORE_LOST_AFTER_MS;
    this.#reopenAfterMs = options.reopenAfterMs ?? CORE_REOPEN_AFTER_MS;
  }

  get status(): CoreLinkStatus {
    return this.#status;
  }

  /** Failed attempts since the core last said hello. */
  get failedAttempts(): number {
    return this.#backoff.failures;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#tickTimer = this.#clock.setInterval(() => this.#tick(), HEARTBEAT_PERIOD_MS);
    this.#open();
  }

  stop(): void {
    this.#running = false;
    if (this.#tickTimer !== undefined) this.#clock.clearInterval(this.#tickTimer);
    if (this.#reopenTimer !== undefined) this.#clock.clearTimeout(this.#reopenTimer);
    this.#tickTimer = this.#reopenTimer = undefined;
    this.#drop(1000, 'cockpit closed');
  }

  /** Sends now or not at all: nothing is queued for a later connection. */
  send(request: Request): boolean {
    const socket = this.#socket;
    if (!socket?.isOpen) return false;
    socket.send(JSON.stringify(request));
    return true;
  }

  #open(): void {
    this.#helloSeen = false;
    this.#quietSinceMs = this.#clock.nowMs();
    const handlers: SocketHandlers = {
      close: () => {
        if (this.#socket !== socket) return;
        this.#socket = undefined;
        this.#setStatus('disconnected');
        this.#scheduleReopen();
      },
      text: (data) => {
        if (this.#socket === socket) this.#onText(data);
      },
      binary: (data) => {
        if (this.#socket === socket) this.#onBinary(data);
      },
    };
    const socket = this.#openSocket(this.#url, handlers);
    this.#socket = socket;
  }

  #scheduleReopen(): void {
    if (!this.#running || this.#reopenTimer !== undefined) return;
    this.#reopenTimer = this.#clock.setTimeout(() => {
      this.#reopenTimer = undefined;
      if (this.#running && !this.#socket) this.#open();
    }, this.#backoff.nextDelayMs());
  }

  #drop(code: number, reason: string): void {
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.close(code, reason);
  }

  #tick(): void {
    const socket = this.#socket;
    if (socket?.isOpen) socket.send(JSON.stringify({ type: 'heartbeat', sentAtMs: this.#clock.epochMs() } satisfies Request));
    const quietMs = this.#clock.nowMs() - this.#quietSinceMs;
    if (quietMs >= this.#lostAfterMs) this.#setStatus('disconnected');
    if (socket && quietMs >= this.#reopenAfterMs) {
      this.#drop(CLOSE_SILENT, 'no events from core');
      this.#scheduleReopen();
    }
  }

  #onText(data: string): void {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      this.listener.problem(`core sent text that is not JSON (${data.length} bytes)`);
      return;
    }
    if (isObject(json) && json['type'] === 'hello' && json['apiVersion'] !== API_VERSION) {
      this.listener.problem(`core speaks API version ${String(json['apiVersion'])}; this cockpit speaks ${API_VERSION}`);
      return;
    }
    const parsed = Event.safeParse(json);
    if (!parsed.success) {
      const type = isObject(json) ? String(json['type']) : typeof json;
      this.listener.problem(`core sent an invalid '${type}' event: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`);
      return;
    }
    const event = parsed.data;
    this.#quietSinceMs = this.#clock.nowMs();
    if (event.type === 'hello') {
      this.#helloSeen = true;
      this.#backoff.reset();
    }
    if (this.#helloSeen) this.#setStatus('connected');
    this.listener.event(event);
  }

  #onBinary(data: Uint8Array): void {
    let frame: BinaryFrame;
    try {
      frame = decodeBinaryFrame(data);
    } catch (error) {
      this.listener.problem(`core sent a bad binary frame: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.listener.frame(frame);
  }

  #setStatus(status: CoreLinkStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    this.listener.status(status);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
