// The byte pipe under the serial link, behind a small interface so tests can swap it (roslibjs-
// style injectable transport). The real one is serialport 13.
import { SerialPort } from 'serialport';

export interface SerialTransport {
  /** Queues bytes; false (and nothing queued) when the port is closed or its backlog is too long. */
  write(bytes: Uint8Array): boolean;
  close(): Promise<void>;
}

export interface SerialTransportHandlers {
  onData(bytes: Uint8Array): void;
  /** Called once when the port goes away (unplugged, the pty's other end closed, a read error). */
  onLost(error: Error | undefined): void;
}

export type OpenSerialTransport = (path: string, baud: number, handlers: SerialTransportHandlers) => Promise<SerialTransport>;

/**
 * More bytes than this waiting to go out means the device is not reading (or the line is slower than
 * what we send): a command would arrive late, so it is dropped instead (about 20 ms at 115200 baud).
 */
const MAX_WRITE_BACKLOG_BYTES = 256;

export const openSerialPort: OpenSerialTransport = async (path, baud, handlers) => {
  const port = new SerialPort({ path, baudRate: baud, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(error) : resolve())));
  // Bytes the device sent before we opened (or to a previous session) are stale.
  await new Promise<void>((resolve) => port.flush(() => resolve()));
  let lost = false;
  const lose = (error: Error | undefined): void => {
    if (lost) return;
    lost = true;
    handlers.onLost(error);
  };
  port.on('data', (chunk: Buffer) => handlers.onData(chunk));
  port.on('close', (error: Error | null) => lose(error ?? undefined));
  port.on('error', (error: Error) => lose(error));
  return {
    write(bytes) {
      if (lost || !port.isOpen || port.writableLength > MAX_WRITE_BACKLOG_BYTES) return false;
      port.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return true;
    },
    close() {
      lost = true;
      if (!port.isOpen) return Promise.resolve();
      return new Promise<void>((resolve) => port.close(() => resolve()));
    },
  };
};

export type OpenFailure = 'missing' | 'permission' | 'busy' | 'other';

/** Sorts an open error into what the operator can do about it. */
export function classifyOpenError(error: unknown): OpenFailure {
  const text = error instanceof Error ? `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}` : String(error);
  if (/ENOENT|No such file|not found/i.test(text)) return 'missing';
  if (/EACCES|Permission denied/i.test(text)) return 'permission';
  if (/EBUSY|busy|Resource temporarily unavailable|lock/i.test(text)) return 'busy';
  return 'other';
}
