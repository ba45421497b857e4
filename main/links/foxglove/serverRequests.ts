// What the cockpit asks a foxglove server for besides its channels, for as long as one connection
// lives: node parameters (the `parameters` capability; foxglove_bridge names a ROS 2 node's parameter
// `NODE.PARAM`) and files it serves (the `assets` capability: foxglove_bridge serves `package://` URIs
// its allow-list admits). Each request has its own id and deadline; an answer is checked at the edge;
// a capability the server does not advertise, a missing parameter, an error reply, an oversized asset
// and a lost connection are each said in words.
import type { NodeParameterRead, RobotAssetFetch } from '../../core/link.ts';

/** foxglove_bridge's parameter names: the node's full name, a dot, the parameter's name. */
export function foxgloveParameterName(node: string, name: string): string {
  return `${node.startsWith('/') ? node : `/${node}`}.${name}`;
}

/** An asset larger than this is refused: robot meshes are kB to a few MB; the 3D view holds every one it draws. */
export const MAX_ASSET_BYTES = 16 * 1024 * 1024;
/** foxglove_bridge asks the ROS node for a parameter with its own timeout (5 s by default): allow for that and the wire. */
export const FOXGLOVE_REQUEST_TIMEOUT_MS = 6000;

/** The session's side: sends the requests, as FoxgloveClient does. */
export interface RequestSender {
  getParameters(names: string[], id: string): boolean;
  fetchAsset(uri: string, requestId: number): boolean;
}

interface Pending<T> {
  resolve(result: T): void;
  timer: ReturnType<typeof setTimeout>;
  what: string;
}

export class ServerRequests {
  private nextId = 1;
  private readonly parameters = new Map<string, Pending<NodeParameterRead> & { name: string }>();
  private readonly assets = new Map<number, Pending<RobotAssetFetch>>();

  constructor(
    private readonly sender: RequestSender,
    /** What the server advertised in its serverInfo. */
    private readonly capabilities: readonly string[],
    /** The server's address, for the messages. */
    private readonly url: string,
    private readonly timeoutMs = FOXGLOVE_REQUEST_TIMEOUT_MS,
  ) {}

  readNodeParameter(node: string, name: string): Promise<NodeParameterRead> {
    const qualified = foxgloveParameterName(node, name);
    if (!this.capabilities.includes('parameters'))
      return Promise.resolve({ ok: false, problem: `the foxglove server at ${this.url} does not offer parameters (no "parameters" capability)` });
    const id = `reins-${this.nextId++}`;
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => this.settleParameter(id, { ok: false, problem: `the foxglove server did not answer for ${qualified} within ${this.timeoutMs} ms` }),
        this.timeoutMs,
      );
      this.parameters.set(id, { resolve, timer, what: qualified, name: qualified });
      if (!this.sender.getParameters([qualified], id))
        this.settleParameter(id, { ok: false, problem: `${qualified} was not asked for: not connected to ${this.url}` });
    });
  }

  fetchAsset(uri: string): Promise<RobotAssetFetch> {
    if (!this.capabilities.includes('assets'))
      return Promise.resolve({
        ok: false,
        problem: `the foxglove server at ${this.url} does not serve files (no "assets" capability)`,
        failure: 'unsupported',
      });
    const requestId = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => this.settleAsset(requestId, { ok: false, problem: `the foxglove server did not send ${uri} within ${this.timeoutMs} ms`, failure: 'timeout' }),
        this.timeoutMs,
      );
      this.assets.set(requestId, { resolve, timer, what: uri });
      if (!this.sender.fetchAsset(uri, requestId))
        this.settleAsset(requestId, { ok: false, problem: `${uri} was not asked for: not connected to ${this.url}`, failure: 'not-connected' });
    });
  }

  /** A parameterValues message: answers the request whose id it carries (a reply without our id is someone else's). */
  onParameterValues(parameters: unknown, id: unknown): void {
    if (typeof id !== 'string') return;
    const pending = this.parameters.get(id);
    if (pending === undefined) return;
    const found = Array.isArray(parameters) ? parameters.find((parameter) => (parameter as { name?: unknown } | null)?.name === pending.name) : undefined;
    const value = (found as { value?: unknown } | undefined)?.value;
    this.settleParameter(
      id,
      value === undefined ? { ok: false, problem: `the robot has no parameter ${pending.name} (the foxglove server's getParameters)` } : { ok: true, value },
    );
  }

  /** A fetchAssetResponse: the bytes, or the server's reason. */
  onFetchAssetResponse(response: { requestId: number; status: number; error?: string; data?: ArrayBufferView }): void {
    const pending = this.assets.get(response.requestId);
    if (pending === undefined) return;
    if (response.status !== 0 || response.data === undefined)
      return this.settleAsset(response.requestId, {
        ok: false,
        problem: `the foxglove server could not send ${pending.what}: ${response.error || 'no reason given'}`,
        failure: 'refused',
      });
    const { data } = response;
    if (data.byteLength > MAX_ASSET_BYTES)
      return this.settleAsset(response.requestId, {
        ok: false,
        problem: `${pending.what} is ${(data.byteLength / 1024 / 1024).toFixed(1)} MiB, over the ${MAX_ASSET_BYTES / 1024 / 1024} MiB a robot file may be`,
        failure: 'too-large',
      });
    // Copied: the frame's buffer belongs to the socket.
    this.settleAsset(response.requestId, { ok: true, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice() });
  }

  /** The connection ended: every request still waiting is answered so. */
  dispose(reason: string): void {
    for (const id of [...this.parameters.keys()])
      this.settleParameter(id, { ok: false, problem: `${this.parameters.get(id)!.what} was not answered: ${reason}` });
    for (const id of [...this.assets.keys()])
      this.settleAsset(id, { ok: false, problem: `${this.assets.get(id)!.what} was not sent: ${reason}`, failure: 'not-connected' });
  }

  private settleParameter(id: string, result: NodeParameterRead): void {
    const pending = this.parameters.get(id);
    if (pending === undefined) return;
    this.parameters.delete(id);
    clearTimeout(pending.timer);
    pending.resolve(result);
  }

  private settleAsset(requestId: number, result: RobotAssetFetch): void {
    const pending = this.assets.get(requestId);
    if (pending === undefined) return;
    this.assets.delete(requestId);
    clearTimeout(pending.timer);
    pending.resolve(result);
  }
}
