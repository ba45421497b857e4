// Review opens the logs people already have (test/fixtures/foreign-logs, written by tools that share
// no code with Reins): a ROS 2 MCAP from mcap_ros2 (`cdr` + `ros2msg`, zstd), a ROS 1 bag from the
// rosbag Python library (bz2 chunks) and `ros2 bag`'s own test files; a ROS 2 `.db3` is refused
// with how to convert it. Each is opened by what `reins review` opens (openReviewFile) and played
// by the replay link the review core puts behind the loop, so the values checked are those the loop
// would see. The two turning logs drive a known circle (README.md there): the odometry decoded is
// checked against it field by field. Topics of other types (talker.mcap's std_msgs/msg/String)
// replay as RosFields.
import { copyFile, mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from '@foxglove/rosmsg';
import { MessageWriter } from '@foxglove/rosmsg2-serialization';
import { McapIndexedReader, McapWriter, TempBuffer } from '@mcap/core';
import { loadDecompressHandlers } from '@mcap/support';
import jpeg from 'jpeg-js';
import sqlite from 'node-sqlite3-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Image, Odometry, Received, RosFields } from '../../main/core/messages.ts';
import { compileFieldPath } from '../../main/core/fieldPath.ts';
import { readFieldSeries } from '../../main/recording/fieldSeries.ts';
import { CockpitService } from '../../main/api/cockpitService.ts';
import { ReplayLink } from '../../main/links/replay/replayLink.ts';
import { SwitchableLink } from '../../main/links/switchableLink.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import { openReviewFile } from '../../main/recording/reviewFile.ts';
import type { ReviewableLog } from '../../main/recording/reviewLog.ts';
import { ConcurrentFileReadable } from '../../main/recording/recordingReader.ts';
import { ReviewSession } from '../../main/session/reviewSession.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'foreign-logs');
/** The circle both turning logs drive (README.md): 0.3 m/s, 0.4 rad/s, from 1,700,000,000 s. */
const CIRCLE = { linearMps: 0.3, angularRadps: 0.4, startMs: 1_700_000_000_000 };

function onCircle(tSecs: number) {
  const { linearMps: v, angularRadps: w } = CIRCLE;
  // Yaw as odometry reports it: within (−π, π].
  return { xM: (v / w) * Math.sin(w * tSecs), yM: (v / w) * (1 - Math.cos(w * tSecs)), yawRad: Math.atan2(Math.sin(w * tSecs), Math.cos(w * tSecs)) };
}

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-foreign-logs-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe.each([
  { file: 'ros2-turning-zstd.mcap', odometryType: 'nav_msgs/msg/Odometry', imageType: 'sensor_msgs/msg/Image', commandType: 'geometry_msgs/msg/TwistStamped' },
  { file: 'ros1-turning-bz2.bag', odometryType: 'nav_msgs/Odometry', imageType: 'sensor_msgs/Image', commandType: 'geometry_msgs/Twist' },
])('reviewing $file', ({ file, odometryType, imageType, commandType }) => {
  let log: ReviewableLog;
  let replay: ReplayLink;

  beforeAll(async () => {
    log = await openReviewFile(join(FIXTURES, file));
    replay = ReviewSession.replayOf(log).replay;
  });

  afterAll(async () => {
    await replay?.close();
    await log?.close();
  });

  it('lists every topic with its type and message count, over the 10 s recorded, with nothing lost', () => {
    expect(log.problems).toEqual([]);
    expect(log.summary.topics.map(({ topic, schemaName, messageCount }) => ({ topic, schemaName, messageCount }))).toEqual(
      expect.arrayContaining([
        { topic: '/odom', schemaName: odometryType, messageCount: 500 },
        { topic: '/camera/image_raw', schemaName: imageType, messageCount: 150 },
        { topic: '/scan', schemaName: expect.stringMatching(/^sensor_msgs\/(msg\/)?LaserScan$/), messageCount: 100 },
        { topic: '/imu', schemaName: expect.stringMatching(/^sensor_msgs\/(msg\/)?Imu$/), messageCount: 1000 },
        { topic: '/joint_states', schemaName: expect.stringMatching(/^sensor_msgs\/(msg\/)?JointState$/), messageCount: 500 },
        { topic: '/cmd_vel', schemaName: commandType, messageCount: 100 },
      ]),
    );
    expect(log.summary.topics).toHaveLength(6);
    expect(log.startMs).toBe(CIRCLE.startMs);
    expect(log.endMs).toBe(CIRCLE.startMs + 9990);
  });

  it('feeds each of the loop’s roles from the topic of its type', () => {
    expect(ReviewSession.replayOf(log).topics).toEqual({
      camera: '/camera/image_raw',
      scan: '/scan',
      joints: '/joint_states',
      imu: '/imu',
      odom: '/odom',
      command: '/cmd_vel',
    });
  });

  it.each([2.5, 5, 7.5, 9.98])('decodes the odometry at %s s onto the circle the robot drove', async (tSecs) => {
    const atMs = CIRCLE.startMs + tSecs * 1000;
    // Asked a millisecond later: the latest sample at or before then is the one logged at tSecs.
    const received = (await replay.receivedAt('/odom', atMs + 1)) as Received<Odometry>;
    // Header stamps equal log times: the recorded latency is zero, the sample is the one logged then.
    expect(received.sourceTimeMs).toBe(received.receiveTimeMs);
    // The bag's writer took its times through a float of seconds: they are off the 20 ms grid by up to ~100 ns.
    expect(received.receiveTimeMs).toBeCloseTo(atMs, 3);
    const expected = onCircle(tSecs);
    expect(received.msg).toEqual({
      kind: 'Odometry',
      frameId: 'odom',
      childFrameId: 'base_link',
      odomFromBaseXM: expect.closeTo(expected.xM, 7),
      odomFromBaseYM: expect.closeTo(expected.yM, 7),
      odomFromBaseYawRad: expect.closeTo(expected.yawRad, 7),
      linearMps: CIRCLE.linearMps,
      angularRadps: CIRCLE.angularRadps,
    });
  });

  it('keeps log times whole nanoseconds, equal to the header stamps', async () => {
    let checked = 0;
    for await (const message of log.messages({ topics: ['/odom', '/imu'], startMs: CIRCLE.startMs + 3000, endMs: CIRCLE.startMs + 3500 })) {
      const stamp = (message.value as { header: { stamp: { sec: number; nsec?: number; nanosec?: number } } }).header.stamp;
      expect(message.logTimeNs).toBe(BigInt(stamp.sec) * 1_000_000_000n + BigInt(stamp.nsec ?? stamp.nanosec!));
      checked++;
    }
    expect(checked).toBe(26 + 51);
  });

  it('shows the camera frame of the moment a seek lands on', async () => {
    const frame = new Promise<Received<Image>>((resolve) => {
      const stop = replay.subscribe<Image>('/camera/image_raw', (received) => {
        stop();
        resolve(received);
      });
    });
    replay.seek(CIRCLE.startMs + 4000);
    const received = await frame;
    expect(received.msg).toMatchObject({ kind: 'Image', frameId: 'camera', width: 160, height: 120, encoding: 'rgb8', step: 480 });
    expect(received.msg.data).toHaveLength(160 * 120 * 3);
    // 15 Hz: the frame shown at 4 s is the one logged at 4 s.
    expect((await log.latestAt('/camera/image_raw', CIRCLE.startMs + 4000))?.logTimeMs).toBe(CIRCLE.startMs + 4000);
  });

  it('shows the camera and scan of a seek in the cockpit and plots the robot’s speed, through the review loop', async () => {
    const perception = await loadPerception(testEncoderManifest());
    const { replay: cockpitReplay, topics } = ReviewSession.replayOf(log);
    const link = new SwitchableLink(cockpitReplay, undefined, topics);
    const loop = await createControlLoop(link, { perception });
    const service = new CockpitService(link, loop, Date.now, { review: ReviewSession.attach(link, log, { openLog: openReviewFile, perception }) });
    try {
      service.handle({ type: 'replay-seek', atMs: CIRCLE.startMs + 6000 });
      await until(() => service.cameraPreview() !== undefined && service.scanPreview() !== undefined);
      expect(service.state().review).toMatchObject({ positionMs: CIRCLE.startMs + 6000, playing: false, problems: [] });
      const timeline = await service.reviewTimeline();
      if (!timeline.ok) throw new Error(timeline.error.message);
      const speed = timeline.body.series.find((series) => series.name === 'Speed')!;
      expect(Math.max(...speed.values.map(Number))).toBeCloseTo(CIRCLE.linearMps, 6);
    } finally {
      await loop.close();
      await link.close();
    }
  });

  it('plays every message of the log in order, decoded', async () => {
    const counts = new Map<string, number>();
    let lastNs = 0n;
    for await (const message of log.messages()) {
      expect(message.logTimeNs).toBeGreaterThanOrEqual(lastNs);
      lastNs = message.logTimeNs;
      counts.set(message.topic, (counts.get(message.topic) ?? 0) + 1);
    }
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(log.summary.topics.map((topic) => [topic.topic, topic.messageCount])));
    expect(log.problems).toEqual([]);
  });
});

