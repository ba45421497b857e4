// One open port speaking the protocol: numbers outgoing frames, decodes incoming bytes, and counts
// gaps in the device's sequence numbers. It knows nothing of presence or retries (SerialLink does).
import { encodeFrame, type Frame, type FrameFault } from './frames.ts';
import { FrameStreamDecoder } from './frameStream.ts';
import type { ProtocolMessage } from './protocolMessages.ts';
import type { OpenSerialTransport, SerialTransport } from './serialTransport.ts';

export interface ConnectionHandlers {
  onFrame(frame: Frame, receiveTimeMs: number): void;
  onFault(fault: FrameFault): void;
  /** Frames the device numbered but that never arrived intact. */
  onFramesLost(count: number): void;
  onLost(error: Error | undefined): void;
}

/** A gap this large is not loss but a restarted device (its numbers began again). */
const MAX_PLAUSIBLE_GAP = 1000;

export class SerialConnection {
  private transport: SerialTransport | undefined;
  private readonly decoder = new FrameStreamDecoder();
  private nextSeq = 0;
  private lastDeviceSeq: number | undefined;

  private constructor(
    private readonly handlers: ConnectionHandlers,
    private readonly nowMs: () => number,
  ) {}

  static async open(
    openTransport: OpenSerialTransport,
    path: string,
    baud: number,
    handlers: ConnectionHandlers,
    nowMs: () => number,
  ): Promise<SerialConnection> {
    const connection = new SerialConnection(handlers, nowMs);
    connection.transport = await openTransport(path, baud, {
      onData: (bytes) => connection.receive(bytes),
      onLost: (error) => {
        connection.transport = undefined;
        handlers.onLost(error);
      },
    });
    return connection;
  }

  /** Sends one message; returns its sequence number, or undefined when it could not go out now. */
  send(message: ProtocolMessage): number | undefined {
    if (!this.transport) return undefined;
    const seq = this.nextSeq;
    if (!this.transport.write(encodeFrame(message, seq))) return undefined;
    this.nextSeq = (seq + 1) & 0xffff;
    return seq;
  }

  /** A lone delimiter ends whatever partial frame the device's receiver holds. */
  sendDelimiter(): void {
    this.transport?.write(Uint8Array.of(0));
  }

  /** The device began a new session (HELLO_REPLY): its numbering may have started over. */
  resetDeviceSequence(): void {
    this.lastDeviceSeq = undefined;
  }

  async close(): Promise<void> {
    const transport = this.transport;
    this.transport = undefined;
    await transport?.close();
  }

  private receive(bytes: Uint8Array): void {
    const receiveTimeMs = this.nowMs();
    for (const event of this.decoder.push(bytes)) {
      if (event.status === 'fault') {
        this.handlers.onFault(event.fault);
        continue;
      }
      this.countGap(event.status === 'frame' ? event.frame.seq : event.seq);
      if (event.status === 'frame') this.handlers.onFrame(event.frame, receiveTimeMs);
    }
  }

  private countGap(seq: number): void {
    if (this.lastDeviceSeq !== undefined) {
      const gap = (seq - this.lastDeviceSeq - 1) & 0xffff;
      if (gap > 0 && gap < MAX_PLAUSIBLE_GAP) this.handlers.onFramesLost(gap);
    }
    this.lastDeviceSeq = seq;
  }
}
