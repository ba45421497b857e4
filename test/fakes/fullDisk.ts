// A disk that fills up, for fault tests. Files opened under its folder (through `node:fs/promises`
// `open`, the recorder's file layer) get a handle whose writes take from a shared budget of free
// bytes: a write that does not fit writes what fits and fails with ENOSPC, as a real full disk does.
// LanceDB writes from native code, so the memory's table write is gated by `failIfFull()` instead,
// failing the way lance reports the same error. `free()` gives the space back.
import type { FileHandle } from 'node:fs/promises';

export class FullDisk {
  private freeBytes = Infinity;
  /** Writes refused for want of space (file writes and table writes). */
  refusedWrites = 0;

  constructor(readonly folder: string) {}

  get isFull(): boolean {
    return this.freeBytes <= 0;
  }

  /** Leaves `bytes` free from now on (0: full). */
  fill(bytes = 0): void {
    this.freeBytes = bytes;
  }

  free(): void {
    this.freeBytes = Infinity;
  }

  /** Wraps a handle opened at `path`: gated when the file lies under the folder. */
  wrap(path: string, handle: FileHandle): FileHandle {
    if (!path.startsWith(this.folder)) return handle;
    const disk = this;
    const writev = handle.writev.bind(handle);
    const write = handle.write.bind(handle) as (buffer: Uint8Array) => Promise<{ bytesWritten: number; buffer: Uint8Array }>;
    return new Proxy(handle, {
      get(target, property, receiver) {
        if (property === 'writev') {
          return async (buffers: Uint8Array[], position?: number) => {
            const total = buffers.reduce((sum, buffer) => sum + buffer.byteLength, 0);
            if (total <= disk.freeBytes) {
              disk.freeBytes -= total;
              return writev(buffers, position);
            }
            // What fits goes out (a torn record at the end of the file), then the error.
            const fits = Math.max(0, disk.freeBytes);
            disk.freeBytes = 0;
            if (fits > 0) await write(Buffer.concat(buffers).subarray(0, fits));
            throw disk.enospc('write');
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  /** Throws what LanceDB throws on a full disk, while the disk is full. */
  failIfFull(): void {
    if (this.isFull) {
      this.refusedWrites++;
      throw new Error('lance error: LanceError(IO): Generic LocalFileSystem error: Unable to write: No space left on device (os error 28)');
    }
  }

  private enospc(syscall: string): NodeJS.ErrnoException {
    this.refusedWrites++;
    const error: NodeJS.ErrnoException = new Error(`ENOSPC: no space left on device, ${syscall}`);
    error.code = 'ENOSPC';
    error.errno = -28;
    error.syscall = syscall;
    return error;
  }
}