describe('a ROS 2 log whose topics are not named as Reins names them', () => {
  it('feeds the camera, LiDAR, odometry, IMU and joint roles from the topics of their types', async () => {
    const path = join(folder, 'renamed.mcap');
    await copyRenamed(join(FIXTURES, 'ros2-turning-zstd.mcap'), path, (topic) => `/robot_7/sensors${topic}`);
    const log = await openReviewFile(path);
    try {
      const { replay, topics } = ReviewSession.replayOf(log);
      expect(topics).toMatchObject({
        camera: '/robot_7/sensors/camera/image_raw',
        scan: '/robot_7/sensors/scan',
        joints: '/robot_7/sensors/joint_states',
        imu: '/robot_7/sensors/imu',
        odom: '/robot_7/sensors/odom',
      });
      const odometry = (await replay.receivedAt(topics.odom, CIRCLE.startMs + 5000)) as Received<Odometry>;
      expect(odometry.msg.odomFromBaseXM).toBeCloseTo(onCircle(5).xM, 9);
      await replay.close();
    } finally {
      await log.close();
    }
  });
});

describe('a ROS 2 log whose camera is a CompressedImage topic only', () => {
  it('feeds the camera role from it, decoded to pixels as from a live robot', async () => {
    const path = join(folder, 'compressed-camera.mcap');
    await writeCompressedCameraLog(path, '/front_cam/image/compressed', 5);
    const log = await openReviewFile(path);
    const { replay, topics } = ReviewSession.replayOf(log);
    try {
      expect(topics.camera).toBe('/front_cam/image/compressed');
      const frame = new Promise<Received<Image>>((resolve) => replay.subscribe<Image>(topics.camera, resolve));
      replay.seek(CIRCLE.startMs + 250);
      const received = await frame;
      expect(received.msg).toMatchObject({ kind: 'Image', frameId: 'front_cam', width: 32, height: 24, encoding: 'rgb8' });
      // On the log's clock, the frame shown is the one logged at 200 ms.
      const atLogTime = await replay.receivedAt(topics.camera, CIRCLE.startMs + 250);
      expect(atLogTime).toMatchObject({ sourceTimeMs: CIRCLE.startMs + 200, msg: { kind: 'Image', width: 32 } });
    } finally {
      await replay.close();
      await log.close();
    }
  });
});

