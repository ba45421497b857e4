// A bare protocol client for tests that must do what SerialLink never does on purpose: stop its
// heartbeats, send garbage, or command a device it has not armed.
import { SerialPort } from 'serialport';
import { encodeFrame, type Frame } from '../../main/links/serial/frames.ts';
import { FrameStreamDecoder, type FrameStreamEvent } from '../../main/links/serial/frameStream.ts';
import type { ProtocolMessage } from '../../main/links/serial/protocolMessages.ts';
import { waitFor } from './linkEvents.ts';

export class RawSerialClient {
  private readonly decoder = new FrameStreamDecoder();
  private readonly listeners = new Set<(event: FrameStreamEvent, receiveTimeMs: number) => void>();
  private nextSeq = 0;
  private heartbeatTimer: NodeJS.Timeout | undefined;

  private constructor(private readonly port: SerialPort) {
    port.on('data', (chunk: Buffer) => {
      const nowMs = performance.now();
      for (const event of this.decoder.push(chunk)) for (const listener of [...this.listeners]) listener(event, nowMs);
    });
  }

  static async open(path: string): Promise<RawSerialClient> {
    const port = new SerialPort({ path, baudRate: 115200, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(error) : resolve())));
    await new Promise<void>((resolve) => port.flush(() => resolve()));
    return new RawSerialClient(port);
  }

  send(message: ProtocolMessage): number {
    const seq = this.nextSeq++;
    this.port.write(Buffer.from(encodeFrame(message, seq)));
    return seq;
  }

  sendRaw(bytes: Uint8Array): void {
    this.port.write(Buffer.from(bytes));
  }

  startHeartbeats(periodMs = 100): void {
    this.stopHeartbeats();
    this.send({ type: 'heartbeat', senderTimeUs: 0, status: 0 });
    this.heartbeatTimer = setInterval(() => this.send({ type: 'heartbeat', senderTimeUs: 0, status: 0 }), periodMs);
  }

  /** Stops heartbeats; returns when the last one went out (performance.now()). */
  stopHeartbeats(): number {
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    return performance.now();
  }

  on(listener: (event: FrameStreamEvent, receiveTimeMs: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The next frame whose message matches, with when it arrived. */
  next<M extends ProtocolMessage>(
    describe: string,
    matches: (message: ProtocolMessage) => message is M,
    timeoutMs = 3000,
  ): Promise<{ frame: Frame; message: M; receiveTimeMs: number }> {
    return waitFor(
      describe,
      (resolve) =>
        this.on((event, receiveTimeMs) => {
          if (event.status === 'frame' && matches(event.frame.message)) resolve({ frame: event.frame, message: event.frame.message, receiveTimeMs });
        }),
      timeoutMs,
    );
  }

  async close(): Promise<void> {
    this.stopHeartbeats();
    if (this.port.isOpen) await new Promise<void>((resolve) => this.port.close(() => resolve()));
  }
}

export const isType =
  <T extends ProtocolMessage['type']>(type: T) =>
  (message: ProtocolMessage): message is Extract<ProtocolMessage, { type: T }> =>
    message.type === type;
