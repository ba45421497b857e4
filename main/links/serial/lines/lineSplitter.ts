// Splits a byte stream from a line-based sensor (NMEA GPS, CSV or JSON printing boards) into text
// lines. A line longer than the limit is noise or a wrong baud rate: it is dropped and reported,
// so a sensor that never sends a newline cannot grow a buffer.

export type LineEvent = { kind: 'line'; text: string } | { kind: 'overlong'; droppedBytes: number };

const LF = 0x0a;
const CR = 0x0d;

export class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private pending: number[] = [];
  private overflowBytes = 0;

  constructor(private readonly maxLineBytes = 1024) {}

  push(chunk: Uint8Array): LineEvent[] {
    const events: LineEvent[] = [];
    for (const byte of chunk) {
      if (byte !== LF) {
        if (this.overflowBytes > 0 || this.pending.length >= this.maxLineBytes) this.overflowBytes++;
        else this.pending.push(byte);
        continue;
      }
      if (this.overflowBytes > 0) {
        events.push({ kind: 'overlong', droppedBytes: this.pending.length + this.overflowBytes });
      } else {
        // CRLF and LF both end a line; a lone CR inside a line is kept (and rejected by the parser).
        const end = this.pending.at(-1) === CR ? this.pending.length - 1 : this.pending.length;
        const text = this.decoder.decode(Uint8Array.from(this.pending.slice(0, end)));
        if (text.length > 0) events.push({ kind: 'line', text });
      }
      this.pending = [];
      this.overflowBytes = 0;
    }
    return events;
  }
}