describe('the test bags of ros2 bag itself (rosbag2)', () => {
  it('decodes talker.mcap’s strings and rosout log lines', async () => {
    const log = await openReviewFile(join(FIXTURES, 'rosbag2', 'talker.mcap'));
    try {
      expect(log.problems).toEqual([]);
      expect(log.summary.topics.map(({ topic, schemaName, messageCount }) => ({ topic, schemaName, messageCount }))).toEqual([
        { topic: '/rosout', schemaName: 'rcl_interfaces/msg/Log', messageCount: 10 },
        { topic: '/parameter_events', schemaName: 'rcl_interfaces/msg/ParameterEvent', messageCount: 0 },
        { topic: '/topic', schemaName: 'std_msgs/msg/String', messageCount: 10 },
      ]);
      const strings: unknown[] = [];
      for await (const message of log.messages({ topics: ['/topic'] })) strings.push(message.value);
      expect(strings).toEqual(Array.from({ length: 10 }, (_, i) => ({ data: `Hello, world! ${i}` })));
      const rosout = await log.latestAt('/rosout', log.endMs);
      expect(rosout?.value).toMatchObject({ level: 20, name: 'minimal_publisher', msg: "Publishing: 'Hello, world! 9'", stamp: { sec: 1585866239 } });
    } finally {
      await log.close();
    }
  });

  it('replays talker.mcap’s /topic and /rosout as RosFields named by their schemas, and plots a field of /rosout', async () => {
    const log = await openReviewFile(join(FIXTURES, 'rosbag2', 'talker.mcap'));
    const { replay } = ReviewSession.replayOf(log);
    try {
      expect(replay.topics()).toEqual([
        { topic: '/rosout', kind: 'RosFields', type: 'rcl_interfaces/msg/Log' },
        { topic: '/parameter_events', kind: 'RosFields', type: 'rcl_interfaces/msg/ParameterEvent' },
        { topic: '/topic', kind: 'RosFields', type: 'std_msgs/msg/String' },
      ]);
      const said = new Promise<Received<RosFields>>((resolve) => replay.subscribe<RosFields>('/topic', resolve));
      replay.seek((log.startMs + log.endMs) / 2);
      const received = await said;
      expect(received.msg).toEqual({ kind: 'RosFields', rosType: 'std_msgs/msg/String', fields: { data: expect.stringMatching(/^Hello, world! \d$/) } });
      expect(received.raw).toBe(received.msg.fields);
      // endMs is the last log time in whole ms; the last message is a fraction of a millisecond later.
      expect((await replay.receivedAt('/topic', log.endMs + 1))?.msg).toMatchObject({ fields: { data: 'Hello, world! 9' } });
      // rcl_interfaces/msg/Log has a stamp, not a header: each line is placed on its log time.
      const line = (await replay.receivedAt('/rosout', log.endMs + 1)) as Received<RosFields>;
      expect(line.msg.fields).toMatchObject({ level: 20, msg: "Publishing: 'Hello, world! 9'" });
      const level = compileFieldPath('/rosout.level', 'rcl_interfaces/msg/Log');
      if (!level.ok) throw new Error(level.message);
      const series = await readFieldSeries(log, level.compiled);
      expect(series.ok && series.series.values).toEqual(new Array(10).fill(20));
    } finally {
      await replay.close();
      await log.close();
    }
  });

  it('decodes cdr_test_0.mcap’s basic types and fixed arrays, strings and nested messages included', async () => {
    const log = await openReviewFile(join(FIXTURES, 'rosbag2', 'cdr_test_0.mcap'));
    try {
      expect(log.problems).toEqual([]);
      expect(log.summary.topics.map(({ topic, messageCount }) => [topic, messageCount])).toEqual([
        ['/test_topic', 3],
        ['/array_topic', 4],
      ]);
      const basic = [];
      for await (const message of log.messages({ topics: ['/test_topic'] })) basic.push(message.value);
      expect(basic).toHaveLength(3);
      expect(basic[0]).toMatchObject({ bool_value: false, int32_value: 123, int64_value: 0n, uint64_value: 0n });
      const arrays = (await log.latestAt('/array_topic', log.endMs))?.value as Record<string, unknown>;
      expect(arrays['string_values']).toEqual(['Complex Hello1', 'Complex Hello2', 'Complex Hello3']);
      expect(arrays['bool_values']).toEqual([true, false, true]);
      expect(arrays['basic_types_values']).toHaveLength(3);
      expect(arrays['alignment_check']).toBeTypeOf('number');
    } finally {
      await log.close();
    }
  });
});

