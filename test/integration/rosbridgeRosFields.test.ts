// Topics of types the cockpit has no kind of its own for, over rosbridge (test/fakes' server, frames
// as rosbridge_suite writes them): /tf (tf2_msgs/TFMessage) and /chatter (std_msgs/String) come as
// RosFields with their fields as sent, /map (nav_msgs/OccupancyGrid) over CBOR with its cells as a
// typed array and its header stamp as source time; a plot reads a field of /tf live; a latched
// /robot_description published once reaches a subscriber who joins later; and a session recorded
// from the link replays them with the same fields (as JSON from a ROS 1 robot, as CDR under a ROS 2
// robot's own definitions).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeBinaryFrame } from '../../main/core/contract.ts';
import type { Received, RosFields } from '../../main/core/messages.ts';
import { LivePlots } from '../../main/api/livePlots.ts';
import { ReplayLink } from '../../main/links/replay/replayLink.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import type { RosbridgeTimings } from '../../main/links/rosbridge/rosbridgeOptions.ts';
import { openReviewFile } from '../../main/recording/reviewFile.ts';
import { startSessionRecording } from '../../main/recording/sessionRecording.ts';
import { FakeRosbridgeServer, type FakeTopic } from '../fakes/fakeRosbridgeServer.ts';
import { waitFor, waitForMessage, waitForPresence } from '../support/linkEvents.ts';

const FAST: Partial<RosbridgeTimings> = { serviceTimeoutMs: 500, backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0.2 } };
/** Published only when the test says (publishNow): once, as a latched topic is. */
const ONCE_HZ = 0.0001;
const DESCRIPTION = '<robot name="r1"><link name="base_link"/></robot>';

const TOPICS: Record<string, FakeTopic> = {
  '/tf': {
    type: 'tf2_msgs/TFMessage',
    rateHz: 20,
    headerless: true,
    message: (seq) => ({
      transforms: [
        {
          header: { seq, stamp: { secs: 1_700_000_000, nsecs: seq }, frame_id: 'odom' },
          child_frame_id: 'base_link',
          transform: { translation: { x: 0.5 + seq, y: -1, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 } },
        },
      ],
    }),
  },
  '/chatter': { type: 'std_msgs/String', rateHz: 20, headerless: true, message: (seq) => ({ data: `hello ${seq}` }) },
  '/map': {
    type: 'nav_msgs/OccupancyGrid',
    rateHz: 10,
    message: () => ({
      info: {
        map_load_time: { secs: 0, nsecs: 0 },
        resolution: 0.05,
        width: 3,
        height: 1,
        origin: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
      },
      data: new Int8Array([0, 100, -1]),
    }),
  },
  '/robot_description': { type: 'std_msgs/String', rateHz: ONCE_HZ, headerless: true, message: () => ({ data: DESCRIPTION }) },
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connected(): Promise<{ fake: FakeRosbridgeServer; link: RosbridgeLink }> {
  const fake = await FakeRosbridgeServer.start({ topics: TOPICS });
  cleanups.push(() => fake.close());
  const link = new RosbridgeLink({ url: fake.url, timings: FAST });
  cleanups.push(() => link.close());
  await waitForPresence(link, 'present');
  await until(() => link.topics().some((topic) => topic.topic === '/tf'), 'rosapi’s topic list');
  return { fake, link };
}

function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  return waitFor(
    what,
    (resolve) => {
      const timer = setInterval(() => check() && resolve(undefined), 10);
      return () => clearInterval(timer);
    },
    timeoutMs,
  );
}

