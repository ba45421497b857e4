// Small reads from a file read front to back (record headers while a log is scanned): served from one
// window of the file read ahead, so that the headers of a run of small records cost one read, and a
// jump forward costs one more. The window is the only memory it holds.
import type { FileHandle } from 'node:fs/promises';

/** Enough for a chunk's message indexes and the next chunk's header, or the headers of a run of small messages. */
const WINDOW_BYTES = 16 * 1024;

export class FileWindow {
  private window = new Uint8Array(0);
  private windowStart = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly sizeBytes: number,
  ) {}

  /** `length` bytes at `position` (at most a window's worth), valid until the next call; throws past the end of the file. */
  async view(position: number, length: number): Promise<DataView> {
    if (length > WINDOW_BYTES) throw new RangeError(`a window read of ${length} bytes is more than ${WINDOW_BYTES}`);
    if (position < 0 || position + length > this.sizeBytes)
      throw new Error(`the file ends at byte ${this.sizeBytes}, inside a record that should end at byte ${position + length}`);
    if (position < this.windowStart || position + length > this.windowStart + this.window.byteLength) await this.fill(position);
    return new DataView(this.window.buffer, this.window.byteOffset + position - this.windowStart, length);
  }

  private async fill(position: number): Promise<void> {
    const length = Math.min(WINDOW_BYTES, this.sizeBytes - position);
    // A fresh buffer each time: a view handed out before stays as it was.
    const buffer = new Uint8Array(length);
    const { bytesRead } = await this.handle.read(buffer, 0, length, position);
    if (bytesRead !== length) throw new Error(`the file ends at byte ${position + bytesRead}, before byte ${position + length} it was said to hold`);
    this.window = buffer;
    this.windowStart = position;
  }
}