describe('what review opens besides a log file', () => {
  it('opens the one log of a rosbag2 folder (metadata.yaml beside NAME_0.mcap)', async () => {
    const bagFolder = join(folder, 'talker');
    await mkdir(bagFolder);
    await writeFile(join(bagFolder, 'metadata.yaml'), 'rosbag2_bagfile_information:\n  storage_identifier: mcap\n');
    await copyFile(join(FIXTURES, 'rosbag2', 'talker.mcap'), join(bagFolder, 'talker_0.mcap'));
    const log = await openReviewFile(bagFolder);
    try {
      expect(log.path).toBe(join(bagFolder, 'talker_0.mcap'));
      expect(log.summary.topics.find((topic) => topic.topic === '/topic')?.messageCount).toBe(10);
    } finally {
      await log.close();
    }
  });

  it('re-indexes a ROS 1 bag cut before its index (a recording that did not close), as rosbag reindex would, and says what was lost', async () => {
    const cut = join(folder, 'cut.bag');
    const whole = await readFile(join(FIXTURES, 'ros1-turning-bz2.bag'));
    await writeFile(cut, whole.subarray(0, 60_000));
    const log = await openReviewFile(cut);
    try {
      expect(log.problems).toEqual([
        'its index cannot be read (the file ends at byte 60000, before the index at byte 93188): it was re-indexed by reading its 11 chunks through, as `rosbag reindex` would (which repairs the file)',
        'the record at byte 51224 is cut short: what follows byte 51224 is skipped',
      ]);
      // The whole chunks before the cut: all the odometry and the first 147 camera frames.
      expect(log.summary.topics.map(({ topic, messageCount }) => [topic, messageCount])).toEqual([
        ['/odom', 500],
        ['/camera/image_raw', 147],
      ]);
      const odometry = await log.latestAt('/odom', CIRCLE.startMs + 7000);
      expect(odometry?.logTimeNs).toBe(1_700_000_007_000_000_000n);
      expect((odometry?.value as { pose: { pose: { position: { x: number } } } }).pose.pose.position.x).toBeCloseTo(onCircle(7).xM, 9);
    } finally {
      await log.close();
    }
  });

  it.each([
    { part: 'its first connection record', at: () => 93_188 + 40 },
    { part: 'its last chunk-info record', at: (bytes: Buffer) => bytes.length - 100 },
  ])('reads every message of a ROS 1 bag whose index is damaged in $part, re-indexed, and says so', async ({ at }) => {
    const damaged = join(folder, 'broken-index.bag');
    const bytes = await readFile(join(FIXTURES, 'ros1-turning-bz2.bag'));
    bytes.fill(0xee, at(bytes), at(bytes) + 16);
    await writeFile(damaged, bytes);
    const log = await openReviewFile(damaged);
    try {
      expect(log.problems).toEqual([
        expect.stringMatching(
          /^its index cannot be read \(.+\): it was re-indexed by reading its 12 chunks through, as `rosbag reindex` would \(which repairs the file\)$/,
        ),
      ]);
      expect(Object.fromEntries(log.summary.topics.map(({ topic, messageCount }) => [topic, messageCount]))).toEqual({
        '/odom': 500,
        '/camera/image_raw': 150,
        '/scan': 100,
        '/imu': 1000,
        '/joint_states': 500,
        '/cmd_vel': 100,
      });
      let read = 0;
      for await (const _message of log.messages()) read++;
      expect(read).toBe(2350);
      const { replay } = ReviewSession.replayOf(log);
      const odometry = (await replay.receivedAt('/odom', CIRCLE.startMs + 5001)) as Received<Odometry>;
      expect(odometry.msg.odomFromBaseXM).toBeCloseTo(onCircle(5).xM, 7);
      await replay.close();
    } finally {
      await log.close();
    }
  });

  it('reads the rest of a ROS 1 bag one of whose chunks is damaged, and says what was skipped', async () => {
    const damaged = join(folder, 'damaged.bag');
    const bytes = await readFile(join(FIXTURES, 'ros1-turning-bz2.bag'));
    bytes.fill(0x55, 40_000, 40_400);
    await writeFile(damaged, bytes);
    const log = await openReviewFile(damaged);
    try {
      let read = 0;
      for await (const _message of log.messages()) read++;
      expect(log.problems).toHaveLength(1);
      const [, skipped] = /^chunk \d+ \(\S+–\S+\) cannot be decompressed: its (\d+) messages are skipped$/.exec(log.problems[0]!) ?? [];
      expect(read + Number(skipped)).toBe(2350);
      expect(Number(skipped)).toBeGreaterThan(0);
      const odometry = await log.latestAt('/odom', CIRCLE.startMs + 9000);
      expect(odometry?.logTimeNs).toBe(1_700_000_009_000_000_000n);
    } finally {
      await log.close();
    }
  });

  it('refuses a ROS 1 bag of the old 1.2 format, and a file that is no log, in words', async () => {
    const oldBag = join(folder, 'old.bag');
    await writeFile(oldBag, '#ROSBAG V1.2\n' + 'x'.repeat(64));
    await expect(openReviewFile(oldBag)).rejects.toThrow(
      'old.bag is a ROS 1 bag of an older format (ROSBAG V1.2): Reins reads format 2.0; `rosbag fix` rewrites it',
    );
    await expect(openReviewFile(join(FIXTURES, 'README.md'))).rejects.toThrow(/README\.md is not an MCAP log \(it starts with '# Logs w'\)/);
  });
});

