// roslib's transport for one rosbridge connection. roslib's own handling is kept for everything it
// gets right (CBOR frames through its cbor2 decoder, `png` ops, JSON); fragments are reassembled
// here because roslib drops any fragment whose `id` is falsy, and a real ROS 1 server sends id 0
// for all of them (see fragmentAssembler.ts). It also keeps the connection honest: a ping when the
// line has been quiet, and the socket dropped when the robot stops answering (a half-open TCP
// connection would otherwise look "present" for minutes).
import { isWireRecord } from './decode/wireFields.ts';
import { FragmentAssembler } from './fragmentAssembler.ts';
import type { LinkClock, TimerHandle } from './linkClock.ts';
import { ROSLIB, type RosbridgeMessage } from './roslib.ts';
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
      super.handleRawMessage(data);
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
    if (parsed['op'] !== 'fragment') {
      super.handleRawMessage(parsed);
      return;
    }
    const result = this.fragments.add(parsed);
    if (result.problem !== undefined) this.emit('error', new FrameError(`fragments: ${result.problem}`));
    if (result.complete) this.handleParsed(result.message);
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
