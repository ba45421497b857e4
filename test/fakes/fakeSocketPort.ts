// A scripted WebSocket for the rosbridge link: the test decides when it opens, drops, or delivers a
// frame, and sees every frame the link sent. Sending on a socket that is not open throws, so a link
// that tried to would fail its test loudly. Lives in test/fakes: only tests import it.
import type { SocketHandlers, SocketPort, SocketState } from '../../main/links/rosbridge/socketPort.ts';

export class FakeSocketPort implements SocketPort {
  /** Every text frame the link sent, in order. */
  readonly sent: string[] = [];
  private handlers: SocketHandlers | undefined;
  private current: SocketState = 'connecting';

  state(): SocketState {
    return this.current;
  }

  listen(handlers: SocketHandlers): void {
    this.handlers = handlers;
  }

  send(text: string): void {
    if (this.current !== 'open') throw new Error(`sent on a ${this.current} socket: ${text}`);
    this.sent.push(text);
  }

  ping(): void {}

  close(): void {
    this.drop('closed by the client');
  }

  terminate(): void {
    this.drop('terminated by the client');
  }

  /** The server accepted the connection. */
  open(): void {
    this.current = 'open';
    this.handlers?.open();
  }

  /** The connection is gone (or never opened). */
  drop(reason = 'dropped by the test'): void {
    if (this.current === 'closed') return;
    this.current = 'closed';
    this.handlers?.close(reason);
  }

  /** A frame from the server: text as a string, binary as an ArrayBuffer. */
  receive(frame: string | ArrayBuffer): void {
    this.handlers?.frame(frame);
  }

  /** The sent frames, parsed. */
  sentMessages(): Array<Record<string, unknown>> {
    return this.sent.map((text) => JSON.parse(text) as Record<string, unknown>);
  }
}
