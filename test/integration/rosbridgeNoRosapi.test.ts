// A robot whose rosbridge_server runs without rosapi (`reins sim --no-rosapi`): the link cannot list
// topics or types, so ROS 1 or ROS 2 is learned from what the robot sends (a header stamp of
// `{sec, nanosec}` or `{secs, nsecs}`), never assumed: until then the types are unknown, not ROS 1
// names. The command topic's type cannot be learned, so no command is sent, with an error in words,
// unless it was given. And a topic set to cbor-raw on a ROS 1 robot is asked for as CBOR: the link
// never asks a ROS 1 rosbridge for cbor-raw (which it would answer with ROS 1 serialised bytes).
import { afterEach, describe, expect, it } from 'vitest';
import type { Image, Odometry, Received } from '../../main/core/messages.ts';
import { twistFromDrive, type DriveCommand } from '../../main/core/messages.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import type { RosbridgeLinkOptions, RosbridgeTimings } from '../../main/links/rosbridge/rosbridgeOptions.ts';
import { startSimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { waitFor, waitForPresence } from '../support/linkEvents.ts';
import { WaitableLog } from '../support/waitableLog.ts';

const FAST: Partial<RosbridgeTimings> = { backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0.2 }, serviceTimeoutMs: 1000 };

class CommandLoggingRobot extends SimRobot {
  readonly taken = new WaitableLog<DriveCommand>('commands the robot took');

  override drive(command: DriveCommand, ageSecs = 0): boolean {
    this.taken.push({ linearMps: command.linearMps, angularRadps: command.angularRadps });
    return super.drive(command, ageSecs);
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function robotWithoutRosapi(
  rosVersion: 1 | 2,
  options: Partial<RosbridgeLinkOptions> = {},
): Promise<{ robot: CommandLoggingRobot; link: RosbridgeLink }> {
  const robot = new CommandLoggingRobot({ arenaSeed: 3, episodeSeed: 5, camera: { widthPx: 32, heightPx: 24, rateHz: 10 }, scan: { beams: 90, rateHz: 10 } });
  const server = await startSimRosbridgeServer({ robot, port: 0, rosVersion, rosapi: false });
  cleanups.push(() => server.close());
  const link = new RosbridgeLink({ url: server.url, timings: FAST, ...options });
  cleanups.push(() => link.close());
  await waitForPresence(link, 'present');
  await waitFor('the rosapi alert', (resolve) => {
    const check = (): void => void (link.alerts().some((alert) => alert.key === 'rosapi') && resolve(undefined));
    check();
    return link.on('alerts', check);
  });
  return { robot, link };
}

async function firstOdometry(link: RosbridgeLink): Promise<Received<Odometry>> {
  const odom = new WaitableLog<Received<Odometry>>('/odom');
  const unsubscribe = link.subscribe<Odometry>('/odom', (received) => odom.push(received));
  try {
    await odom.until((items) => items.length > 0, 'odometry');
    return odom.items[0]!;
  } finally {
    unsubscribe();
  }
}

describe('a ROS 2 robot whose rosbridge runs without rosapi', () => {
  it('says the types are unknown until a message tells ROS 2, then names them as ROS 2 does and records them as ROS 2', async () => {
    const { link } = await robotWithoutRosapi(2);
    expect(link.rosVersion()).toBeUndefined();
    expect(link.topics().find((topic) => topic.topic === '/camera/image_raw')).toEqual({ topic: '/camera/image_raw', kind: 'Image' });
    expect(link.topics().every((topic) => topic.type === undefined)).toBe(true);

    const odom = await firstOdometry(link);
    expect(link.rosVersion()).toBe(2);
    // The first message itself already carries the ROS 2 origin the recorder writes CDR from.
    expect(odom.ros2).toMatchObject({ rosType: 'nav_msgs/msg/Odometry' });
    expect(link.topics()).toEqual(
      expect.arrayContaining([
        { topic: '/camera/image_raw', kind: 'Image', type: 'sensor_msgs/msg/Image' },
        { topic: '/odom', kind: 'Odometry', type: 'nav_msgs/msg/Odometry' },
      ]),
    );
  });

  it('sends no command when the command type cannot be learned, and says why', async () => {
    const { robot, link } = await robotWithoutRosapi(2);
    await firstOdometry(link);
    for (let attempt = 0; attempt < 5; attempt++) expect(link.publish('/cmd_vel', twistFromDrive({ linearMps: 0.3, angularRadps: 0 }))).toBe(false);
    expect(link.alerts().find((alert) => alert.key === 'command-type:/cmd_vel')).toMatchObject({
      severity: 'error',
      message: expect.stringMatching(/cannot be learned.*no command is sent/),
      hint: expect.stringMatching(/rosapi/),
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(robot.taken.items.filter((command) => command.linearMps !== 0)).toEqual([]);
  });

  it('drives in the command type it was given (TwistStamped on this Jazzy-like robot)', async () => {
    const { robot, link } = await robotWithoutRosapi(2, { topicTypes: { command: 'geometry_msgs/msg/TwistStamped' } });
    const send = setInterval(() => link.publish('/cmd_vel', twistFromDrive({ linearMps: 0, angularRadps: 0.8 })), 50);
    try {
      await robot.taken.until((items) => items.some((command) => command.angularRadps === 0.8), 'the robot taking the command');
    } finally {
      clearInterval(send);
    }
    expect(link.alerts().find((alert) => alert.key === 'command-type:/cmd_vel')).toBeUndefined();
  });
});

describe('a ROS 1 robot without rosapi', () => {
  it('is told ROS 1 from its messages and keeps ROS 1 names; nothing is marked for ROS 2 recording', async () => {
    const { link } = await robotWithoutRosapi(1);
    expect(link.rosVersion()).toBeUndefined();
    const odom = await firstOdometry(link);
    expect(link.rosVersion()).toBe(1);
    expect(odom.ros2).toBeUndefined();
    expect(link.topics().find((topic) => topic.topic === '/odom')).toEqual({ topic: '/odom', kind: 'Odometry', type: 'nav_msgs/Odometry' });
  });

  it('asks for CBOR, never cbor-raw, where a topic is set to cbor-raw, and says so', async () => {
    const { link } = await robotWithoutRosapi(1, { compression: { '/camera/image_raw': 'cbor-raw' } });
    const images = new WaitableLog<Image>('/camera/image_raw');
    cleanups.push(link.subscribe<Image>('/camera/image_raw', (received) => images.push(received.msg)));
    await images.until((items) => items.length > 0, 'a camera frame over CBOR');
    expect(images.items[0]).toMatchObject({ kind: 'Image', width: 32, height: 24 });
    expect(link.alerts().find((alert) => alert.key === 'schema:/camera/image_raw')?.message).toMatch(/cbor-raw.*receiving it as CBOR/);
  });
});
