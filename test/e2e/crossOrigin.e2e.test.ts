// A hostile page on this machine: served from another localhost port, holding the core's token (it
// leaked, or was guessed), it tries every way in — reading the status, posting an e-stop and a drive
// (with the token, and as a "simple" request a browser sends without asking), and the UI socket with
// ?token=. Real headless Chromium enforces what the browser would; the core must refuse all of it:
// no CORS grant on /api/*, the socket's Origin checked. The robot must not have moved or stopped.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCockpitBrowser, type CockpitBrowser } from '../support/cockpitBrowser.ts';

let cockpit: CockpitBrowser;
let hostile: Server;
let hostileOrigin: string;

beforeAll(async () => {
  cockpit = await openCockpitBrowser();
  hostile = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>not the cockpit</title><p>hello</p>');
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  hostileOrigin = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => hostile?.close(() => resolve()));
  expect(await cockpit?.close()).toBe(0);
});

describe('a page from another localhost port, with the token in hand', () => {
  it('cannot read the state, send requests or open the socket, and the robot is untouched', async () => {
    const { page, core, robotState } = cockpit;
    const before = await robotState();
    expect(before.estopped).toBe(false);
    await page.goto(hostileOrigin);
    const attempts = await page.evaluate(
      async ({ origin, token }) => {
        const outcome = async (attempt: () => Promise<Response>): Promise<string> => {
          try {
            const response = await attempt();
            // An opaque or readable answer: a no-cors request is sent but its answer cannot be read.
            return response.type === 'opaque' ? 'opaque' : `read ${response.status}`;
          } catch (error) {
            return `blocked: ${(error as Error).name}`;
          }
        };
        const auth = { authorization: `Bearer ${token}` };
        const status = await outcome(() => fetch(`${origin}/api/status`, { headers: auth }));
        const estop = await outcome(() =>
          fetch(`${origin}/api/requests`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"type":"estop"}' }),
        );
        // A simple request goes out without a preflight, but cannot carry the bearer header.
        const simple = await outcome(() =>
          fetch(`${origin}/api/requests?token=${token}`, {
            method: 'POST',
            mode: 'no-cors',
            headers: { 'content-type': 'text/plain' },
            body: '{"type":"estop"}',
          }),
        );
        const drive = await outcome(() =>
          fetch(`${origin}/api/requests`, {
            method: 'POST',
            mode: 'no-cors',
            headers: { 'content-type': 'text/plain' },
            body: '{"type":"drive","linearMps":0.5,"angularRadps":0}',
          }),
        );
        const socket = await new Promise<string>((resolve) => {
          const ws = new WebSocket(`${origin.replace('http', 'ws')}/api/socket?token=${token}`);
          ws.onopen = () => {
            ws.send('{"type":"estop"}');
            resolve('opened');
          };
          ws.onerror = () => resolve('refused');
        });
        return { status, estop, simple, drive, socket };
      },
      { origin: core.origin, token: core.token },
    );
    expect(attempts.status).toMatch(/^blocked/);
    expect(attempts.estop).toMatch(/^blocked/);
    // Sent blind, and refused by the core: no bearer token in the header.
    expect(attempts.simple).toBe('opaque');
    expect(attempts.drive).toBe('opaque');
    expect(attempts.socket).toBe('refused');

    const after = await robotState();
    expect(after.estopped).toBe(false);
    expect(after.driver).toBe('idle');
    expect(after.lastCommand).toEqual({ linearMps: 0, angularRadps: 0 });
  });

  it('gets no CORS grant from the core, for a preflight or a request', async () => {
    const { core } = cockpit;
    const preflight = await fetch(`${core.origin}/api/requests`, {
      method: 'OPTIONS',
      headers: { origin: hostileOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const status = await fetch(`${core.origin}/api/status`, { headers: { origin: hostileOrigin, authorization: `Bearer ${core.token}` } });
    expect(status.headers.get('access-control-allow-origin')).toBeNull();
  });
});
