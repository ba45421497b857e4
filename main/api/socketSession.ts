// One UI connection: validates every request, answers bad ones with an error event (the socket
// stays open), and streams state and previews at rates the UI can draw.
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import { API_VERSION, type Event, type SetSceneRequest } from '../core/contract.ts';
import type { CockpitApi } from './cockpitService.ts';
import type { LivePlots } from './livePlots.ts';
import type { SceneFeed } from './sceneFeed.ts';
import type { Preview } from './previews.ts';
import { parseRequest } from './requestParsing.ts';
import { RequestRateLimit, SOCKET_REQUEST_LIMIT } from './requestRateLimit.ts';

export const STATE_PERIOD_MS = 100;
/** Previews are skipped (never queued) while this much is still waiting to go out to a slow client. */
const MAX_BUFFERED_BYTES = 2 * 1024 * 1024;

export class SocketSession {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly stopPreviews: () => void;
  private readonly sentSequence = { camera: 0, scan: 0, points: 0 };
  private readonly rateLimit = new RequestRateLimit(SOCKET_REQUEST_LIMIT);
  /** This connection's live plots, opened on its first set-plots request. */
  private plots: LivePlots | undefined;
  /** This connection's 3D scene, from a set-scene with a fixed frame until one with `off`. */
  private scene: SceneFeed | undefined;

  constructor(
    private readonly socket: WebSocket,
    private readonly api: CockpitApi,
    private readonly log: Logger,
  ) {
    socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    socket.on('close', () => this.dispose());
    socket.on('error', (error) => log.warn({ err: error }, 'UI socket error'));
    this.send({ type: 'hello', apiVersion: API_VERSION, state: api.state() });
    this.timers.push(setInterval(() => this.send({ type: 'state', state: api.state() }), STATE_PERIOD_MS));
    // Each camera frame, scan and point cloud goes out as it arrives, so the UI draws at the sensor rate (DESIGN §1).
    this.stopPreviews = api.onPreviewReady(() => this.sendPreviews());
    this.sendPreviews();
  }

  dispose(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.stopPreviews();
    this.plots?.close();
    this.plots = undefined;
    this.scene?.close();
    this.scene = undefined;
  }

  private onMessage(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    if (isBinary) {
      this.send({ type: 'error', error: { code: 'bad-request', message: 'binary frames are not accepted; send JSON text requests' } });
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    const parsed = parseRequest(text);
    if (!parsed.ok) {
      this.log.warn({ error: parsed.error }, 'refused a request from the UI');
      this.send({ type: 'error', error: parsed.error });
      return;
    }
    if (parsed.request.type !== 'estop' && !this.rateLimit.take()) {
      const message = this.rateLimit.refusalToTell();
      if (message) {
        this.log.warn({ message }, 'a UI socket is flooding the core');
        this.send({ type: 'error', error: { code: 'rate-limited', message, ...(parsed.request.id ? { id: parsed.request.id } : {}) } });
      }
      return;
    }
    if (parsed.request.type === 'set-plots') {
      // Plots belong to the connection that asked: they stream on this socket and end with it.
      this.plots ??= this.api.openLivePlots({ send: (frame) => this.sendBinary(frame), status: (event) => this.send(event) });
      this.send(this.plots.set(parsed.request.paths));
      if (parsed.request.id !== undefined) this.send({ type: 'ack', id: parsed.request.id, requestType: parsed.request.type });
      return;
    }
    if (parsed.request.type === 'set-scene') {
      this.setScene(parsed.request);
      return;
    }
    const result = this.api.handle(parsed.request);
    if (!result.ok) {
      this.send({ type: 'error', error: result.error });
    } else if (parsed.request.id !== undefined) {
      this.send({ type: 'ack', id: parsed.request.id, requestType: parsed.request.type });
    }
  }

  /** The scene, like the plots, belongs to this connection: it streams on this socket and ends with it (or with `off`). */
  private setScene(request: SetSceneRequest): void {
    const id = request.id !== undefined ? { id: request.id } : {};
    if (request.off === true && request.fixedFrame !== undefined) {
      this.send({ type: 'error', error: { code: 'bad-request', message: 'set-scene takes a fixedFrame or off: true, not both', ...id } });
      return;
    }
    if (request.off === true) {
      this.scene?.close();
      this.scene = undefined;
    } else if (request.fixedFrame === undefined) {
      this.send({ type: 'error', error: { code: 'bad-request', message: 'set-scene needs a fixedFrame (such as map or odom), or off: true', ...id } });
      return;
    } else if (this.scene !== undefined) {
      this.scene.setFixedFrame(request.fixedFrame);
    } else {
      this.scene = this.api.openScene(request.fixedFrame, { sendEvent: (event) => this.sendIfRoom(event), sendBinary: (frame) => this.sendBinary(frame) });
    }
    if (request.id !== undefined) this.send({ type: 'ack', id: request.id, requestType: request.type });
  }

  private sendPreviews(): void {
    if (this.socket.readyState !== this.socket.OPEN || this.socket.bufferedAmount > MAX_BUFFERED_BYTES) return;
    this.sendPreview('camera', this.api.cameraPreview());
    this.sendPreview('scan', this.api.scanPreview());
    this.sendPreview('points', this.api.pointCloudPreview());
  }

  private sendPreview(stream: 'camera' | 'scan' | 'points', preview: Preview | undefined): void {
    if (!preview || preview.sequence === this.sentSequence[stream]) return;
    this.sentSequence[stream] = preview.sequence;
    this.socket.send(preview.bytes, { binary: true });
  }

  private sendBinary(bytes: Uint8Array): boolean {
    if (this.socket.readyState !== this.socket.OPEN || this.socket.bufferedAmount > MAX_BUFFERED_BYTES) return false;
    this.socket.send(bytes, { binary: true });
    return true;
  }

  /** An event that the next one replaces (a scene): skipped, not queued, for a slow client. */
  private sendIfRoom(event: Event): boolean {
    if (this.socket.readyState !== this.socket.OPEN || this.socket.bufferedAmount > MAX_BUFFERED_BYTES) return false;
    this.socket.send(JSON.stringify(event));
    return true;
  }

  private send(event: Event): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(event));
  }
}
