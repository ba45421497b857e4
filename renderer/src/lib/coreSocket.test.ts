import { beforeEach, describe, expect, it } from 'vitest';
import type { CockpitState, Event } from './contract.ts';
import { encodeCameraFrame } from './contract.ts';
import { CoreSocket, type CoreLinkStatus, type SocketHandlers, type SocketLike } from './coreSocket.ts';
import { ManualClock } from '../../../test/fakes/manualClock.ts';

const STATE: CockpitState = {
  robotName: 'sim-bot',
  simulated: true,
  presence: 'present',
  driver: 'idle',
  estopped: false,
  tookOver: false,
  autonomy: false,
  policyVersion: 'p0',
  lastCommand: { linearMps: 0, angularRadps: 0 },
  commandsClipped: 0,
  speedLimits: { maxLinearMps: 1, maxAngularRadps: 2 },
  controlRateHz: 10,
  tickLatencyMs: { p50: 1, p95: 2, p99: 3 },
  ticksSkipped: 0,
  perception: { version: 'test-encoders', intraOpThreads: 1, interOpThreads: 1, modalities: [{ modality: 'camera', state: 'on', provider: 'cpu' }] },
  streams: [],
  alerts: [],
  connection: { robot: 'sim', status: 'connected' },
};

class ScriptedSocket implements SocketLike {
  isOpen = false;
  readonly sent: string[] = [];
  closedWith: number | undefined;

  constructor(
    readonly url: string,
    readonly handlers: SocketHandlers,
  ) {}

  send(text: string): void {
    this.sent.push(text);
  }

  close(code: number): void {
    this.closedWith = code;
    this.isOpen = false;
  }

  accept(): void {
    this.isOpen = true;
    this.handlers.text(JSON.stringify({ type: 'hello', apiVersion: 1, state: STATE }));
  }

  serverClose(): void {
    this.isOpen = false;
    this.handlers.close(1006, '');
  }
}

describe('CoreSocket', () => {
  let clock: ManualClock;
  let sockets: ScriptedSocket[];
  let statuses: CoreLinkStatus[];
  let events: Event[];
  let problems: string[];
  let core: CoreSocket;

  const latest = (): ScriptedSocket => sockets.at(-1)!;

  beforeEach(() => {
    clock = new ManualClock();
    sockets = [];
    statuses = [];
    events = [];
    problems = [];
    core = new CoreSocket(
      {
        url: 'ws://127.0.0.1:1/api/socket?token=t',
        clock,
        openSocket: (url, handlers) => {
          const socket = new ScriptedSocket(url, handlers);
          sockets.push(socket);
          return socket;
        },
      },
      {
        status: (status) => statuses.push(status),
        event: (event) => events.push(event),
        frame: () => {},
        problem: (message) => problems.push(message),
      },
    );
    core.start();
  });

  it('is connected once the core says hello', () => {
    expect(core.status).toBe('connecting');
    latest().accept();
    expect(core.status).toBe('connected');
    expect(events[0]?.type).toBe('hello');
  });

  it('sends a heartbeat every 100 ms while open', () => {
    latest().accept();
    for (let i = 0; i < 5; i++) {
      clock.advance(100);
      latest().handlers.text(JSON.stringify({ type: 'state', state: STATE }));
    }
    const heartbeats = latest().sent.map((text) => JSON.parse(text) as { type: string; sentAtMs: number });
    expect(heartbeats.map((beat) => beat.type)).toEqual(Array(5).fill('heartbeat'));
    expect(heartbeats[4]!.sentAtMs - heartbeats[0]!.sentAtMs).toBe(400);
  });

  it('shows the core as lost within a second of silence, then reopens the socket', () => {
    latest().accept();
    clock.advance(700);
    expect(core.status).toBe('connected');
    clock.advance(200);
    expect(core.status).toBe('disconnected');
    clock.advance(2100);
    expect(sockets[0]!.closedWith).toBe(4000);
    clock.advance(250);
    expect(sockets).toHaveLength(2);
    latest().accept();
    expect(core.status).toBe('connected');
  });

  it('reconnects with backoff after the socket closes, and resets it after a hello', () => {
    latest().accept();
    latest().serverClose();
    expect(core.status).toBe('disconnected');
    const openedAt: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = sockets.length;
      while (sockets.length === before) clock.advance(10);
      openedAt.push(clock.nowMs());
      latest().serverClose();
    }
    const gaps = openedAt.map((t, i) => t - (i === 0 ? 0 : openedAt[i - 1]!));
    expect(gaps).toEqual([250, 500, 1000, 2000, 4000]);
    clock.advance(5000);
    latest().accept();
    latest().serverClose();
    const before = sockets.length;
    clock.advance(250);
    expect(sockets.length).toBe(before + 1);
  });

  it('sends nothing while closed and never replays it later', () => {
    latest().accept();
    latest().serverClose();
    expect(core.send({ type: 'estop' })).toBe(false);
    clock.advance(250);
    latest().accept();
    expect(latest().sent.some((text) => text.includes('estop'))).toBe(false);
  });

  it('drops invalid events and bad frames with a problem report and keeps going', () => {
    latest().accept();
    latest().handlers.text('not json');
    latest().handlers.text(JSON.stringify({ type: 'state', state: { robotName: 3 } }));
    latest().handlers.binary(new Uint8Array([9, 0, 0]));
    latest().handlers.binary(encodeCameraFrame(1, 1, 1_700_000_000_000.5, new Uint8Array([1, 2, 3])));
    expect(problems).toHaveLength(3);
    expect(core.status).toBe('connected');
    expect(events).toHaveLength(1);
  });

  it('refuses a core that speaks another API version', () => {
    latest().isOpen = true;
    latest().handlers.text(JSON.stringify({ type: 'hello', apiVersion: 99, state: STATE }));
    expect(problems[0]).toMatch(/API version 99/);
    expect(core.status).toBe('connecting');
  });

  it('stops cleanly', () => {
    latest().accept();
    core.stop();
    expect(sockets[0]!.closedWith).toBe(1000);
    expect(clock.pendingCount).toBe(0);
  });
});
