// Turns a byte stream into decoded frames: splits at 0x00, drops an over-long run as garbage (so
// noise without delimiters cannot grow a buffer), and resynchronises at the next delimiter.
import { decodeFrame, FRAME_DELIMITER, MAX_ENCODED_FRAME_BYTES, type FrameDecodeResult } from './frames.ts';

export type FrameStreamEvent = FrameDecodeResult;

export class FrameStreamDecoder {
  private readonly pending = new Uint8Array(MAX_ENCODED_FRAME_BYTES);
  private pendingLength = 0;
  /** Bytes dropped since the buffer overflowed; reported once the next delimiter ends the run. */
  private overflowBytes = 0;

  /** Feeds received bytes; returns what they completed, in order. */
  push(chunk: Uint8Array): FrameStreamEvent[] {
    const events: FrameStreamEvent[] = [];
    for (const byte of chunk) {
      if (byte !== FRAME_DELIMITER) {
        if (this.overflowBytes > 0 || this.pendingLength === this.pending.length) this.overflowBytes++;
        else this.pending[this.pendingLength++] = byte;
        continue;
      }
      if (this.overflowBytes > 0) {
        const droppedBytes = this.pendingLength + this.overflowBytes;
        events.push({
          status: 'fault',
          fault: { kind: 'too-long', detail: `${droppedBytes} bytes without a delimiter; a frame is at most ${MAX_ENCODED_FRAME_BYTES}` },
        });
      } else if (this.pendingLength > 0) {
        events.push(decodeFrame(this.pending.subarray(0, this.pendingLength)));
      }
      this.pendingLength = 0;
      this.overflowBytes = 0;
    }
    return events;
  }

  /** Forgets a partial frame (after a reconnect: its start came from another connection). */
  reset(): void {
    this.pendingLength = 0;
    this.overflowBytes = 0;
  }
}
