// The API against the real core and the simulated robot: access rules, bad input, and operator
// commands that reach the robot at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BYTES, MAX_SOCKET_FRAME_BYTES, SerialPortsResponse, StatusResponse, type Event } from '../../main/core/contract.ts';
import { startCore, type RunningCore } from '../support/runningCore.ts';
import { RefusedUpgrade, SocketClient } from '../support/socketClient.ts';

let core: RunningCore;

beforeAll(async () => {
  core = await startCore({ connectTimeoutMs: 1000 });
});

afterAll(async () => {
  await core.close();
});

const auth = () => ({ authorization: `Bearer ${core.token}` });
const post = (body: string, headers: Record<string, string> = auth()) =>
  fetch(`${core.baseUrl}/api/requests`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const isError = (event: Event): event is Extract<Event, { type: 'error' }> => event.type === 'error';

async function expectCoreAlive(): Promise<void> {
  const health = await fetch(`${core.baseUrl}/healthz`);
  expect(await health.json()).toEqual({ ok: true });
  const status = await fetch(`${core.baseUrl}/api/status`, { headers: auth() });
  expect(StatusResponse.parse(await status.json()).state.presence).toBe('present');
}

describe('HTTP access', () => {
  it('serves /healthz publicly, saying only ok', async () => {
    const response = await fetch(`${core.baseUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('serves the UI publicly with a content security policy', async () => {
    const response = await fetch(`${core.baseUrl}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer wrong-token-0123456789abcd' }],
    ['a malformed header', { authorization: 'Basic abc' }],
  ])('refuses /api/* with %s', async (_name, headers) => {
    const response = await fetch(`${core.baseUrl}/api/status`, { headers });
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe('unauthorized');
    expect((await post('{"type":"estop"}', headers)).status).toBe(401);
  });

  it('answers the status with the token', async () => {
    const response = await fetch(`${core.baseUrl}/api/status`, { headers: auth() });
    expect(response.status).toBe(200);
    const body = StatusResponse.parse(await response.json());
    expect(body.state.robotName).toBeTruthy();
    expect(body.state.driver).toBe('idle');
  });

  it('says where the encoders run, with how many threads, and which modalities are loaded', async () => {
    const { perception } = StatusResponse.parse(await (await fetch(`${core.baseUrl}/api/status`, { headers: auth() })).json()).state;
    expect(perception).toMatchObject({ intraOpThreads: 1, interOpThreads: 1 });
    expect(perception.modalities.map((m) => m.modality)).toEqual(['camera', 'lidar', 'proprio']);
    expect(perception.modalities.every((m) => m.provider === 'cpu' || m.provider === 'cuda')).toBe(true);
    expect(perception.modalities.every((m) => m.state === 'on' || m.state === 'no-data')).toBe(true);
  });
});

describe('HTTP bad input', () => {
  it.each([
    ['not JSON', 'this is not json', 400, 'bad-json'],
    ['an unknown request', '{"type":"self-destruct"}', 404, 'unknown-request'],
    ['wrong types', '{"type":"drive","linearMps":"fast","angularRadps":0}', 400, 'bad-request'],
    ['a missing field', '{"type":"set-autonomy"}', 400, 'bad-request'],
  ])('answers %s with a clear error and keeps running', async (_name, body, status, code) => {
    const response = await post(body);
    expect(response.status).toBe(status);
    const error = (await response.json()).error;
    expect(error.code).toBe(code);
    expect(error.message).toMatch(/\w{3,}/);
    await expectCoreAlive();
  });

  it('refuses an oversized body with 413 and keeps running', async () => {
    const response = await post(JSON.stringify({ type: 'estop', pad: 'x'.repeat(MAX_REQUEST_BYTES * 4) }));
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('too-large');
    await expectCoreAlive();
  });

  it('refuses unknown paths and wrong methods', async () => {
    expect((await fetch(`${core.baseUrl}/api/nothing`, { headers: auth() })).status).toBe(404);
    expect((await fetch(`${core.baseUrl}/api/status`, { method: 'POST', headers: auth() })).status).toBe(405);
    expect((await fetch(`${core.baseUrl}/api/requests`, { headers: auth() })).status).toBe(405);
  });
});

describe('WebSocket access', () => {
  it('opens with the token and the UI origin, and says hello with the state', async () => {
    const client = await SocketClient.open(core.socketUrl(), core.origin);
    const hello = await client.next((e) => e.type === 'hello');
    expect(hello.type === 'hello' && hello.state.presence).toBe('present');
    client.close();
  });

  it.each([
    ['no token', () => core.socketUrl('').replace('?token=', ''), () => core.origin, 401],
    ['a wrong token', () => core.socketUrl('wrong-token-0123456789abcd'), () => core.origin, 401],
    ['a foreign origin', () => core.socketUrl(), () => 'http://evil.example', 403],
    ['no origin', () => core.socketUrl(), () => undefined, 403],
  ])('refuses %s', async (_name, url, origin, status) => {
    const refusal = await SocketClient.open(url(), origin()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(RefusedUpgrade);
    expect((refusal as RefusedUpgrade).statusCode).toBe(status);
    expect(JSON.parse((refusal as RefusedUpgrade).body).error.message).toMatch(/token|origin/);
    await expectCoreAlive();
  });
});

describe('WebSocket bad input', () => {
  it.each([
    ['not JSON', '{{{', 'bad-json'],
    ['an unknown request', { type: 'warp-drive' }, 'unknown-request'],
    ['wrong types', { type: 'drive', linearMps: true, angularRadps: 0 }, 'bad-request'],
    ['an out-of-range value', { type: 'drive', linearMps: 1e9, angularRadps: 0 }, 'bad-request'],
    ['an oversized message', { type: 'heartbeat', sentAtMs: 1, pad: 'x'.repeat(MAX_REQUEST_BYTES) }, 'too-large'],
  ])('answers %s with an error event and keeps the socket open', async (_name, request, code) => {
    const client = await SocketClient.open(core.socketUrl(), core.origin);
    client.send(request);
    const error = await client.next(isError);
    expect(error.error.code).toBe(code);
    client.send({ type: 'heartbeat', id: 'still-here', sentAtMs: Date.now() });
    const ack = await client.next((e) => e.type === 'ack');
    expect(ack).toMatchObject({ id: 'still-here' });
    client.close();
  });

  it('refuses a flood of requests beyond the rate limit, saying so once, and still takes the e-stop at once', async () => {
    const client = await SocketClient.open(core.socketUrl(), core.origin);
    await client.next((e) => e.type === 'hello');
    for (let i = 0; i < 1000; i++) client.send({ type: 'heartbeat', sentAtMs: Date.now() });
    client.send({ type: 'estop', id: 'stop-now' });
    const refused = await client.next(isError);
    expect(refused.error).toMatchObject({ code: 'rate-limited' });
    expect(refused.error.message).toMatch(/the e-stop is never limited/);
    await client.next((e) => e.type === 'ack' && e.id === 'stop-now');
    expect(core.loop.arbiter.isEStopped()).toBe(true);
    // One refusal said, however many were refused.
    expect(client.events.filter((e) => e.type === 'error')).toHaveLength(0);
    core.loop.releaseEStop(Date.now());
    client.close();
  });

  it('refuses HTTP requests beyond the rate limit with 429, never the e-stop', async () => {
    const statuses = await Promise.all(Array.from({ length: 120 }, () => post('{"type":"heartbeat","sentAtMs":1}').then((response) => response.status)));
    expect(statuses).toContain(429);
    expect((await post('{"type":"estop"}')).status).toBe(200);
    expect(core.loop.arbiter.isEStopped()).toBe(true);
    core.loop.releaseEStop(Date.now());
  });

  it('closes a socket that sends a frame above the hard cap, and keeps serving others', async () => {
    const client = await SocketClient.open(core.socketUrl(), core.origin);
    const closed = client.closed();
    client.send('x'.repeat(MAX_SOCKET_FRAME_BYTES + 1));
    expect((await closed).code).toBe(1009);
    await expectCoreAlive();
    const other = await SocketClient.open(core.socketUrl(), core.origin);
    await other.next((e) => e.type === 'hello');
    other.close();
  });
});

describe('operator commands', () => {
  it('drive reaches the robot at once, and e-stop stops it at once', async () => {
    const client = await SocketClient.open(core.socketUrl(), core.origin);
    client.send({ type: 'heartbeat', sentAtMs: Date.now() });
    client.send({ type: 'drive', id: 'd1', linearMps: 0.4, angularRadps: 0 });
    await client.next((e) => e.type === 'ack' && e.id === 'd1');
    // Carried out on arrival, before any tick: the command path has already published.
    expect(core.loop.lastSent()).toMatchObject({ driver: 'operator', delivered: true });
    expect(core.loop.lastSent()!.command.linearMps).toBeGreaterThan(0);

    client.send({ type: 'estop', id: 'e1' });
    await client.next((e) => e.type === 'ack' && e.id === 'e1');
    expect(core.loop.lastSent()).toMatchObject({ driver: 'estopped', command: { linearMps: 0, angularRadps: 0 } });

    client.send({ type: 'drive', linearMps: 0.4, angularRadps: 0 });
    expect((await client.next(isError)).error.code).toBe('refused');
    client.send({ type: 'estop-release', heldMs: 200 });
    expect((await client.next(isError)).error.message).toMatch(/hold/i);
    client.send({ type: 'estop-release', id: 'r1', heldMs: 1000 });
    await client.next((e) => e.type === 'ack' && e.id === 'r1');
    const state = await client.next((e) => e.type === 'state' && !e.state.estopped);
    expect(state.type === 'state' && state.state.driver).toBe('idle');
    client.close();
  });

  it('streams camera and scan previews as binary frames', async () => {
    const client = await SocketClient.open(core.socketUrl(), core.origin);
    await client.next((e) => e.type === 'hello');
    await client.next((e) => e.type === 'state' && e.state.streams.every((s) => !s.stale));
    await client.next((e) => e.type === 'state' && client.frames.some((f) => f.kind === 'camera') && client.frames.some((f) => f.kind === 'scan'));
    const camera = client.frames.find((f) => f.kind === 'camera');
    expect(camera?.kind === 'camera' && camera.width * camera.height).toBeGreaterThan(0);
    client.close();
  });
});

describe('connecting robots', () => {
  const status = async () => StatusResponse.parse(await (await fetch(`${core.baseUrl}/api/status`, { headers: auth() })).json()).state;

  it.each([
    ['no robot', { type: 'connect-robot' }, /robot/],
    ['an empty robot', { type: 'connect-robot', robot: '  ' }, /robot/],
    ['an overlong robot', { type: 'connect-robot', robot: `ws://${'a'.repeat(600)}:9090` }, /robot/],
    ['a topic that is no ROS name', { type: 'connect-robot', robot: 'sim', topics: { camera: 'camera image' } }, /topics\.camera: not a ROS topic name/],
    ['an unknown role', { type: 'connect-robot', robot: 'sim', topics: { lidar: '/scan' } }, /topics/],
    ['an unreadable address', { type: 'connect-robot', robot: 'tcp://robot:9090' }, /tcp:\/\/robot:9090: expected "sim", ws:\/\/HOST:PORT/],
    ['a serial address without a path', { type: 'connect-robot', robot: 'serial:ttyUSB0' }, /serial:\/dev\/PATH/],
  ])('refuses %s with a clear error and keeps the robot', async (_name, request, message) => {
    const response = await post(JSON.stringify(request));
    expect(response.status).toBe(400);
    const error = (await response.json()).error;
    expect(error.code).toBe('bad-request');
    expect(error.message).toMatch(message);
    expect((await status()).connection.status).toBe('connected');
    await expectCoreAlive();
  });

  it('reports an unreachable rosbridge URL as failed in words, keeping the robot, then switches to a new sim', async () => {
    const client = await SocketClient.open(core.socketUrl(), core.origin);
    client.send({ type: 'connect-robot', id: 'c1', robot: 'ws://127.0.0.1:1' });
    await client.next((e) => e.type === 'ack' && e.id === 'c1');
    const failed = await client.next((e) => e.type === 'state' && e.state.connection.status === 'failed', 5000);
    expect(failed.type === 'state' && failed.state.connection.error).toMatch(/^nothing answered at ws:\/\/127\.0\.0\.1:1 within 1 s\. .*rosbridge_server/);
    expect((await status()).presence).toBe('present');

    client.send({ type: 'connect-robot', id: 'c2', robot: 'sim' });
    await client.next((e) => e.type === 'ack' && e.id === 'c2');
    await client.next((e) => e.type === 'state' && e.state.connection.status === 'connected' && e.state.connection.robot === 'sim', 5000);
    await client.next((e) => e.type === 'state' && e.state.streams.every((s) => !s.stale), 5000);
    client.close();
  });

  it('refuses to switch while the operator drives', async () => {
    const client = await SocketClient.open(core.socketUrl(), core.origin);
    client.send({ type: 'heartbeat', sentAtMs: Date.now() });
    client.send({ type: 'drive', linearMps: 0.2, angularRadps: 0 });
    client.send({ type: 'connect-robot', robot: 'sim' });
    expect((await client.next(isError)).error).toMatchObject({ code: 'refused', message: expect.stringMatching(/operator is driving: stop first/) });
    client.send({ type: 'drive', linearMps: 0, angularRadps: 0 });
    client.close();
  });
});

describe('serial ports', () => {
  it('needs the token', async () => {
    const response = await fetch(`${core.baseUrl}/api/serial-ports`);
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe('unauthorized');
  });

  it("lists this machine's serial ports with the token", async () => {
    const response = await fetch(`${core.baseUrl}/api/serial-ports`, { headers: auth() });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    const body = SerialPortsResponse.parse(await response.json());
    for (const port of body.ports) expect(port.path).toMatch(/^\//);
  });
});
