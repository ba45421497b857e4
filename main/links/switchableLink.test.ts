import { describe, expect, it } from 'vitest';
import { ScriptedLink } from '../../test/fakes/scriptedLink.ts';
import { DEFAULT_TOPIC_MAP } from '../core/link.ts';
import type { Imu, Received, Twist } from '../core/messages.ts';
import { SwitchableLink } from './switchableLink.ts';

const IMU: Imu = {
  kind: 'Imu',
  frameId: 'base',
  orientation: { x: 0, y: 0, z: 0, w: 1 },
  angularVelocityRadps: { x: 0, y: 0, z: 0 },
  linearAccelerationMps2: { x: 0, y: 0, z: 0 },
};
const FORWARD: Twist = { kind: 'Twist', linearMps: { x: 0.3, y: 0, z: 0 }, angularRadps: { x: 0, y: 0, z: 0 } };

describe('SwitchableLink', () => {
  it('keeps its subscribers across a switch and hears only the robot attached now', () => {
    const first = new ScriptedLink('first');
    const second = new ScriptedLink('second');
    const link = new SwitchableLink(first);
    const heard: Array<Received<Imu>> = [];
    link.subscribe<Imu>('/imu', (received) => heard.push(received));

    first.deliver('/imu', IMU, 1);
    expect(link.switchTo(second)).toBe(first);
    first.deliver('/imu', IMU, 2);
    second.deliver('/imu', IMU, 3);

    expect(heard.map((received) => received.receiveTimeMs)).toEqual([1, 3]);
    expect(first.subscribedTopics()).toEqual([]);
    expect(second.subscribedTopics()).toEqual(['/imu']);
    expect(link.robotName).toBe('second');
  });

  it('publishes to the robot attached now, and never replays a command dropped before the switch', () => {
    const first = new ScriptedLink('first', 'reconnecting');
    const second = new ScriptedLink('second');
    const link = new SwitchableLink(first);

    expect(link.publish('/cmd_vel', FORWARD)).toBe(false);
    link.switchTo(second);
    expect(second.published).toEqual([]);
    expect(link.publish('/cmd_vel', FORWARD)).toBe(true);
    expect(second.published).toEqual([{ topic: '/cmd_vel', twist: FORWARD }]);
    expect(first.published).toEqual([]);
  });

  it('forwards presence and alerts of the attached robot only, and tells listeners on a switch', () => {
    const first = new ScriptedLink('first');
    const second = new ScriptedLink('second', 'connecting');
    const link = new SwitchableLink(first);
    const presences: string[] = [];
    const alertKeys: string[][] = [];
    link.on('presence', (presence) => presences.push(presence));
    link.on('alerts', (alerts) => alertKeys.push(alerts.map((alert) => alert.key)));

    first.setPresence('reconnecting');
    link.switchTo(second);
    first.setPresence('closed');
    first.raise([{ key: 'old', severity: 'warn', message: 'old robot' }]);
    second.raise([{ key: 'new', severity: 'info', message: 'new robot' }]);
    second.setPresence('present');

    expect(presences).toEqual(['reconnecting', 'connecting', 'present']);
    expect(alertKeys).toEqual([[], ['new']]);
    expect(link.alerts().map((alert) => alert.key)).toEqual(['new']);
  });

  it("maps the loop's topics onto the attached robot's topic map", () => {
    const first = new ScriptedLink('first');
    const renamed = new ScriptedLink('renamed', 'present', [{ topic: '/front/imu', kind: 'Imu' }]);
    const link = new SwitchableLink(first);
    const heard: string[] = [];
    link.subscribe<Imu>('/imu', (received) => heard.push(received.topic));

    link.switchTo(renamed, { ...DEFAULT_TOPIC_MAP, imu: '/front/imu', command: '/base/cmd_vel' });
    renamed.deliver('/front/imu', IMU);
    link.publish('/cmd_vel', FORWARD);

    expect(heard).toEqual(['/front/imu']);
    expect(renamed.published.map((sent) => sent.topic)).toEqual(['/base/cmd_vel']);
    expect(link.topics()).toEqual([{ topic: '/imu', kind: 'Imu' }]);
  });

  it('closes without closing the robot behind it (its opener does)', async () => {
    const robot = new ScriptedLink('robot');
    const link = new SwitchableLink(robot);
    link.subscribe('/imu', () => undefined);
    await link.close();
    expect(link.presence()).toBe('closed');
    expect(robot.closed).toBe(false);
    expect(robot.subscribedTopics()).toEqual([]);
    expect(link.publish('/cmd_vel', FORWARD)).toBe(false);
  });
});
