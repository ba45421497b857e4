// roslib's transport for one rosbridge connection. roslib's own handling is kept for everything it
// gets right (CBOR frames through its cbor2 decoder, `png` ops, JSON); fragments are reassembled
// here because roslib drops any fragment whose `id` is falsy, and a real ROS 1 server sends id 0
// for all of them (see fragmentAssembler.ts). It also keeps the connection honest: a ping when the
// line has been quiet, and the socket dropped when the robot stops answering (a half-open TCP
// connection would otherwise look "present" for minutes).
import { describeWireValue, isWireRecord } from './decode/wireFields.ts';
import { FragmentAssembler } from './fragmentAssembler.ts';
import type { LinkClock, TimerHandle } from './linkClock.ts';
import { ROSLIB, type RosbridgeMessage, type RosbridgeMessageBase } from './roslib.ts';
import type { SocketPort } from './socketPort.ts';

export interface HeartbeatTimings {
  pingIntervalMs: number;
  /** Silence (no frame, no pong) after which the connection is presumed dead. */
  silenceTimeoutMs: number;
}

export const DEFAULT_HEARTBEAT: Readonly<HeartbeatTimings> = Object.freeze({ pingIntervalMs: 1000, silenceTimeoutMs: 4000 });

/** A frame the server sent that could not be understood; the connection carries on. */
export class FrameError extends Error {
  override name = 'FrameError';
}

export class RosbridgeTransport extends ROSLIB.AbstractTransport {
  private readonly fragments = new FragmentAssembler();
  private heartbeat: TimerHandle | undefined;
  private lastHeardMs = 0;
  private closeReasonText = 'not connected yet';
  private silencedReason: string | undefined;
  /** An open or close the socket reported before roslib listened (see deliverMissedEvent). */
  private missedEvent: 'open' | 'close' | undefined;
  /** True while roslib decodes a binary frame (see emit). */
  private decodingBinary = false;

  constructor(
    private readonly socket: SocketPort,
    private readonly clock: LinkClock,
    private readonly timings: Readonly<HeartbeatTimings> = DEFAULT_HEARTBEAT,
  ) {
    super();
    socket.listen({
      open: () => {
        this.heard();
        this.scheduleHeartbeat();
        this.announce('open');
      },
      close: (reason) => {
        this.stopHeartbeat();
        this.closeReasonText = this.silencedReason ?? reason;
        this.announce('close');
      },
      frame: (data) => {
        this.heard();
        this.handleRawMessage(data);
      },
      pong: () => this.heard(),
    });
  }

  /**
   * roslib's Ros attaches to a new transport only after an await inside `connect()`; an open or
   * close the socket reported before that would be lost, so it is delivered once roslib listens.
   */
  deliverMissedEvent(): void {
    const missed = this.missedEvent;
    this.missedEvent = undefined;
    if (missed !== undefined) this.announce(missed);
  }

  /** Why the socket closed (or failed to open), for the operator. */
  closeReason(): string {
    return this.closeReasonText;
  }

  /** Sends only on an open socket: nothing is buffered for a later connection. */
  send(message: RosbridgeMessage): void {
    if (this.socket.state() === 'open') this.socket.send(JSON.stringify(message));
  }

  close(): void {
    this.stopHeartbeat();
    this.socket.close();
  }

  isConnecting(): boolean {
    return this.socket.state() === 'connecting';
  }

  isOpen(): boolean {
    return this.socket.state() === 'open';
  }

  isClosing(): boolean {
    return this.socket.state() === 'closing';
  }

  isClosed(): boolean {
    return this.socket.state() === 'closed';
  }

