// A session recorded from the simulated robot's ROS 2 persona keeps the robot's own encoding: `cdr`
// channels with `ros2msg` schemas named `pkg/msg/Type`, as `ros2 bag` writes them. The file is read
// back with the official MCAP reader and @foxglove/cdr's CdrReader field by field (neither is the code
// that wrote the bytes: the sim's and the recorder's @foxglove/rosmsg2-serialization writers), and
// every field equals what the link received; `reins review` opens the log and finds the camera.
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CdrReader } from '@foxglove/cdr';
import { McapIndexedReader } from '@mcap/core';
import { FileHandleReadable } from '@mcap/nodejs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Received, RobotMessage } from '../../main/core/messages.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import { DECOMPRESS_HANDLERS, decompressorsReady } from '../../main/recording/chunkCompression.ts';
import { openReviewLog } from '../../main/recording/reviewLog.ts';
import type { CommandSentEvent } from '../../main/recording/reinsEvents.ts';
import { startSessionRecording } from '../../main/recording/sessionRecording.ts';
import { startSimRosbridgeServer, type SimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { WaitableLog } from '../support/waitableLog.ts';

type Stamp = { sec: number; nanosec: number };
type Fields = Record<string, unknown> & { header: { stamp: Stamp; frame_id: string } };

let server: SimRosbridgeServer;
let folder: string;
beforeAll(async () => {
  const robot = new SimRobot({ arenaSeed: 3, episodeSeed: 5, camera: { widthPx: 32, heightPx: 24, rateHz: 20 }, scan: { beams: 90, rateHz: 15 } });
  server = await startSimRosbridgeServer({ robot, port: 0, rosVersion: 2 });
  folder = await mkdtemp(join(tmpdir(), 'reins-ros2-record-'));
});
afterAll(async () => {
  await server.close();
  await rm(folder, { recursive: true, force: true });
});

const stampKey = (stamp: Stamp) => `${stamp.sec}.${stamp.nanosec}`;

function readHeader(reader: CdrReader): { stamp: Stamp; frame_id: string } {
  return { stamp: { sec: reader.int32(), nanosec: reader.uint32() }, frame_id: reader.string() };
}

/** sensor_msgs/msg/Image, field by field in CDR order. */
function readImage(reader: CdrReader): Fields {
  return {
    header: readHeader(reader),
    height: reader.uint32(),
    width: reader.uint32(),
    encoding: reader.string(),
    is_bigendian: reader.uint8(),
    step: reader.uint32(),
    data: reader.uint8Array(),
  };
}

/** sensor_msgs/msg/LaserScan. */
function readLaserScan(reader: CdrReader): Fields {
  const header = readHeader(reader);
  const names = ['angle_min', 'angle_max', 'angle_increment', 'time_increment', 'scan_time', 'range_min', 'range_max'];
  const fields: Fields = { header };
  for (const name of names) fields[name] = reader.float32();
  fields['ranges'] = reader.float32Array();
  fields['intensities'] = reader.float32Array();
  return fields;
}

/** nav_msgs/msg/Odometry. */
function readOdometry(reader: CdrReader): Fields {
  const vector = () => ({ x: reader.float64(), y: reader.float64(), z: reader.float64() });
  const header = readHeader(reader);
  const childFrameId = reader.string();
  const pose = {
    pose: { position: vector(), orientation: { x: reader.float64(), y: reader.float64(), z: reader.float64(), w: reader.float64() } },
    covariance: reader.float64Array(36),
  };
  const twist = { twist: { linear: vector(), angular: vector() }, covariance: reader.float64Array(36) };
  return { header, child_frame_id: childFrameId, pose, twist };
}

const READERS: Readonly<Record<string, { schemaName: string; read: (reader: CdrReader) => Fields }>> = {
  '/camera/image_raw': { schemaName: 'sensor_msgs/msg/Image', read: readImage },
  '/scan': { schemaName: 'sensor_msgs/msg/LaserScan', read: readLaserScan },
  '/odom': { schemaName: 'nav_msgs/msg/Odometry', read: readOdometry },
};

it('records the ROS 2 robot as cdr/ros2msg, and an independent CDR reader reads back what the link received, field by field', async () => {
  const link = new RosbridgeLink({ url: server.url, simulated: true, timings: { serviceTimeoutMs: 1000 } });
  const received = new Map<string, WaitableLog<Received<RobotMessage>>>();
  const stops: Array<() => void> = [];
  for (const topic of Object.keys(READERS)) {
    const log = new WaitableLog<Received<RobotMessage>>(topic);
    received.set(topic, log);
    stops.push(link.subscribe(topic, (message) => log.push(message)));
  }
  try {
    await received.get('/odom')!.until((items) => items.length > 0, 'odometry (discovery done)', 10_000);
    // The control loop's commands, as the recording hears them: one sent once the robot's messages have come in.
    let sent: (event: CommandSentEvent) => void = () => undefined;
    const loop = { onSent: (listener: (event: CommandSentEvent) => void) => ((sent = listener), () => undefined) };
    const recording = await startSessionRecording({ link, loop, folder, fileName: 'ros2.mcap' });
    const before = new Map([...received].map(([topic, log]) => [topic, log.items.length]));
    for (const [topic, log] of received) await log.until((items) => items.length >= before.get(topic)! + 5, `5 more on ${topic}`, 10_000);
    const command = { linearMps: 0.25, angularRadps: -0.5 };
    sent({ driver: 'operator', command, requested: command, clipped: false, delivered: true, atMs: Date.now() });
    await recording.close();
  } finally {
    for (const stop of stops) stop();
    await link.close();
  }

  // What the link received, by header stamp (the raw message carries the robot's field names).
  const byStamp = new Map<string, Map<string, Fields>>();
  for (const [topic, log] of received) {
    byStamp.set(topic, new Map(log.items.map((message) => [stampKey((message.raw as Fields).header.stamp), message.raw as Fields])));
  }

  await decompressorsReady();
  const handle = await open(join(folder, 'ros2.mcap'), 'r');
  try {
    const mcap = await McapIndexedReader.Initialize({ readable: new FileHandleReadable(handle), decompressHandlers: DECOMPRESS_HANDLERS });
    const robotChannels = [...mcap.channelsById.values()].filter((channel) => channel.messageEncoding !== 'json');
    expect(robotChannels.length).toBeGreaterThanOrEqual(Object.keys(READERS).length);
    for (const channel of robotChannels) {
      const schema = mcap.schemasById.get(channel.schemaId)!;
      expect([channel.topic, schema.encoding, channel.messageEncoding, schema.name]).toEqual([
        channel.topic,
        'ros2msg',
        'cdr',
        expect.stringMatching(/^\w+\/msg\/\w+$/),
      ]);
      if (channel.topic in READERS) expect(new TextDecoder().decode(schema.data)).toContain('MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec');
    }
    const checked = new Map<string, number>();
    for await (const message of mcap.readMessages({ topics: Object.keys(READERS) })) {
      const channel = mcap.channelsById.get(message.channelId)!;
      const { schemaName, read } = READERS[channel.topic]!;
      expect(mcap.schemasById.get(channel.schemaId)!.name).toBe(schemaName);
      const reader = new CdrReader(message.data);
      expect(reader.kind).toBe(1); // little-endian CDR, as a ROS 2 middleware writes it
      const fields = read(reader);
      expect(reader.isAtEnd()).toBe(true);
      const original = byStamp.get(channel.topic)!.get(stampKey(fields.header.stamp));
      if (original === undefined) continue; // recorded before this test's subscription saw it
      expect(plain(fields)).toEqual(plain(pick(original, Object.keys(fields))));
      // The log time is when the cockpit received it; the publish time its source time, to the nanosecond.
      expect(message.publishTime).toBeLessThanOrEqual(message.logTime);
      checked.set(channel.topic, (checked.get(channel.topic) ?? 0) + 1);
    }
    for (const topic of Object.keys(READERS)) expect(checked.get(topic) ?? 0).toBeGreaterThanOrEqual(5);

    // The command, too, in ROS 2's encoding: geometry_msgs/msg/Twist, six float64s.
    const commands = [];
    for await (const message of mcap.readMessages({ topics: ['/cmd_vel'] })) {
      const channel = mcap.channelsById.get(message.channelId)!;
      expect([mcap.schemasById.get(channel.schemaId)!.name, channel.messageEncoding]).toEqual(['geometry_msgs/msg/Twist', 'cdr']);
      const reader = new CdrReader(message.data);
      commands.push([reader.float64(), reader.float64(), reader.float64(), reader.float64(), reader.float64(), reader.float64()]);
    }
    expect(commands).toEqual([[0.25, 0, 0, 0, 0, -0.5]]);
  } finally {
    await handle.close();
  }

  const review = await openReviewLog(join(folder, 'ros2.mcap'));
  try {
    expect(review.problems).toEqual([]);
    const frame = await review.latestAt('/camera/image_raw', review.endMs);
    expect(frame).toMatchObject({ schemaName: 'sensor_msgs/msg/Image', value: { width: 32, height: 24 } });
  } finally {
    await review.close();
  }
}, 40_000);

/** The fields a CDR reader read, from the message as received (which may carry more, a JSON `seq` say). */
function pick(original: Fields, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, original[key]]));
}

/** Typed arrays as plain lists, so that a JSON list and a CDR sequence compare by their values. */
function plain(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plain(field)]));
  return value;
}
