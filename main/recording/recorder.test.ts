import { mkdtemp, readdir, rm, stat, writeFile, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MessageReader, MessageWriter } from '@foxglove/rosmsg-serialization';
import type { Received, RobotMessage } from '../core/messages.ts';
import { EntryEncoder } from './entryEncoding.ts';
import { Recorder } from './recorder.ts';
import { RecordingReader } from './recordingReader.ts';
import { COMMAND_SENT_CHANNEL } from './reinsEvents.ts';
import { openReviewLog } from './reviewLog.ts';
import { rosMessageFor } from './rosMessages.ts';
import { parsedDefinitions, rosDefinitionText } from './rosSchemas.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-recorder-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const T0_MS = 1_700_000_000_000;

function image(atMs: number, shade: number): Received<RobotMessage> {
  const data = new Uint8Array(32 * 24 * 3).fill(shade);
  return {
    topic: '/camera/image_raw',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs - 5,
    msg: { kind: 'Image', frameId: 'camera', width: 32, height: 24, encoding: 'rgb8', step: 96, data },
  };
}
function noisyImage(atMs: number, seed: number): Received<RobotMessage> {
  const received = image(atMs, 0);
  const data = (received.msg as { data: Uint8Array }).data;
  let state = seed * 2654435761 + 1;
  for (let i = 0; i < data.length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    data[i] = state >>> 24;
  }
  return received;
}
function scan(atMs: number): Received<RobotMessage> {
  const rangesM = new Float32Array([1, 2, Infinity, 4]);
  return {
    topic: '/scan',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs,
    msg: { kind: 'LaserScan', frameId: 'laser', angleMinRad: -1, angleMaxRad: 1, angleIncrementRad: 0.5, rangeMinM: 0.1, rangeMaxM: 10, rangesM },
  };
}
function odom(atMs: number): Received<RobotMessage> {
  return {
    topic: '/odom',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs,
    msg: {
      kind: 'Odometry',
      frameId: 'odom',
      childFrameId: 'base',
      odomFromBaseXM: 1,
      odomFromBaseYM: 2,
      odomFromBaseYawRad: Math.PI / 2,
      linearMps: 0.3,
      angularRadps: 0.1,
    },
  };
}
function imu(atMs: number): Received<RobotMessage> {
  return {
    topic: '/imu',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs,
    msg: {
      kind: 'Imu',
      frameId: 'imu',
      orientation: { x: 0, y: 0, z: 0, w: 1 },
      angularVelocityRadps: { x: 0, y: 0, z: 0.2 },
      linearAccelerationMps2: { x: 0, y: 0, z: 9.8 },
    },
  };
}
function joints(atMs: number): Received<RobotMessage> {
  return {
    topic: '/joint_states',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs,
    msg: {
      kind: 'JointState',
      names: ['left', 'right'],
      positionsRad: new Float64Array([1, 2]),
      velocitiesRadps: new Float64Array([3, 4]),
      effortsNm: new Float64Array(0),
    },
  };
}

interface ScanWithHeader {
  header: { stamp: { sec: number; nsec: number } };
}

async function listed<T>(items: AsyncIterable<T>): Promise<T[]> {
  const list: T[] = [];
  for await (const item of items) list.push(item);
  return list;
}

async function readAll(path: string) {
  const reader = await RecordingReader.open(path);
  const messages = [];
  for await (const message of reader.messages()) messages.push(message);
  return { reader, messages };
}