describe('a ROS 2 bag in SQLite storage (.db3)', () => {
  const CONVERT = /`ros2 bag convert -i (\S+)\.db3 -o to_mcap\.yaml`, where to_mcap\.yaml reads "output_bags: \[\{uri: \S+_mcap, storage_id: mcap\}\]"/;

  it('is refused with how to convert it, saying it carries its definitions (rosbag2’s cdr_test_0.db3, written by rolling)', async () => {
    const refused = openReviewFile(join(FIXTURES, 'rosbag2', 'cdr_test_0.db3'));
    await expect(refused).rejects.toThrow(CONVERT);
    await expect(refused).rejects.toThrow(/cdr_test_0\.db3 is a ROS 2 bag in SQLite storage \(\.db3, 2 topics, written by ROS 2 rolling\)/);
    await expect(refused).rejects.toThrow(/a message_definitions table of 2 types.*a reader could decode it from the file alone/);
  });

  it('is refused with how to convert it, saying the message packages are needed, when it has no definitions (as Humble writes them)', async () => {
    const path = join(folder, 'humble_0.db3');
    writeHumbleBag(path);
    const refused = openReviewFile(path);
    await expect(refused).rejects.toThrow(CONVERT);
    await expect(refused).rejects.toThrow(/1 topic, written by ROS 2 humble.*no message_definitions table.*run it where they are installed/);
  });

  it('is refused with both cases when its tables cannot be read', async () => {
    const path = join(folder, 'damaged.db3');
    await writeFile(path, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4080, 0xab)]));
    const refused = openReviewFile(path);
    await expect(refused).rejects.toThrow(CONVERT);
    await expect(refused).rejects.toThrow(/If the bag is from Iron or later.*if it is from Humble or earlier/);
  });
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A Humble-era rosbag2 SQLite file: schema version 3, no message_definitions table. */
function writeHumbleBag(path: string): void {
  const db = new sqlite.Database(path);
  try {
    db.exec(`
      CREATE TABLE schema(schema_version INTEGER PRIMARY KEY, ros_distro TEXT NOT NULL);
      INSERT INTO schema VALUES (3, 'humble');
      CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL);
      INSERT INTO topics VALUES (1, '/odom', 'nav_msgs/msg/Odometry', 'cdr', '');
      CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL, timestamp INTEGER NOT NULL, data BLOB NOT NULL);
    `);
  } finally {
    db.close();
  }
}

