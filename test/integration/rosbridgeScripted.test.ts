// The rosbridge link over scripted sockets and a manual clock: every moment of a dropout (connecting,
// open, dropped, reconnecting, open again) is chosen by the test, so the no-replay guarantee is
// checked at each of them, beside the roslib behaviour it guards against.
import { describe, expect, it } from 'vitest';
import { twistFromDrive } from '../../main/core/messages.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import { ROSLIB } from '../../main/links/rosbridge/roslib.ts';
import { RosbridgeTransport } from '../../main/links/rosbridge/rosbridgeTransport.ts';
import { FakeSocketPort } from '../fakes/fakeSocketPort.ts';
import { ManualClock } from '../fakes/manualClock.ts';

/** Lets roslib finish attaching to a new transport (it does so after an await), as a real socket would. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const drive = (linearMps: number) => twistFromDrive({ linearMps, angularRadps: 0 });

function publishedSpeeds(socket: FakeSocketPort): number[] {
  return socket
    .sentMessages()
    .filter((message) => message['op'] === 'publish')
    .map((message) => (message['msg'] as { linear: { x: number } }).linear.x);
}

function scriptedLink() {
  const clock = new ManualClock(1_700_000_000_000);
  const sockets: FakeSocketPort[] = [];
  const link = new RosbridgeLink({
    url: 'ws://robot.local:9090',
    // The scripted sockets answer no rosapi call, so the command type is named (else no command goes out).
    topicTypes: { command: 'geometry_msgs/Twist' },
    clock,
    random: () => 0,
    openSocket: () => {
      const socket = new FakeSocketPort();
      sockets.push(socket);
      return socket;
    },
    timings: { pingIntervalMs: 1000, silenceTimeoutMs: 3000, backoff: { initialMs: 250, maxMs: 5000, factor: 2, jitter: 0.2 } },
  });
  return { clock, sockets, link };
}

describe('RosbridgeLink over scripted sockets', () => {
  it('sends a command only on an open socket: nothing from before or during a dropout follows it to the next connection', async () => {
    const { clock, sockets, link } = scriptedLink();
    expect(link.publish('/cmd_vel', drive(0.1))).toBe(false);
    await settle();
    sockets[0]!.open();
    expect(link.presence()).toBe('present');
    expect(link.publish('/cmd_vel', drive(0.2))).toBe(true);
    sockets[0]!.drop('network unreachable');
    expect(link.presence()).toBe('reconnecting');
    expect(link.publish('/cmd_vel', drive(0.3))).toBe(false);
    clock.advance(249);
    expect(sockets).toHaveLength(1);
    clock.advance(1);
    expect(sockets).toHaveLength(2);
    expect(link.publish('/cmd_vel', drive(0.4))).toBe(false);
    await settle();
    sockets[1]!.open();
    expect(link.publish('/cmd_vel', drive(0.5))).toBe(true);
    expect(publishedSpeeds(sockets[0]!)).toEqual([0.2]);
    expect(publishedSpeeds(sockets[1]!)).toEqual([0.5]);
    // The new connection advertised before its first command, and sent no publish before it.
    const ops = sockets[1]!.sentMessages().map((message) => message['op']);
    expect(ops.indexOf('advertise')).toBeLessThan(ops.indexOf('publish'));
    await link.close();
  });

  it('(why the guard exists) a roslib Ros reconnected by hand replays what was published while it was down', async () => {
    const clock = new ManualClock();
    const sockets = [new FakeSocketPort(), new FakeSocketPort()];
    let next = 0;
    const ros = new ROSLIB.Ros({ transportFactory: () => Promise.resolve(new RosbridgeTransport(sockets[next++]!, clock)) });
    await ros.connect('ws://robot.local:9090');
    sockets[0]!.open();
    const topic = new ROSLIB.Topic({ ros, name: '/cmd_vel', messageType: 'geometry_msgs/Twist' });
    topic.publish({ linear: { x: 0.2, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } });
    sockets[0]!.drop();
    topic.publish({ linear: { x: 0.9, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } });
    await ros.connect('ws://robot.local:9090');
    sockets[1]!.open();
    expect(publishedSpeeds(sockets[1]!)).toEqual([0.9]);
    ros.close();
  });

  it('drops a connection that stops answering and says why', async () => {
    const { clock, sockets, link } = scriptedLink();
    await settle();
    sockets[0]!.open();
    clock.advance(3000);
    expect(link.presence()).toBe('present');
    clock.advance(1000);
    expect(link.presence()).toBe('reconnecting');
    expect(link.alerts().find((alert) => alert.key === 'connection')?.message).toMatch(/no answer from the robot for 3000 ms/);
    await link.close();
    expect(sockets[1]).toBeUndefined();
    clock.advance(60_000);
    expect(sockets).toHaveLength(1);
  });

  it('keeps reconnecting with growing, capped delays while the robot is unreachable', async () => {
    const { clock, sockets, link } = scriptedLink();
    const gapsMs: number[] = [];
    let lastMs = clock.nowMs();
    for (let attempt = 0; attempt < 7; attempt++) {
      sockets.at(-1)!.drop('connection refused');
      await settle();
      const before = sockets.length;
      for (let waitedMs = 0; sockets.length === before && waitedMs < 10_000; waitedMs++) clock.advance(1);
      gapsMs.push(clock.nowMs() - lastMs);
      lastMs = clock.nowMs();
    }
    expect(gapsMs).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
    expect(link.presence()).toBe('reconnecting');
    expect(link.alerts()[0]).toMatchObject({
      key: 'connection',
      message: expect.stringContaining('Cannot reach the robot at ws://robot.local:9090 (connection refused)'),
    });
    void link.close();
  });
});
