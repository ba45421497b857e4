// The simulated robot served as foxglove_bridge: its transient-local channels (/tf_static,
// /robot_description, /map) reach every client as it subscribes, however late, and only once; /tf
// goes with the odometry, stamped alike; /plan and /markers once a second. Read with @foxglove/ws-protocol's client and the channels'
// own ros2msg schemas.
import { parse } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg2-serialization';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFoxgloveSim } from '../../../test/support/foxgloveSim.ts';
import { WaitableLog } from '../../../test/support/waitableLog.ts';
import { FoxgloveClient, type Channel, type IWebSocket } from '../../links/foxglove/wsProtocol.ts';
import { OCCUPIED } from '../occupancyGrid.ts';
import { LIDAR_HOUSING_URI } from '../robotMeshes.ts';
import { robotModel } from '../robotModel.ts';
import { SimRobot } from '../simRobot.ts';
import { FOXGLOVE_SDK_SUBPROTOCOL } from './server.ts';

type Time = { sec: number; nanosec: number };
interface Received {
  topic: string;
  subscriptionId: number;
  msg: Record<string, unknown>;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A foxglove client that subscribes to topics by name and decodes what arrives with each channel's schema. */
async function connect(url: string) {
  const socket = new WebSocket(url, [FOXGLOVE_SDK_SUBPROTOCOL]);
  const client = new FoxgloveClient({ ws: socket as unknown as IWebSocket });
  cleanups.push(() => client.close());
  const channels = new WaitableLog<Channel>('advertised channels');
  const received = new WaitableLog<Received>('messages');
  const bySubscription = new Map<number, { channel: Channel; reader: MessageReader }>();
  client.on('advertise', (advertised) => advertised.forEach((channel) => channels.push(channel)));
  client.on('message', ({ subscriptionId, data }) => {
    const subscription = bySubscription.get(subscriptionId);
    if (subscription === undefined) {
      received.push({ topic: '?', subscriptionId, msg: {} });
      return;
    }
    received.push({ topic: subscription.channel.topic, subscriptionId, msg: subscription.reader.readMessage(data) });
  });
  await channels.until((items) => items.some((channel) => channel.topic === '/map'), 'the map channel');
  const subscribe = (topic: string): number => {
    const channel = channels.items.find((each) => each.topic === topic)!;
    const subscriptionId = client.subscribe(channel.id);
    bySubscription.set(subscriptionId, { channel, reader: new MessageReader(parse(channel.schema, { ros2: true })) });
    return subscriptionId;
  };
  const of = (topic: string) => received.items.filter((each) => each.topic === topic);
  return { client, channels, received, subscribe, of };
}

const LATCHED = ['/tf_static', '/robot_description', '/map'] as const;

describe('the simulated robot as foxglove_bridge: its model, TF and map', () => {
  it('sends the transient-local channels to each client as it subscribes, and /tf with the odometry', async () => {
    const robot = new SimRobot({ arenaSeed: 3, episodeSeed: 5, camera: { widthPx: 32, heightPx: 24 }, scan: { beams: 90 }, points: { enabled: false } });
    const sim = await startFoxgloveSim(robot, { commandType: 'twist-stamped' });
    cleanups.push(() => sim.close());
    await new Promise((resolve) => setTimeout(resolve, 150));

    const first = await connect(sim.foxglove.url);
    expect(first.channels.items.find((channel) => channel.topic === '/tf_static')).toMatchObject({ encoding: 'cdr', schemaName: 'tf2_msgs/msg/TFMessage' });
    for (const topic of LATCHED) first.subscribe(topic);
    await first.received.until(() => LATCHED.every((topic) => first.of(topic).length === 1), 'the latched messages');
    const transforms = first.of('/tf_static')[0]!.msg['transforms'] as Array<{ header: { stamp: Time; frame_id: string }; child_frame_id: string }>;
    expect(transforms.map((each) => `${each.header.frame_id}→${each.child_frame_id}`)).toEqual([
      'base_link→laser',
      'base_link→camera_link',
      'base_link→imu_link',
    ]);
    expect(Math.abs(transforms[0]!.header.stamp.sec - Date.now() / 1000)).toBeLessThan(60);
    expect(first.of('/robot_description')[0]!.msg['data']).toBe(robotModel({ points: robot.pointsOptions, laserMeshUri: LIDAR_HOUSING_URI }).urdf);
    const map = first.of('/map')[0]!.msg as { header: { frame_id: string }; info: { width: number; height: number }; data: Int8Array };
    expect([map.header.frame_id, map.info.width, map.info.height, map.data.length]).toEqual(['map', 128, 128, 128 * 128]);
    expect(map.data[64 * 128 + 1], 'a cell of the west wall').toBe(OCCUPIED);

    // A second client, later, gets them too; the first nothing twice; a second subscription to a channel nothing.
    const second = await connect(sim.foxglove.url);
    for (const topic of LATCHED) second.subscribe(topic);
    await second.received.until(() => LATCHED.every((topic) => second.of(topic).length === 1), 'the latched messages, for a second client');
    const again = second.client.subscribe(second.channels.items.find((channel) => channel.topic === '/map')!.id);

    // /tf: odom → base_link with the odometry's pose and stamp.
    first.subscribe('/odom');
    first.subscribe('/tf');
    await first.received.until(
      (items) => items.some((item) => item.topic === '/tf') && items.some((item) => item.topic === '/odom'),
      'odometry and transforms',
    );
    const odom = first.of('/odom')[0]!.msg as { header: { stamp: Time }; pose: { pose: { position: { x: number; y: number } } } };
    await first.received.until(
      () =>
        first
          .of('/tf')
          .some((tf) => (tf.msg['transforms'] as Array<{ header: { stamp: Time } }>).some((each) => sameTime(each.header.stamp, odom.header.stamp))),
      'the transforms stamped as the odometry',
    );
    const withOdom = first
      .of('/tf')
      .map(
        (tf) =>
          tf.msg['transforms'] as Array<{
            header: { stamp: Time; frame_id: string };
            child_frame_id: string;
            transform: { translation: { x: number; y: number } };
          }>,
      )
      .find((tfs) => tfs.some((each) => sameTime(each.header.stamp, odom.header.stamp)))!;
    const base = withOdom.find((each) => each.child_frame_id === 'base_link')!;
    expect(base.header.frame_id).toBe('odom');
    expect(base.transform.translation).toMatchObject(odom.pose.pose.position);

    for (const topic of LATCHED) expect(first.of(topic), topic).toHaveLength(1);
    expect(second.received.items.filter((item) => item.subscriptionId === again)).toEqual([]);
  });

  it('sends the planned route on /plan and the markers on /markers, as ROS 2 types in CDR', async () => {
    const robot = new SimRobot({ arenaSeed: 3, episodeSeed: 5, camera: { widthPx: 32, heightPx: 24 }, scan: { beams: 90 }, points: { enabled: false } });
    const sim = await startFoxgloveSim(robot, { commandType: 'twist' });
    cleanups.push(() => sim.close());
    const watcher = await connect(sim.foxglove.url);
    expect(watcher.channels.items.find((channel) => channel.topic === '/plan')).toMatchObject({ encoding: 'cdr', schemaName: 'nav_msgs/msg/Path' });
    expect(watcher.channels.items.find((channel) => channel.topic === '/markers')).toMatchObject({ schemaName: 'visualization_msgs/msg/MarkerArray' });
    watcher.subscribe('/plan');
    watcher.subscribe('/markers');
    await watcher.received.until(() => watcher.of('/plan').length > 0 && watcher.of('/markers').length > 0, 'a plan and markers');
    const plan = watcher.of('/plan')[0]!.msg as { header: { frame_id: string }; poses: Array<{ pose: { position: { x: number; y: number } } }> };
    const { goal } = robot.groundTruth();
    expect(plan.header.frame_id).toBe('map');
    const end = plan.poses.at(-1)!.pose.position;
    expect(Math.hypot(end.x - goal.xM, end.y - goal.yM)).toBeLessThan(0.05);
    const { markers } = watcher.of('/markers')[0]!.msg as { markers: Array<{ ns: string; type: number; action: number; text: string; lifetime: Time }> };
    expect(markers[0]!.action).toBe(3);
    expect(markers.find((marker) => marker.type === 9)?.text).toBe('goal');
    expect(markers.filter((marker) => marker.ns === 'obstacles')).toHaveLength(robot.arena.obstacles.length);
  });
});

function sameTime(a: Time, b: Time): boolean {
  return a.sec === b.sec && a.nanosec === b.nanosec;
}
