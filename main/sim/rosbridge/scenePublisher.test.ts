// The simulated robot's model, TF and map over its real rosbridge server, in both personas: the
// latched topics reach clients that subscribe long after they were published (each of them), /tf
// carries the pose /odom does with the same stamp, map → odom → base_link lands on the true pose even
// after the robot is carried off, and the map marks the walls and leaves the robot's place free.
import { parse } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg2-serialization';
import { afterEach, describe, expect, it } from 'vitest';
import { SimRosbridgeClient, type ReceivedFrame } from '../../../test/support/simRosbridgeClient.ts';
import { fullRos2MessageDefinition } from '../../core/rosMessageDefinitions.ts';
import { cellIndexAt, episodeMap, OCCUPIED, FREE, type OccupancyGrid } from '../occupancyGrid.ts';
import { robotModel } from '../robotModel.ts';
import { SimRobot } from '../simRobot.ts';
import { startSimRosbridgeServer, type SimRosbridgeServer } from './server.ts';

type Stamp = { secs: number; nsecs: number } | { sec: number; nanosec: number };
interface Header {
  seq?: number;
  stamp: Stamp;
  frame_id: string;
}
interface TransformStamped {
  header: Header;
  child_frame_id: string;
  transform: { translation: { x: number; y: number; z: number }; rotation: { x: number; y: number; z: number; w: number } };
}
interface TfMessage {
  transforms: TransformStamped[];
}
interface OccupancyGridMessage {
  header: Header;
  info: { map_load_time: Stamp; resolution: number; width: number; height: number; origin: { position: { x: number; y: number } } };
  data: number[];
}
interface OdometryMessage {
  header: Header;
  pose: { pose: { position: { x: number; y: number }; orientation: { z: number; w: number } } };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function robotServer(rosVersion: 1 | 2): Promise<{ robot: SimRobot; server: SimRosbridgeServer }> {
  const robot = new SimRobot({ arenaSeed: 3, episodeSeed: 5, camera: { widthPx: 32, heightPx: 24 }, scan: { beams: 90 }, points: { enabled: false } });
  const server = await startSimRosbridgeServer({ robot, port: 0, rosVersion });
  cleanups.push(() => server.close());
  return { robot, server };
}

async function client(server: SimRosbridgeServer): Promise<SimRosbridgeClient> {
  const opened = await SimRosbridgeClient.open(server.url);
  cleanups.push(() => opened.close());
  return opened;
}

function msgOf<T>(frame: ReceivedFrame): T {
  return frame.op['msg'] as T;
}

function stampMs(stamp: Stamp): number {
  return 'secs' in stamp ? stamp.secs * 1000 + stamp.nsecs / 1e6 : stamp.sec * 1000 + stamp.nanosec / 1e6;
}

/** A header as each persona writes it: ROS 1 with seq and {secs, nsecs}, ROS 2 without seq and {sec, nanosec}. */
function expectHeaderShape(header: Header, rosVersion: 1 | 2, frameId: string): void {
  expect(header.frame_id).toBe(frameId);
  if (rosVersion === 1) {
    expect(Object.keys(header)).toEqual(['seq', 'stamp', 'frame_id']);
    expect(Object.keys(header.stamp)).toEqual(['secs', 'nsecs']);
  } else {
    expect(Object.keys(header)).toEqual(['stamp', 'frame_id']);
    expect(Object.keys(header.stamp)).toEqual(['sec', 'nanosec']);
  }
  expect(Math.abs(stampMs(header.stamp) - Date.now())).toBeLessThan(60_000);
}

function cellAt(map: OccupancyGridMessage, xM: number, yM: number): number | undefined {
  const grid: OccupancyGrid = {
    resolutionM: map.info.resolution,
    width: map.info.width,
    height: map.info.height,
    originXM: map.info.origin.position.x,
    originYM: map.info.origin.position.y,
    cells: Int8Array.from(map.data),
  };
  const index = cellIndexAt(grid, xM, yM);
  return index === undefined ? undefined : grid.cells[index];
}

function yawOf({ z, w }: { z: number; w: number }): number {
  return 2 * Math.atan2(z, w);
}

const LATCHED = ['/tf_static', '/robot_description', '/map'] as const;

describe.each([1, 2] as const)('the simulated robot model, TF and map over rosbridge (ROS %i)', (rosVersion) => {
  it('latches /tf_static, /robot_description and /map for each client that subscribes, however late', async () => {
    const { robot, server } = await robotServer(rosVersion);
    // Published when the robot started; these clients come later.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const early = await client(server);
    for (const topic of LATCHED) early.send({ op: 'subscribe', topic });
    const [tfStatic] = await early.waitForPublished('/tf_static', 1);
    const [description] = await early.waitForPublished('/robot_description', 1);
    const [map] = await early.waitForPublished('/map', 1);

    const { transforms } = msgOf<TfMessage>(tfStatic!);
    expect(transforms.map((each) => `${each.header.frame_id}→${each.child_frame_id}`)).toEqual([
      'base_link→laser',
      'base_link→camera_link',
      'base_link→imu_link',
    ]);
    for (const transform of transforms) expectHeaderShape(transform.header, rosVersion, 'base_link');
    expect(transforms[0]!.transform.translation).toEqual({ x: 0, y: 0, z: 0.22 });
    expect(msgOf<{ data: string }>(description!).data).toBe(robotModel({ points: robot.pointsOptions }).urdf);

    const grid = msgOf<OccupancyGridMessage>(map!);
    expectHeaderShape(grid.header, rosVersion, 'map');
    expect(Object.keys(grid.info.map_load_time)).toEqual(rosVersion === 1 ? ['secs', 'nsecs'] : ['sec', 'nanosec']);
    expect([grid.info.width, grid.info.height, grid.info.resolution]).toEqual([128, 128, Math.fround(0.05)]);
    expect(grid.info.origin.position).toMatchObject({ x: -3.2, y: -3.2 });
    expect(grid.data).toHaveLength(128 * 128);
    expect(cellAt(grid, -3.1, 0), 'in the west wall').toBe(OCCUPIED);
    const { xM, yM } = robot.groundTruth().pose;
    expect(cellAt(grid, xM, yM), 'where the robot stands').toBe(FREE);

    // Another client, later still, gets them too; the first gets nothing twice.
    const late = await client(server);
    for (const topic of LATCHED) late.send({ op: 'subscribe', topic });
    for (const topic of LATCHED) expect((await late.waitForPublished(topic, 1))[0]!.op['msg']).toEqual(early.published(topic)[0]!.op['msg']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const topic of LATCHED) expect(early.published(topic)).toHaveLength(1);

    // A new episode moves the goal pillar: the map is published again, to whoever holds it.
    await early.call('/sim/reset', { seed: 9 });
    const [, newMap] = await early.waitForPublished('/map', 2);
    expect(msgOf<OccupancyGridMessage>(newMap!).data).toEqual(Array.from(episodeMap(robot).cells));
    expect(msgOf<OccupancyGridMessage>(newMap!).data).not.toEqual(grid.data);
  });

  it('sends odom → base_link on /tf with the pose and stamp of /odom, and map → odom onto the true pose', async () => {
    const { robot, server } = await robotServer(rosVersion);
    const watcher = await client(server);
    watcher.send({ op: 'subscribe', topic: '/odom' });
    watcher.send({ op: 'subscribe', topic: '/tf' });
    const tfMessages = (): TfMessage[] => watcher.published('/tf').map((frame) => msgOf<TfMessage>(frame));
    const [odomFrame] = await watcher.waitForPublished('/odom', 1);
    const odom = msgOf<OdometryMessage>(odomFrame!);
    await watcher.waitFor(() => tfMessages().some((tf) => tf.transforms.some((each) => stampMs(each.header.stamp) === stampMs(odom.header.stamp))));
    const withOdom = tfMessages().find((tf) => tf.transforms.some((each) => stampMs(each.header.stamp) === stampMs(odom.header.stamp)))!;
    const odomFromBase = withOdom.transforms.find((each) => each.child_frame_id === 'base_link')!;
    expectHeaderShape(odomFromBase.header, rosVersion, 'odom');
    expect(odomFromBase.transform.translation).toEqual({ ...odom.pose.pose.position, z: 0 });
    expect(odomFromBase.transform.rotation).toEqual({ x: 0, y: 0, ...odom.pose.pose.orientation });
    expect(withOdom.transforms.map((each) => each.child_frame_id)).toEqual(expect.arrayContaining(['base_link', 'left_wheel', 'right_wheel']));

    // Carried off without its odometry knowing: map → odom takes it up, and the robot is drawn where it is.
    const carriedTo = { xM: robot.groundTruth().pose.xM + 0.3, yM: robot.groundTruth().pose.yM, yawRad: 1 };
    robot.placeRobot(carriedTo);
    const seen = tfMessages().length;
    await watcher.waitFor(() =>
      tfMessages()
        .slice(seen)
        .some((tf) => tf.transforms.some((each) => each.child_frame_id === 'odom')),
    );
    const localised = tfMessages()
      .slice(seen)
      .find((tf) => tf.transforms.some((each) => each.child_frame_id === 'odom'))!;
    const mapFromOdom = localised.transforms.find((each) => each.child_frame_id === 'odom')!;
    const base = localised.transforms.find((each) => each.child_frame_id === 'base_link')!;
    expect(mapFromOdom.header.frame_id).toBe('map');
    const odomYawRad = yawOf(mapFromOdom.transform.rotation);
    const { x, y } = base.transform.translation;
    const inMap = {
      xM: mapFromOdom.transform.translation.x + Math.cos(odomYawRad) * x - Math.sin(odomYawRad) * y,
      yM: mapFromOdom.transform.translation.y + Math.sin(odomYawRad) * x + Math.cos(odomYawRad) * y,
      yawRad: odomYawRad + yawOf(base.transform.rotation),
    };
    expect(inMap.xM).toBeCloseTo(carriedTo.xM, 6);
    expect(inMap.yM).toBeCloseTo(carriedTo.yM, 6);
    expect(Math.cos(inMap.yawRad - carriedTo.yawRad)).toBeCloseTo(1, 9);
  });

  it('publishes the planned route to the goal on /plan and the goal and obstacles on /markers, once a second', async () => {
    const { robot, server } = await robotServer(rosVersion);
    const watcher = await client(server);
    watcher.send({ op: 'subscribe', topic: '/plan' });
    watcher.send({ op: 'subscribe', topic: '/markers' });
    const [first] = await watcher.waitForPublished('/plan', 1, 3000);
    const [markerFrame] = await watcher.waitForPublished('/markers', 1, 3000);
    const truth = robot.groundTruth();
    const plan = msgOf<{ header: Header; poses: Array<{ header: Header; pose: { position: { x: number; y: number } } }> }>(first!);
    expectHeaderShape(plan.header, rosVersion, 'map');
    expect(plan.poses.length).toBeGreaterThan(5);
    // From where the robot is to beside the goal, in the map (the arena's frame).
    const start = plan.poses[0]!.pose.position;
    const end = plan.poses.at(-1)!.pose.position;
    expect(Math.hypot(start.x - truth.pose.xM, start.y - truth.pose.yM)).toBeLessThan(0.05);
    expect(Math.hypot(end.x - truth.goal.xM, end.y - truth.goal.yM)).toBeLessThan(0.05);

    const { markers } = msgOf<{
      markers: Array<{ header: Header; ns: string; id: number; type: number; action: number; frame_locked: boolean; lifetime: Stamp }>;
    }>(markerFrame!);
    expect(markers[0]!.action).toBe(3);
    const named = (ns: string) => markers.filter((marker) => marker.ns === ns);
    expect(named('goal').map((marker) => marker.type)).toEqual([3, 9]);
    expect(named('obstacles')).toHaveLength(robot.arena.obstacles.length);
    expect(named('robot')[0]).toMatchObject({ type: 0, frame_locked: true });
    expectHeaderShape(named('robot')[0]!.header, rosVersion, 'base_link');
    expect(Object.keys(markers[1]!.lifetime)).toEqual(rosVersion === 1 ? ['secs', 'nsecs'] : ['sec', 'nanosec']);

    // At a modest rate: about one a second.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(watcher.published('/plan').length).toBeGreaterThanOrEqual(2);
    expect(watcher.published('/plan').length).toBeLessThanOrEqual(4);
    if (rosVersion === 1) return;
    // As cbor-raw, the MarkerArray's CDR reads back with ROS 2's definition.
    watcher.send({ op: 'subscribe', topic: '/markers', compression: 'cbor-raw', id: 'raw' });
    const raw = await watcher.waitFor((frame) => frame.op['topic'] === '/markers' && (frame.op['msg'] as { bytes?: unknown }).bytes !== undefined, 3000);
    const read = new MessageReader(parse(fullRos2MessageDefinition('visualization_msgs/msg/MarkerArray'), { ros2: true })).readMessage<{
      markers: Array<{ ns: string; type: number; text: string }>;
    }>((raw.op['msg'] as { bytes: Uint8Array }).bytes);
    expect(read.markers.find((marker) => marker.type === 9)?.text).toBe('goal');
  });

  it('lists the new topics in rosapi, with their definitions', async () => {
    const { server } = await robotServer(rosVersion);
    const rosapi = await client(server);
    const answer = (await rosapi.call('/rosapi/topics', {}))['values'] as { topics: string[]; types: string[] };
    const typeOf = (topic: string) => answer.types[answer.topics.indexOf(topic)];
    const typeName = (pkg: string, type: string) => (rosVersion === 1 ? `${pkg}/${type}` : `${pkg}/msg/${type}`);
    expect([typeOf('/tf'), typeOf('/tf_static'), typeOf('/robot_description'), typeOf('/map'), typeOf('/plan'), typeOf('/markers')]).toEqual([
      typeName('tf2_msgs', 'TFMessage'),
      typeName('tf2_msgs', 'TFMessage'),
      typeName('std_msgs', 'String'),
      typeName('nav_msgs', 'OccupancyGrid'),
      typeName('nav_msgs', 'Path'),
      typeName('visualization_msgs', 'MarkerArray'),
    ]);
    if (rosVersion === 1) return;
    const raw = (await rosapi.call('/rosapi/topics_and_raw_types', {}))['values'] as { topics: string[]; typedefs_full_text: string[] };
    const mapDefinition = raw.typedefs_full_text[raw.topics.indexOf('/map')]!;
    expect(mapDefinition).toContain('MSG: nav_msgs/MapMetaData\nbuiltin_interfaces/Time map_load_time');
    expect(raw.typedefs_full_text[raw.topics.indexOf('/tf')]).toContain('MSG: geometry_msgs/TransformStamped');

    // As cbor-raw, the map's CDR reads back with that definition.
    rosapi.send({ op: 'subscribe', topic: '/map', compression: 'cbor-raw' });
    const [frame] = await rosapi.waitForPublished('/map', 1);
    const { bytes } = frame!.op['msg'] as { bytes: Uint8Array };
    const grid = new MessageReader(parse(fullRos2MessageDefinition('nav_msgs/msg/OccupancyGrid'), { ros2: true })).readMessage<{
      header: { frame_id: string };
      info: { width: number };
      data: Int8Array;
    }>(bytes);
    expect([grid.header.frame_id, grid.info.width, grid.data.length]).toEqual(['map', 128, 128 * 128]);
    expect(grid.data.filter((cell) => cell === OCCUPIED).length).toBeGreaterThan(4 * 128 * 4 - 64);
  });
});
