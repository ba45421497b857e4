// The browser's WebSocket behind the small SocketLike interface the connection is written against.
import type { OpenSocket } from './coreSocket.ts';

export const openBrowserSocket: OpenSocket = (url, handlers) => {
  const socket = new WebSocket(url);
  socket.binaryType = 'arraybuffer';
  socket.onclose = (event) => handlers.close(event.code, event.reason);
  socket.onmessage = (event: MessageEvent<unknown>) => {
    if (typeof event.data === 'string') handlers.text(event.data);
    else if (event.data instanceof ArrayBuffer) handlers.binary(new Uint8Array(event.data));
  };
  // An error is always followed by close, which is where reconnecting happens.
  socket.onerror = () => {};
  return {
    get isOpen() {
      return socket.readyState === WebSocket.OPEN;
    },
    send: (text) => socket.send(text),
    close: (code, reason) => socket.close(code, reason),
  };
};
