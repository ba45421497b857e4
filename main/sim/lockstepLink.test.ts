import { describe, it, expect } from 'vitest';
import { DEFAULT_TOPIC_MAP, type LinkPresence } from '../core/link.ts';
import { twistFromDrive, type Received } from '../core/messages.ts';
import { createSimLink, type LockstepLink } from './lockstepLink.ts';

const EPOCH_MS = 1_700_000_000_000;

function recordEverything(link: LockstepLink): Received[] {
  const received: Received[] = [];
  for (const { topic } of link.topics()) link.subscribe(topic, (message) => received.push(message));
  return received;
}

/** A short scripted drive: forward, then a turn, then silence. */
function drive(link: LockstepLink): void {
  for (let i = 0; i < 10; i++) {
    link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive({ linearMps: 0.4, angularRadps: i < 5 ? 0 : 1 }));
    link.advance(0.1);
  }
}

describe('LockstepLink', () => {
  it('offers the five sensor topics and sends each at its rate, stamped on the simulated clock', () => {
    const link = createSimLink({ epochMs: EPOCH_MS });
    expect(link.topics()).toEqual([
      { topic: '/camera/image_raw', kind: 'Image' },
      { topic: '/scan', kind: 'LaserScan' },
      { topic: '/joint_states', kind: 'JointState' },
      { topic: '/imu', kind: 'Imu' },
      { topic: '/odom', kind: 'Odometry' },
    ]);
    const received = recordEverything(link);
    link.advance(1);
    const count = (topic: string): number => received.filter((message) => message.topic === topic).length;
    expect(count('/camera/image_raw')).toBe(15);
    expect(count('/scan')).toBe(10);
    expect(count('/joint_states')).toBe(50);
    expect(count('/imu')).toBe(100);
    expect(count('/odom')).toBe(50);
    for (const { topic } of link.topics()) {
      const kinds = new Set(received.filter((message) => message.topic === topic).map((message) => message.msg.kind));
      expect([...kinds]).toEqual([link.topics().find((info) => info.topic === topic)?.kind]);
    }
    const cameraStampsMs = received.filter((message) => message.topic === '/camera/image_raw').map((message) => message.sourceTimeMs);
    cameraStampsMs.slice(1).forEach((stampMs, index) => {
      expect(Math.abs(stampMs - (cameraStampsMs[index] ?? 0) - 1000 / 15)).toBeLessThanOrEqual(10 + 1e-6);
    });
    expect(received.every((message) => message.receiveTimeMs === message.sourceTimeMs)).toBe(true);
    expect(received.at(-1)?.sourceTimeMs).toBe(EPOCH_MS + 1000);
    expect(link.clockMs()).toBe(EPOCH_MS + 1000);
  });

  it('sends identical messages for identical seeds and commands, and different ones for another episode', () => {
    const runs = [1, 1, 2].map((episodeSeed) => {
      const link = createSimLink({ arenaSeed: 3, episodeSeed, epochMs: EPOCH_MS, camera: { widthPx: 32, heightPx: 24 } });
      const received = recordEverything(link);
      drive(link);
      return received;
    });
    expect(runs[0]).toHaveLength(225);
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).not.toEqual(runs[0]);
  });

  it('drives the robot with Twists on the command topic only', () => {
    const link = createSimLink({ epochMs: EPOCH_MS });
    const start = link.robot.groundTruth().pose;
    expect(link.publish('/not_cmd_vel', twistFromDrive({ linearMps: 0.4, angularRadps: 0 }))).toBe(false);
    link.advance(0.3);
    expect(link.robot.groundTruth().pose).toEqual(start);
    expect(link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive({ linearMps: 0, angularRadps: 1 }))).toBe(true);
    link.advance(0.3);
    expect(link.robot.groundTruth().pose.yawRad).not.toBe(start.yawRad);
  });

  it('stops delivering to a subscriber that unsubscribed', () => {
    const link = createSimLink({ epochMs: EPOCH_MS });
    let scans = 0;
    const unsubscribe = link.subscribe(DEFAULT_TOPIC_MAP.scan, () => scans++);
    link.advance(0.5);
    expect(scans).toBe(5);
    unsubscribe();
    link.advance(0.5);
    expect(scans).toBe(5);
  });

  it('is present and simulated until closed; after close it drops commands and sends nothing', async () => {
    const link = createSimLink({ epochMs: EPOCH_MS });
    expect(link.presence()).toBe('present');
    expect(link.capabilities).toEqual({ sendsCommands: true, simulated: true });
    expect(link.robotName).toBe('reins-sim');
    const presences: LinkPresence[] = [];
    link.on('presence', (presence) => presences.push(presence));
    const received = recordEverything(link);
    await link.close();
    expect(presences).toEqual(['closed']);
    expect(link.presence()).toBe('closed');
    expect(link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive({ linearMps: 0.3, angularRadps: 0 }))).toBe(false);
    link.advance(1);
    expect(received).toHaveLength(0);
  });

  it('publishes alerts to listeners until they unsubscribe', () => {
    const link = createSimLink({ epochMs: EPOCH_MS });
    const seen: number[] = [];
    const unsubscribe = link.on('alerts', (alerts) => seen.push(alerts.length));
    link.raiseAlert({ key: 'a', severity: 'warn', message: 'first' });
    link.raiseAlert({ key: 'a', severity: 'warn', message: 'replaced' });
    expect(link.alerts()).toEqual([{ key: 'a', severity: 'warn', message: 'replaced' }]);
    link.clearAlert('a');
    unsubscribe();
    link.raiseAlert({ key: 'b', severity: 'info', message: 'unheard' });
    expect(seen).toEqual([1, 1, 0]);
  });
});