/** A copy of an MCAP log, read by @mcap/core's own reader, with every topic renamed; schemas and message bytes unchanged. */
async function copyRenamed(from: string, to: string, rename: (topic: string) => string): Promise<void> {
  const handle = await open(from, 'r');
  try {
    const reader = await McapIndexedReader.Initialize({ readable: new ConcurrentFileReadable(handle), decompressHandlers: await loadDecompressHandlers() });
    const buffer = new TempBuffer();
    const writer = new McapWriter({ writable: buffer });
    await writer.start({ profile: 'ros2', library: 'test copy' });
    const schemaIds = new Map<number, number>();
    for (const schema of reader.schemasById.values())
      schemaIds.set(schema.id, await writer.registerSchema({ name: schema.name, encoding: schema.encoding, data: schema.data }));
    const channelIds = new Map<number, number>();
    for (const channel of reader.channelsById.values())
      channelIds.set(channel.id, await writer.registerChannel({ ...channel, topic: rename(channel.topic), schemaId: schemaIds.get(channel.schemaId) ?? 0 }));
    for await (const message of reader.readMessages()) await writer.addMessage({ ...message, channelId: channelIds.get(message.channelId)! });
    await writer.end();
    await writeFile(to, buffer.get());
  } finally {
    await handle.close();
  }
}