describe('a rosbridge topic of a type without a kind of its own', () => {
  it('is offered and delivered as RosFields, its fields as rosbridge sent them (raw is the same object)', async () => {
    const { fake, link } = await connected();
    expect(link.topics()).toEqual(
      expect.arrayContaining([
        { topic: '/tf', kind: 'RosFields', type: 'tf2_msgs/TFMessage' },
        { topic: '/chatter', kind: 'RosFields', type: 'std_msgs/String' },
        { topic: '/map', kind: 'RosFields', type: 'nav_msgs/OccupancyGrid' },
      ]),
    );
    const tf = await waitForMessage<RosFields>(link, '/tf');
    expect(tf.msg).toMatchObject({ kind: 'RosFields', rosType: 'tf2_msgs/TFMessage' });
    const transform = (tf.msg.fields['transforms'] as Array<Record<string, unknown>>)[0]!;
    expect(transform).toMatchObject({ child_frame_id: 'base_link', header: { frame_id: 'odom', stamp: { secs: 1_700_000_000 } } });
    expect(tf.raw).toBe(tf.msg.fields);
    // A TFMessage has no header of its own: it is placed on its receive time.
    expect(tf.sourceTimeMs).toBe(tf.receiveTimeMs);

    const chatter = await waitForMessage<RosFields>(link, '/chatter');
    expect(chatter.msg.fields).toEqual({ data: expect.stringMatching(/^hello \d+$/) });
    expect(fake.framesOf('subscribe', '/chatter')[0]?.message).toMatchObject({ type: 'std_msgs/String', compression: 'none' });
  });

  it('takes a map over CBOR, its cells a typed array, stamped by its header', async () => {
    const { fake, link } = await connected();
    const map = await waitForMessage<RosFields>(link, '/map');
    expect(fake.framesOf('subscribe', '/map')[0]?.message).toMatchObject({ type: 'nav_msgs/OccupancyGrid', compression: 'cbor' });
    expect(map.msg.fields['data']).toEqual(new Int8Array([0, 100, -1]));
    expect(map.msg.fields['info']).toMatchObject({ width: 3, height: 1 });
    // The fake stamps on its clock, the test's: the source time is the stamp, a little before arrival.
    expect(map.sourceTimeMs).toBeLessThanOrEqual(map.receiveTimeMs);
    expect(map.receiveTimeMs - map.sourceTimeMs).toBeLessThan(1000);
  });

  it('plots a field of /tf live', async () => {
    const { link } = await connected();
    const values: number[] = [];
    const plots = new LivePlots(link, {
      send: (bytes) => {
        const frame = decodeBinaryFrame(bytes);
        if (frame.kind === 'plot') for (const series of frame.series) values.push(...series.values);
        return true;
      },
      status: () => undefined,
    });
    try {
      const status = plots.set(['/tf.transforms[0].transform.translation.x']);
      expect(status.series).toEqual([{ path: '/tf.transforms[0].transform.translation.x' }]);
      await until(() => values.length >= 3, 'plotted values of /tf');
      expect(values.every((value) => value >= 1.5 && Number.isInteger(value - 0.5))).toBe(true);
    } finally {
      plots.close();
    }
  });

  it('hands a latched message, sent once, to a subscriber who joins after it came', async () => {
    const { fake, link } = await connected();
    // The scene holds the topic and gets the description, published once.
    const scene: Received[] = [];
    const stopScene = link.subscribe('/robot_description', (received) => scene.push(received));
    await fake.waitFor(() => fake.framesOf('subscribe', '/robot_description').length > 0, 'the wire subscription');
    fake.publishNow('/robot_description', { data: DESCRIPTION });
    await until(() => scene.length === 1, 'the description');
    // The recorder joins later, and is still given it.
    const late = await waitForMessage<RosFields>(link, '/robot_description', () => true, 1000);
    expect(late.msg.fields).toEqual({ data: DESCRIPTION });
    expect(late).toBe(scene[0]);
    stopScene();
  });
});