describe('Recorder', () => {
  it('writes the streams as standard ROS 1 types and the commands as JSON events, chunked and indexed', async () => {
    const path = join(folder, 'session.mcap');
    const recorder = await Recorder.open({ path, chunkBytes: 4096 });
    for (let i = 0; i < 20; i++) {
      const atMs = T0_MS + i * 10;
      for (const received of [image(atMs, i), scan(atMs + 1), odom(atMs + 2), imu(atMs + 3), joints(atMs + 4)]) expect(recorder.record(received)).toBe(true);
      recorder.recordEvent(COMMAND_SENT_CHANNEL, atMs + 5, {
        driver: 'policy',
        command: { linearMps: 0.2, angularRadps: 0 },
        requested: { linearMps: 0.3, angularRadps: 0 },
        clipped: true,
        delivered: true,
        atMs: atMs + 5,
      });
    }
    await recorder.close();

    const { reader, messages } = await readAll(path);
    try {
      const mcap = reader.mcap!;
      const schemaOf = new Map(
        [...mcap.channelsById.values()].map((c) => [
          c.topic,
          `${mcap.schemasById.get(c.schemaId)?.name} ${mcap.schemasById.get(c.schemaId)?.encoding} ${c.messageEncoding}`,
        ]),
      );
      expect(Object.fromEntries(schemaOf)).toEqual({
        '/camera/image_raw': 'sensor_msgs/Image ros1msg ros1',
        '/scan': 'sensor_msgs/LaserScan ros1msg ros1',
        '/odom': 'nav_msgs/Odometry ros1msg ros1',
        '/imu': 'sensor_msgs/Imu ros1msg ros1',
        '/joint_states': 'sensor_msgs/JointState ros1msg ros1',
        '/reins/command_sent': 'reins.CommandSent jsonschema json',
      });
      expect(mcap.chunkIndexes.length).toBeGreaterThan(1);
      expect(mcap.statistics?.messageCount).toBe(120n);
      expect(messages).toHaveLength(120);
      const times = messages.map((m) => m.logTimeMs);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(times[0]).toBe(T0_MS);

      const firstImage = messages.find((m) => m.topic === '/camera/image_raw')!.value as {
        width: number;
        encoding: string;
        data: Uint8Array;
        header: { stamp: { sec: number; nsec: number } };
      };
      expect(firstImage).toMatchObject({ width: 32, encoding: 'rgb8' });
      expect(firstImage.data.byteLength).toBe(32 * 24 * 3);
      expect(firstImage.header.stamp.sec * 1000 + firstImage.header.stamp.nsec / 1e6).toBeCloseTo(T0_MS - 5, 3);
      const firstScan = messages.find((m) => m.topic === '/scan')!.value as { ranges: Float32Array };
      expect(Array.from(firstScan.ranges)).toEqual([1, 2, Infinity, 4]);
      const firstOdom = messages.find((m) => m.topic === '/odom')!.value as { pose: { pose: { orientation: { z: number; w: number } } } };
      expect(firstOdom.pose.pose.orientation.z).toBeCloseTo(Math.SQRT1_2);
      expect(messages.find((m) => m.topic === '/reins/command_sent')!.value).toMatchObject({ driver: 'policy', clipped: true });
    } finally {
      await reader.close();
    }
  });

  it('finds the messages of a time range and the latest frame at a time', async () => {
    const path = join(folder, 'clips.mcap');
    const recorder = await Recorder.open({ path, chunkBytes: 2048 });
    for (let i = 0; i < 50; i++) {
      recorder.record(image(T0_MS + i * 100, i));
      recorder.record(scan(T0_MS + i * 100 + 50));
    }
    await recorder.close();
    const reader = await RecordingReader.open(path);
    try {
      const clip = [];
      for await (const m of reader.messages({ topics: ['/camera/image_raw'], startMs: T0_MS + 1000, endMs: T0_MS + 1999 })) clip.push(m);
      expect(clip.map((m) => m.logTimeMs)).toEqual(Array.from({ length: 10 }, (_, i) => T0_MS + 1000 + i * 100));
      const frame = await reader.latestAt('/camera/image_raw', T0_MS + 2050);
      expect(frame?.logTimeMs).toBe(T0_MS + 2000);
      expect((frame?.value as { data: Uint8Array }).data[0]).toBe(20);
      expect(await reader.latestAt('/camera/image_raw', T0_MS - 1)).toBeUndefined();
    } finally {
      await reader.close();
    }
  });

  it('declares no profile: its json events sit beside ros1 streams, and the ros1 profile allows only ros1 channels', async () => {
    const path = join(folder, 'profile.mcap');
    const recorder = await Recorder.open({ path });
    recorder.record(scan(T0_MS));
    recorder.recordEvent(COMMAND_SENT_CHANNEL, T0_MS, { driver: 'operator' });
    await recorder.close();
    const reader = await RecordingReader.open(path);
    try {
      const mcap = reader.mcap!;
      expect(mcap.header).toMatchObject({ profile: '', library: 'reins' });
      expect(new Set([...mcap.channelsById.values()].map((channel) => channel.messageEncoding))).toEqual(new Set(['ros1', 'json']));
    } finally {
      await reader.close();
    }
  });

  it("logs a message's publish time equal to its header stamp to the nanosecond, and reads both times back whole", async () => {
    const path = join(folder, 'stamps.mcap');
    // Times as a link hands them over: fractions of a millisecond, which a double holds only to 256 ns at this epoch.
    const sourceTimeMs = T0_MS + 123.4567;
    const receiveTimeMs = sourceTimeMs + 35.0101;
    const recorder = await Recorder.open({ path });
    recorder.record({ ...scan(receiveTimeMs), sourceTimeMs });
    await recorder.close();

    const reader = await RecordingReader.open(path);
    try {
      const [raw] = await listed(reader.mcap!.readMessages());
      const stamp = (new MessageReader(parsedDefinitions(rosDefinitionText('sensor_msgs/LaserScan'))).readMessage(raw!.data) as ScanWithHeader).header.stamp;
      // The nanosecond nearest the double each time was given as: 1,700,000,000,123.456787109375 ms and 1,700,000,000,158.466796875 ms.
      expect(raw!.publishTime).toBe(1_700_000_000_123_456_787n);
      expect(BigInt(stamp.sec) * 1_000_000_000n + BigInt(stamp.nsec)).toBe(raw!.publishTime);
      expect(raw!.logTime).toBe(1_700_000_000_158_466_797n);

      const log = await openReviewLog(path);
      try {
        for (const [read] of [await listed(reader.messages()), await listed(log.messages())]) {
          expect([read!.logTimeNs, read!.publishTimeNs]).toEqual([raw!.logTime, raw!.publishTime]);
          expect([read!.logTimeMs, read!.publishTimeMs]).toEqual([receiveTimeMs, sourceTimeMs]);
        }
      } finally {
        await log.close();
      }
    } finally {
      await reader.close();
    }
  });

  it('starts a new file at the size limit and deletes the oldest logs past the quota, with a warning', async () => {
    const old = join(folder, 'old.mcap');
    await writeFile(old, new Uint8Array(200_000));
    await utimes(old, new Date(T0_MS - 60_000), new Date(T0_MS - 60_000));
    const path = join(folder, 'session.mcap');
    const recorder = await Recorder.open({ path, chunkBytes: 8192, maxFileBytes: 40_000, quotaBytes: 150_000 });
    expect(recorder.alerts()).toEqual([expect.objectContaining({ key: 'recording-quota', severity: 'warn' })]);
    for (let i = 0; i < 100; i++) recorder.record(noisyImage(T0_MS + i * 10, i));
    await recorder.close();
    const names = (await readdir(folder)).sort();
    const files = recorder.stats().files;
    expect(files.length).toBeGreaterThan(4);
    expect(names).not.toContain('old.mcap');
    expect(names).not.toContain('session.mcap');
    expect(names).toContain(files.at(-1)!.slice(folder.length + 1));
    expect(recorder.alerts()[0]?.message).toMatch(/Deleted \d+ oldest recordings to stay under/);
    let total = 0;
    for (const name of names) total += (await stat(join(folder, name))).size;
    expect(total).toBeLessThanOrEqual(150_000 + 40_000 + 16_384);
    let readBack = 0;
    for (const name of names) {
      const { reader, messages } = await readAll(join(folder, name));
      expect(messages.length).toBeGreaterThan(0);
      readBack += messages.length;
      await reader.close();
    }
    // What the quota deleted of this session is counted (old.mcap, another session's, is not): with what is left, every message.
    const stats = recorder.stats();
    expect(stats.ownFilesDeleted).toContain(path);
    expect(stats.ownFilesDeleted).toHaveLength(stats.deletedFiles - 1);
    expect(stats.messagesDeleted).toBeGreaterThan(0);
    expect(readBack + stats.messagesDeleted).toBe(stats.messagesAdded);
  });

  it('writes images and point clouds byte for byte as the standard ROS 1 serialiser does', () => {
    const cloud: Received<RobotMessage> = {
      topic: '/points',
      receiveTimeMs: T0_MS,
      sourceTimeMs: T0_MS - 3,
      msg: {
        kind: 'PointCloud2',
        frameId: 'lidar',
        height: 1,
        width: 3,
        fields: [{ name: 'x', offsetBytes: 0, datatype: 'float32', count: 1 }],
        bigEndian: false,
        pointStepBytes: 4,
        rowStepBytes: 12,
        data: new Uint8Array(12).map((_, i) => i * 7),
        isDense: true,
      },
    };
    const encoder = new EntryEncoder();
    for (const received of [noisyImage(T0_MS, 3), cloud]) {
      const ros = rosMessageFor(received, 0)!;
      const standard = new MessageWriter(parsedDefinitions(rosDefinitionText(ros.schemaName))).writeMessage(ros.value);
      expect(encoder.encode({ kind: 'sensor', received }).data).toEqual(standard);
    }
  });

  it('never blocks the caller: a full queue drops and counts, with a warning', async () => {
    const recorder = await Recorder.open({ path: join(folder, 'burst.mcap'), maxQueuedMessages: 10 });
    const accepted = Array.from({ length: 25 }, (_, i) => recorder.record(scan(T0_MS + i))).filter(Boolean).length;
    expect(accepted).toBe(10);
    expect(recorder.stats().dropped).toBe(15);
    expect(recorder.alerts()).toEqual([expect.objectContaining({ key: 'recording-dropped', message: expect.stringContaining('15') })]);
    await recorder.close();
    const { reader, messages } = await readAll(join(folder, 'burst.mcap'));
    expect(messages).toHaveLength(10);
    await reader.close();
  });
});