  protected override handleRawMessage(data: unknown): void {
    if (typeof data !== 'string') {
      this.decodingBinary = true;
      try {
        super.handleRawMessage(data);
      } finally {
        this.decodingBinary = false;
      }
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch (error) {
      this.emit('error', new FrameError(`a text frame is not JSON (${error instanceof Error ? error.message : String(error)})`));
      return;
    }
    this.handleParsed(parsed);
  }

  private handleParsed(parsed: unknown): void {
    if (!isWireRecord(parsed) || typeof parsed['op'] !== 'string') {
      this.emit('error', new FrameError('a frame without an "op" field'));
      return;
    }
    if (parsed['op'] === 'png' && typeof parsed['data'] !== 'string') {
      this.emit('error', new FrameError(`a "png" frame whose "data" is ${describeWireValue(parsed['data'])}, not base64 text`));
      return;
    }
    if (parsed['op'] !== 'fragment') {
      super.handleRawMessage(parsed);
      return;
    }
    const result = this.fragments.add(parsed);
    if (result.problem !== undefined) this.emit('error', new FrameError(`fragments: ${result.problem}`));
    if (result.complete) this.handleParsed(result.message);
  }

  /**
   * Every message roslib decoded (JSON, CBOR, PNG) passes here on its way to roslib's Ros, which
   * routes it with its topic, id or service as an event name: a field there that is not text would
   * throw inside roslib and reach the operator as a bare TypeError, so such a frame is refused here.
   */
  override emit(event: 'open' | 'close' | 'error' | 'message', ...args: unknown[]): boolean {
    if (event === 'message') {
      const problem = messageShapeProblem(args[0]);
      if (problem !== undefined) return super.emit('error', new FrameError(problem));
    }
    // roslib decodes a binary frame's CBOR and its ops itself; a TypeError from there means a field of
    // the wrong type (a "png" op whose data is not text, say), which its own message does not say.
    if (event === 'error' && this.decodingBinary && args[0] instanceof TypeError) {
      return super.emit('error', new FrameError('a CBOR frame with a field of the wrong type for its op'));
    }
    return super.emit(event as 'message', ...(args as [RosbridgeMessageBase]));
  }

  private announce(event: 'open' | 'close'): void {
    if (this.listenerCount(event) === 0) this.missedEvent = event;
    else if (event === 'open') this.emit('open', undefined);
    else this.emit('close', this.closeReasonText);
  }

  private heard(): void {
    this.lastHeardMs = this.clock.epochMs();
  }

  private scheduleHeartbeat(): void {
    this.heartbeat = this.clock.setTimeout(() => {
      if (this.socket.state() !== 'open') return;
      if (this.clock.epochMs() - this.lastHeardMs > this.timings.silenceTimeoutMs) {
        this.silencedReason = `no answer from the robot for ${this.timings.silenceTimeoutMs} ms`;
        this.socket.terminate();
        return;
      }
      this.socket.ping();
      this.scheduleHeartbeat();
    }, this.timings.pingIntervalMs);
  }

  private stopHeartbeat(): void {
    if (this.heartbeat !== undefined) this.clock.clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
  }
}

/** Fields roslib turns into event names, and a status message's text: each must be text when present. */
const ROUTING_FIELDS = ['topic', 'id', 'service', 'action'] as const;
const STATUS_FIELDS = ['level', 'msg'] as const;

function messageShapeProblem(message: unknown): string | undefined {
  if (!isWireRecord(message)) return undefined;
  const op = typeof message['op'] === 'string' ? message['op'] : 'unnamed';
  for (const field of ROUTING_FIELDS) {
    const value = message[field];
    if (value !== undefined && typeof value !== 'string' && typeof value !== 'number')
      return `a "${op}" message whose "${field}" is ${describeWireValue(value)}, not text`;
  }
  // roslib would only log this to the console; an answer without an id cannot be matched to a call.
  if (op === 'service_response' && !message['id']) return 'a "service_response" message without an "id"';
  if (op !== 'status') return undefined;
  for (const field of STATUS_FIELDS) {
    if (typeof message[field] !== 'string') return `a "status" message whose "${field}" is ${describeWireValue(message[field])}, not text`;
  }
  return undefined;
}
