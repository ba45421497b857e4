// set-scene on one UI socket: the scene streams on that socket in the frame it asks for, ends with
// `off` or with the socket, and a set-scene that says neither (or both) is answered with an error.
import { EventEmitter } from 'node:events';
import pino from 'pino';
import type { WebSocket } from 'ws';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CockpitState, Event } from '../core/contract.ts';
import { ScriptedLink } from '../../test/fakes/scriptedLink.ts';
import type { CockpitApi } from './cockpitService.ts';
import { SCENE_PERIOD_MS, SceneFeed } from './sceneFeed.ts';
import { SceneSource } from './sceneSource.ts';
import { SocketSession } from './socketSession.ts';

/** The part of a `ws` socket a session uses. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly events: Event[] = [];

  send(data: string | Uint8Array): void {
    if (typeof data === 'string') this.events.push(JSON.parse(data) as Event);
  }

  request(body: object): void {
    this.emit('message', Buffer.from(JSON.stringify(body)), false);
  }

  scenes(): Array<Extract<Event, { type: 'scene' }>> {
    return this.events.filter((event) => event.type === 'scene');
  }
}

let link: ScriptedLink;
let socket: FakeSocket;
let session: SocketSession;

beforeEach(() => {
  vi.useFakeTimers();
  link = new ScriptedLink('rover', 'present', [
    { topic: '/tf', kind: 'RosFields', type: 'tf2_msgs/TFMessage' },
    { topic: '/tf_static', kind: 'RosFields', type: 'tf2_msgs/TFMessage' },
  ]);
  const source = new SceneSource(link, { clock: Date.now, sensorFrames: () => ({}) });
  // Only what a session reaches for with set-scene; the rest of the cockpit is not under test here.
  const api = {
    state: () => ({}) as CockpitState,
    onPreviewReady: () => () => undefined,
    cameraPreview: () => undefined,
    scanPreview: () => undefined,
    pointCloudPreview: () => undefined,
    openScene: (fixedFrame, options) => new SceneFeed(source, fixedFrame, options),
  } as Partial<CockpitApi> as CockpitApi;
  socket = new FakeSocket();
  session = new SocketSession(socket as unknown as WebSocket, api, pino({ level: 'silent' }));
});
afterEach(() => {
  session.dispose();
  vi.useRealTimers();
});

describe('set-scene on a UI socket', () => {
  it('streams the scene in the frame asked for, then in another, and stops on off', () => {
    socket.request({ type: 'set-scene', id: 'a', fixedFrame: 'odom' });
    expect(socket.events.find((event) => event.type === 'ack')).toEqual({ type: 'ack', id: 'a', requestType: 'set-scene' });
    expect(link.subscribedTopics()).toEqual(['/tf', '/tf_static']);
    vi.advanceTimersByTime(SCENE_PERIOD_MS * 3);
    expect(socket.scenes().length).toBeGreaterThanOrEqual(3);
    expect(socket.scenes().every((scene) => scene.fixedFrame === 'odom')).toBe(true);

    socket.request({ type: 'set-scene', fixedFrame: 'map' });
    expect(socket.scenes().at(-1)?.fixedFrame).toBe('map');

    socket.request({ type: 'set-scene', off: true });
    expect(link.subscribedTopics()).toEqual([]);
    const sent = socket.scenes().length;
    vi.advanceTimersByTime(SCENE_PERIOD_MS * 3);
    expect(socket.scenes().length).toBe(sent);
  });

  it('ends the scene with the socket', () => {
    socket.request({ type: 'set-scene', fixedFrame: 'odom' });
    socket.emit('close');
    expect(link.subscribedTopics()).toEqual([]);
  });

  it('answers a set-scene with neither a frame nor off, or with both, with an error', () => {
    socket.request({ type: 'set-scene', id: 'b' });
    socket.request({ type: 'set-scene', id: 'c', fixedFrame: 'map', off: true });
    expect(socket.events.filter((event) => event.type === 'error')).toEqual([
      { type: 'error', error: { code: 'bad-request', message: 'set-scene needs a fixedFrame (such as map or odom), or off: true', id: 'b' } },
      { type: 'error', error: { code: 'bad-request', message: 'set-scene takes a fixedFrame or off: true, not both', id: 'c' } },
    ]);
    expect(link.subscribedTopics()).toEqual([]);
  });

  it('refuses a fixed frame that is not a frame id, before anything streams', () => {
    socket.request({ type: 'set-scene', fixedFrame: 'map frame' });
    expect(socket.events.at(-1)).toMatchObject({ type: 'error', error: { code: 'bad-request' } });
    expect(socket.scenes()).toEqual([]);
  });
});
