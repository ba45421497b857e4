// A serial port in memory for SerialLink unit tests: the test plays the device, reads what the
// link wrote as decoded frames, and can unplug the port or make opening fail.
import { encodeFrame } from '../../main/links/serial/frames.ts';
import { FrameStreamDecoder } from '../../main/links/serial/frameStream.ts';
import { CAPABILITY, type DeviceInfo, type ProtocolMessage } from '../../main/links/serial/protocolMessages.ts';
import type { OpenSerialTransport, SerialTransport, SerialTransportHandlers } from '../../main/links/serial/serialTransport.ts';

export class FakeSerialPort implements SerialTransport {
  private readonly decoder = new FrameStreamDecoder();
  /** Everything the link sent, decoded, with its sequence numbers. */
  readonly sent: Array<{ seq: number; message: ProtocolMessage }> = [];
  closed = false;
  private deviceSeq = 0;

  constructor(private readonly handlers: SerialTransportHandlers) {}

  write(bytes: Uint8Array): boolean {
    if (this.closed) return false;
    for (const event of this.decoder.push(bytes)) if (event.status === 'frame') this.sent.push(event.frame);
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** The device sends a message (numbered in order unless `seq` is given). */
  reply(message: ProtocolMessage, seq = this.deviceSeq++): void {
    this.handlers.onData(encodeFrame(message, seq));
  }

  deviceBytes(bytes: Uint8Array): void {
    this.handlers.onData(bytes);
  }

  unplug(): void {
    this.closed = true;
    this.handlers.onLost(new Error('disconnected'));
  }

  sentOfType<T extends ProtocolMessage['type']>(type: T): Array<{ seq: number; message: Extract<ProtocolMessage, { type: T }> }> {
    return this.sent.filter((frame): frame is { seq: number; message: Extract<ProtocolMessage, { type: T }> } => frame.message.type === type);
  }
}

/** Opens FakeSerialPorts; set `failWith` to make the next opens fail like a missing device. */
export class FakeSerialPorts {
  readonly opened: FakeSerialPort[] = [];
  failWith: Error | undefined;

  readonly open: OpenSerialTransport = async (_path, _baud, handlers) => {
    if (this.failWith) throw this.failWith;
    const port = new FakeSerialPort(handlers);
    this.opened.push(port);
    return port;
  };

  latest(): FakeSerialPort {
    const port = this.opened.at(-1);
    if (!port) throw new Error('no port was opened');
    return port;
  }
}

/** What a two-wheeled test board says of itself in its hello reply. */
export const TEST_SERIAL_DEVICE: Readonly<DeviceInfo> = Object.freeze({
  protocolVersion: 1,
  capabilities: CAPABILITY.wheels | CAPABILITY.velocityCommand,
  wheelCount: 2,
  analogCount: 0,
  sensorRateHz: 50,
  heartbeatTimeoutMs: 400,
  heartbeatPeriodMs: 500,
  encoderCountsPerRev: 1000,
  wheelRadiusM: 0.05,
  trackM: 0.3,
  maxLinearMps: 1,
  maxAngularRadps: 2,
  name: 'test-board',
  firmwareVersion: '9.9',
});
