// The core's HTTP and WebSocket listener: the built UI (public), /healthz (public), /api/* behind a
// bearer token, and the UI socket behind a token and an allowed Origin. Loopback unless told otherwise.
import { existsSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import sirv from 'sirv';
import { WebSocketServer } from 'ws';
import { bearerToken, ownOrigins, tokensMatch } from './access.ts';
import type { CockpitApi, ReviewResult } from './cockpitService.ts';
import { API_VERSION, ClipSide, MAX_REQUEST_BYTES, MAX_SOCKET_FRAME_BYTES, Paths, type ErrorBody } from '../core/contract.ts';
import { validateRequest } from './requestParsing.ts';
import { SocketSession } from './socketSession.ts';
import { HTTP_REQUEST_LIMIT, RequestRateLimit } from './requestRateLimit.ts';

export interface ApiServerOptions {
  host: string;
  port: number;
  token: string;
  /** The built UI; when absent the server says how to build it. */
  staticDir: string;
  tls?: { cert: Buffer; key: Buffer };
  /** Origins allowed on the UI socket besides the server's own. */
  extraOrigins?: string[];
  log: Logger;
}

export interface ApiServer {
  port: number;
  /** The UI's address with the token in the fragment (never sent to the server in a request line). */
  uiUrl: string;
  close(): Promise<void>;
}

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "connect-src 'self' ws: wss:",
  "img-src 'self' data: blob:",
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export async function startApiServer(api: CockpitApi, options: ApiServerOptions): Promise<ApiServer> {
  const { log } = options;
  const staticFiles = existsSync(options.staticDir) ? sirv(options.staticDir, { single: false, dev: false, etag: true }) : undefined;
  let allowedOrigins = new Set<string>();

  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Referrer-Policy', 'no-referrer');
    const path = new URL(request.url ?? '/', 'http://reins.invalid').pathname;
    if (path === Paths.health) return sendJson(response, 200, { ok: true });
    if (path === '/api' || path.startsWith('/api/')) return handleApi(request, response, path);
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return sendError(response, 405, { code: 'method-not-allowed', message: `${request.method} is not allowed here` });
    response.setHeader('Content-Security-Policy', CSP);
    if (!staticFiles)
      return sendError(response, 404, { code: 'not-found', message: `the UI is not built (${options.staticDir} is missing): run "npm run build"` });
    staticFiles(request, response, () => sendError(response, 404, { code: 'not-found', message: `no such file: ${path}` }));
  };

  const httpLimit = new RequestRateLimit(HTTP_REQUEST_LIMIT);

  const handleApi = (request: IncomingMessage, response: ServerResponse, path: string) => {
    if (!tokensMatch(bearerToken(request), options.token)) {
      response.setHeader('WWW-Authenticate', 'Bearer');
      return sendError(response, 401, { code: 'unauthorized', message: 'missing or wrong token: send "Authorization: Bearer TOKEN"' });
    }
    if (path === Paths.status) {
      if (request.method !== 'GET') return sendError(response, 405, { code: 'method-not-allowed', message: `${Paths.status} takes GET` });
      return sendJson(response, 200, { apiVersion: API_VERSION, state: api.state() });
    }
    if (path === Paths.serialPorts) {
      if (request.method !== 'GET') return sendError(response, 405, { code: 'method-not-allowed', message: `${Paths.serialPorts} takes GET` });
      return void api.serialPorts().then((result) => (result.ok ? sendJson(response, 200, result.body) : sendError(response, 503, result.error)));
    }
    if (path === Paths.requests) {
      if (request.method !== 'POST') return sendError(response, 405, { code: 'method-not-allowed', message: `${Paths.requests} takes POST` });
      return void readJsonBody(request, response).then((json) => {
        if (json === undefined) return;
        const parsed = validateRequest(json);
        if (!parsed.ok) return sendError(response, parsed.error.code === 'unknown-request' ? 404 : 400, parsed.error);
        if (parsed.request.type !== 'estop' && !httpLimit.take()) {
          return sendError(response, 429, {
            code: 'rate-limited',
            message: `too many requests: at most ${HTTP_REQUEST_LIMIT.perSecond} a second over HTTP; the e-stop is never limited`,
            ...(parsed.request.id ? { id: parsed.request.id } : {}),
          });
        }
        const result = api.handle(parsed.request);
        if (!result.ok) return sendError(response, result.error.code === 'bad-request' ? 400 : 409, result.error);
        sendJson(response, 200, { ok: true, requestType: parsed.request.type });
      });
    }
    if (path.startsWith(`${Paths.clips}/`)) return handleClip(request, response, path);
    if (path === Paths.reviewTimeline || path === Paths.reviewSimilar || path === Paths.reviewPlot) return handleReview(request, response, path);
    if (path === Paths.plotFields) {
      if (request.method !== 'GET') return sendError(response, 405, { code: 'method-not-allowed', message: `${Paths.plotFields} takes GET` });
      return sendJson(response, 200, api.plotFields());
    }
    if (path === Paths.robotAsset) {
      if (request.method !== 'GET') return sendError(response, 405, { code: 'method-not-allowed', message: `${Paths.robotAsset} takes GET` });
      return void api.robotAsset(new URL(request.url ?? '', 'http://core').searchParams.get('uri')).then((result) => {
        if (!result.ok) return sendError(response, result.status, result.error);
        // Not kept: the same URI is another file on the next robot the operator connects.
        response.writeHead(200, { 'Content-Type': result.contentType, 'Content-Length': result.bytes.byteLength, 'Cache-Control': 'no-store' });
        response.end(result.bytes);
      });
    }
    sendError(response, 404, { code: 'not-found', message: `no API at ${path}` });
  };

  /** GET /api/clips/QUESTION/SIDE (JSON) and /api/clips/QUESTION/SIDE/frames/N (an image). */
  const handleClip = (request: IncomingMessage, response: ServerResponse, path: string) => {
    if (request.method !== 'GET') return sendError(response, 405, { code: 'method-not-allowed', message: `${Paths.clips} takes GET` });
    const match = path.slice(Paths.clips.length).match(/^\/([^/]{1,200})\/([a-z]+)(?:\/frames\/(\d{1,4}))?$/);
    const side = ClipSide.safeParse(match?.[2]);
    if (!match || !side.success)
      return sendError(response, 404, { code: 'not-found', message: `no clip at ${path}: use ${Paths.clips}/QUESTION/left|right[/frames/N]` });
    let questionId: string;
    try {
      questionId = decodeURIComponent(match[1]!);
    } catch {
      return sendError(response, 400, { code: 'bad-request', message: 'the question id in the path is not valid percent-encoding' });
    }
    if (match[3] === undefined) {
      return void api.clip(questionId, side.data).then((result) => (result.ok ? sendJson(response, 200, result.body) : sendError(response, 404, result.error)));
    }
    void api.clipFrame(questionId, side.data, Number(match[3])).then((result) => {
      if (!result.ok) return sendError(response, result.error.code === 'unavailable' ? 503 : 404, result.error);
      response.writeHead(200, { 'Content-Type': result.contentType, 'Content-Length': result.bytes.byteLength, 'Cache-Control': 'private, max-age=300' });
      response.end(result.bytes);
    });
  };

  /** GET /api/review/timeline and /api/review/similar?atMs=T (review mode only). */
  const handleReview = (request: IncomingMessage, response: ServerResponse, path: string) => {
    if (request.method !== 'GET') return sendError(response, 405, { code: 'method-not-allowed', message: `${path} takes GET` });
    const reply = (result: ReviewResult<unknown>) =>
      result.ok ? sendJson(response, 200, result.body) : sendError(response, result.error.code === 'unavailable' ? 503 : 404, result.error);
    if (path === Paths.reviewTimeline) return void api.reviewTimeline().then(reply);
    if (path === Paths.reviewPlot) {
      const fieldPath = new URL(request.url ?? '', 'http://core').searchParams.get('path');
      if (fieldPath === null) return sendError(response, 400, { code: 'bad-request', message: `${Paths.reviewPlot} needs ?path=/topic.field` });
      return void api
        .reviewPlot(fieldPath)
        .then((result) => (result.ok || result.error.code !== 'bad-request' ? reply(result) : sendError(response, 400, result.error)));
    }
    const atMs = Number(new URL(request.url ?? '', 'http://core').searchParams.get('atMs') ?? Number.NaN);
    if (!Number.isFinite(atMs))
      return sendError(response, 400, { code: 'bad-request', message: `${Paths.reviewSimilar} needs ?atMs=T, a log time in epoch ms` });
    void api.similarMoments(atMs).then(reply);
  };

  const server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, onRequest) : createHttpServer(onRequest);
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_SOCKET_FRAME_BYTES });
  const connections = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://reins.invalid');
    if (url.pathname !== Paths.socket) return refuseUpgrade(socket, 404, { code: 'not-found', message: `no socket at ${url.pathname}; use ${Paths.socket}` });
    if (!tokensMatch(url.searchParams.get('token') ?? undefined, options.token)) {
      log.warn({ origin: request.headers.origin }, 'refused a UI socket: missing or wrong token');
      return refuseUpgrade(socket, 401, { code: 'unauthorized', message: 'missing or wrong token: connect with ?token=TOKEN' });
    }
    const origin = request.headers.origin;
    if (origin === undefined || !allowedOrigins.has(origin)) {
      log.warn({ origin }, 'refused a UI socket: origin not allowed');
      return refuseUpgrade(socket, 403, { code: 'forbidden-origin', message: `origin ${origin ?? '(none)'} may not open the UI socket` });
    }
    sockets.handleUpgrade(request, socket, head, (ws) => new SocketSession(ws, api, log));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  allowedOrigins = new Set([...ownOrigins(options.host, port, options.tls !== undefined), ...(options.extraOrigins ?? [])]);
  const scheme = options.tls ? 'https' : 'http';
  const hostInUrl = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    port,
    uiUrl: `${scheme}://${hostInUrl}:${port}/#token=${encodeURIComponent(options.token)}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        server.close(() => resolve());
        for (const socket of connections) socket.destroy();
      }),
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  response.end(text);
}

function sendError(response: ServerResponse, status: number, error: ErrorBody): void {
  sendJson(response, status, { error });
}

function refuseUpgrade(socket: Duplex, status: number, error: ErrorBody): void {
  const text = JSON.stringify({ error });
  const reason = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** Reads a JSON body up to MAX_REQUEST_BYTES; answers the error itself and returns undefined on failure. */
async function readJsonBody(request: IncomingMessage, response: ServerResponse): Promise<unknown> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_REQUEST_BYTES) {
    sendError(response, 413, { code: 'too-large', message: `request of ${declared} bytes exceeds the limit of ${MAX_REQUEST_BYTES} bytes` });
    request.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > MAX_REQUEST_BYTES) {
        // Answer first, then drop the connection so the rest of the body is never read.
        response.setHeader('Connection', 'close');
        response.on('finish', () => request.destroy());
        sendError(response, 413, { code: 'too-large', message: `request exceeds the limit of ${MAX_REQUEST_BYTES} bytes` });
        return undefined;
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (!response.headersSent) sendError(response, 400, { code: 'bad-request', message: `request body could not be read: ${(error as Error).message}` });
    return undefined;
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    sendError(response, 400, { code: 'bad-json', message: `request is not valid JSON: ${(error as Error).message}` });
    return undefined;
  }
}