describe('a session recorded from a rosbridge robot', () => {
  it('keeps /tf, /chatter, /map and the latched /robot_description, and replays them with the same fields', async () => {
    const { fake, link } = await connected();
    const folder = await mkdtemp(join(tmpdir(), 'reins-rosfields-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    // Someone (the scene) subscribed first and got the latched description before the recorder started.
    const seen: Received[] = [];
    const stopScene = link.subscribe('/robot_description', (received) => seen.push(received));
    await fake.waitFor(() => fake.framesOf('subscribe', '/robot_description').length > 0, 'the wire subscription');
    fake.publishNow('/robot_description', { data: DESCRIPTION });
    await until(() => seen.length === 1, 'the description');
    const live = new Map<string, Received<RosFields>>();
    const stops = ['/tf', '/chatter'].map((topic) => link.subscribe<RosFields>(topic, (received) => live.set(topic, received)));

    const recording = await startSessionRecording({ link, folder, fileName: 'rosfields.mcap', topicCheckMs: 20 });
    await until(() => recording.stats().messagesAdded >= 20, 'messages recorded');
    const lastTf = live.get('/tf')!;
    await recording.close();
    for (const stop of [stopScene, ...stops]) stop();

    const log = await openReviewFile(recording.path);
    cleanups.push(() => log.close());
    expect(log.problems).toEqual([]);
    expect(
      log.summary.topics
        .filter((topic) => !topic.topic.startsWith('/reins/'))
        .map(({ topic, schemaName, messageEncoding }) => [topic, schemaName, messageEncoding]),
    ).toEqual(
      expect.arrayContaining([
        ['/tf', 'tf2_msgs/TFMessage', 'json'],
        ['/chatter', 'std_msgs/String', 'json'],
        ['/map', 'nav_msgs/OccupancyGrid', 'json'],
        ['/robot_description', 'std_msgs/String', 'json'],
      ]),
    );
    const replay = new ReplayLink(log);
    cleanups.push(() => replay.close());
    expect(replay.topics()).toEqual(expect.arrayContaining([{ topic: '/robot_description', kind: 'RosFields', type: 'std_msgs/String' }]));
    const description = await replay.receivedAt('/robot_description', log.endMs);
    expect(description?.msg).toEqual({ kind: 'RosFields', rosType: 'std_msgs/String', fields: { data: DESCRIPTION } });
    const tf = await replay.receivedAt('/tf', lastTf.receiveTimeMs);
    expect(tf?.msg).toEqual(lastTf.msg);
    expect(tf?.raw).toBe((tf?.msg as RosFields).fields);
    const map = await replay.receivedAt('/map', log.endMs);
    // The typed array comes back as the plain list JSON keeps.
    expect((map?.msg as RosFields).fields['data']).toEqual([0, 100, -1]);
  });

  it('on a ROS 2 robot keeps them as cdr under the robot’s own definitions, and replays them with the same fields', async () => {
    const tfType = 'tf2_msgs/msg/TFMessage';
    const fake = await FakeRosbridgeServer.start({
      ros2Stamps: true,
      topics: {
        '/tf': {
          type: tfType,
          rateHz: 20,
          headerless: true,
          message: (seq) => ({
            transforms: [
              {
                header: { stamp: { sec: 1_700_000_000, nanosec: seq }, frame_id: 'odom' },
                child_frame_id: 'base_link',
                transform: { translation: { x: seq, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 } },
              },
            ],
          }),
        },
        '/chatter': { type: 'std_msgs/msg/String', rateHz: 20, headerless: true, message: (seq) => ({ data: `hello ${seq}` }) },
      },
      services: { '/rosapi/topics_and_raw_types': () => ({ types: [tfType, 'std_msgs/msg/String'], typedefs_full_text: [TF_ROS2, 'string data\n'] }) },
    });
    cleanups.push(() => fake.close());
    const link = new RosbridgeLink({ url: fake.url, timings: FAST });
    cleanups.push(() => link.close());
    await waitForPresence(link, 'present');
    const first = await waitForMessage<RosFields>(link, '/tf', (received) => received.ros2?.definitionText !== undefined);
    expect(first.ros2).toEqual({ rosType: tfType, definitionText: TF_ROS2, cdr: undefined });

    const folder = await mkdtemp(join(tmpdir(), 'reins-rosfields-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const live: Received<RosFields>[] = [];
    const stop = link.subscribe<RosFields>('/tf', (received) => live.push(received));
    const recording = await startSessionRecording({ link, folder, fileName: 'ros2.mcap', topicCheckMs: 20 });
    await until(() => live.length >= 5, 'messages on /tf');
    await recording.close();
    stop();

    const log = await openReviewFile(recording.path);
    cleanups.push(() => log.close());
    expect(log.summary.topics.map(({ topic, schemaName, messageEncoding }) => [topic, schemaName, messageEncoding])).toEqual(
      expect.arrayContaining([
        ['/tf', tfType, 'cdr'],
        ['/chatter', 'std_msgs/msg/String', 'cdr'],
      ]),
    );
    const replay = new ReplayLink(log);
    cleanups.push(() => replay.close());
    const sent = live[2]!;
    expect((await replay.receivedAt('/tf', sent.receiveTimeMs))?.msg).toEqual(sent.msg);
  });
});

const TF_ROS2 = [
  'geometry_msgs/TransformStamped[] transforms',
  'MSG: geometry_msgs/TransformStamped\nstd_msgs/Header header\nstring child_frame_id\ngeometry_msgs/Transform transform',
  'MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id',
  'MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec',
  'MSG: geometry_msgs/Transform\ngeometry_msgs/Vector3 translation\ngeometry_msgs/Quaternion rotation',
  'MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z',
  'MSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\nfloat64 w',
].join('\n================================================================================\n');