const COMPRESSED_IMAGE_MSG = `std_msgs/Header header
string format
uint8[] data
================================================================================
MSG: std_msgs/Header
builtin_interfaces/Time stamp
string frame_id
================================================================================
MSG: builtin_interfaces/Time
int32 sec
uint32 nanosec
`;

/** A ROS 2 MCAP log with one camera topic of JPEG sensor_msgs/msg/CompressedImage frames, 10 Hz from CIRCLE.startMs. */
async function writeCompressedCameraLog(path: string, topic: string, frames: number): Promise<void> {
  const buffer = new TempBuffer();
  const writer = new McapWriter({ writable: buffer });
  await writer.start({ profile: 'ros2', library: 'test' });
  const schemaId = await writer.registerSchema({
    name: 'sensor_msgs/msg/CompressedImage',
    encoding: 'ros2msg',
    data: new TextEncoder().encode(COMPRESSED_IMAGE_MSG),
  });
  const channelId = await writer.registerChannel({ topic, schemaId, messageEncoding: 'cdr', metadata: new Map() });
  const cdr = new MessageWriter(parse(COMPRESSED_IMAGE_MSG, { ros2: true }));
  const jpegBytes = jpeg.encode({ width: 32, height: 24, data: Buffer.alloc(32 * 24 * 4, 0x80) }, 90).data;
  for (let i = 0; i < frames; i++) {
    const timeNs = BigInt(CIRCLE.startMs + i * 100) * 1_000_000n;
    const stamp = { sec: Number(timeNs / 1_000_000_000n), nanosec: Number(timeNs % 1_000_000_000n) };
    const data = cdr.writeMessage({ header: { stamp, frame_id: 'front_cam' }, format: 'jpeg', data: new Uint8Array(jpegBytes) });
    await writer.addMessage({ channelId, sequence: i, logTime: timeNs, publishTime: timeNs, data });
  }
  await writer.end();
  await writeFile(path, buffer.get());
}
