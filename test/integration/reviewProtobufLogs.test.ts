// Review opens MCAP logs with `protobuf` channels (schema encoding `protobuf`: a binary
// FileDescriptorSet; message encoding `protobuf`), as Foxglove's SDKs and robots' own code write
// them. The log is written here by @mcap/core's McapWriter (no code shared with Reins' recorder);
// Foxglove's schemas come as Foxglove's own generator writes their .proto files, and the robot's
// own type's messages are encoded byte by byte here, so the decoder is checked against the wire
// format, not against itself. A schema that does not parse, one that lacks its type, and a message
// that does not match its schema are each said in words, and the rest of the log plays on.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foxgloveMessageSchemas, foxgloveEnumSchemas, generateProto } from '@foxglove/schemas/internal.js';
import { McapWriter, TempBuffer } from '@mcap/core';
import jpeg from 'jpeg-js';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFieldPath } from '../../main/core/fieldPath.ts';
import type { Image, LaserScan, PointCloud2, Received, RosFields } from '../../main/core/messages.ts';
import { readFieldSeries } from '../../main/recording/fieldSeries.ts';
import { msFromNs } from '../../main/recording/logTimes.ts';
import { openReviewFile } from '../../main/recording/reviewFile.ts';
import type { ReviewableLog } from '../../main/recording/reviewLog.ts';
import { ReviewSession } from '../../main/session/reviewSession.ts';

const T0_NS = 1_700_000_000_000_000_123n;
const T0_MS = Number(T0_NS / 1_000_000n);

const BATTERY_PROTO = `
syntax = "proto3";
package acme.power;
import "google/protobuf/timestamp.proto";
message BatteryState {
  enum Health { UNKNOWN = 0; GOOD = 1; OVERHEAT = 2; }
  google.protobuf.Timestamp stamp = 1;
  double voltage = 2;
  int64 uptime_ns = 3;
  Health health = 4;
  repeated float cell_volts = 5;
  uint64 serial = 6;
}`;

/** Foxglove's schemas as its generator writes them, with their dependencies, and the robot's own. */
function schemaRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.addJSON(protobuf.common.get('google/protobuf/timestamp.proto')!.nested!);
  for (const name of ['Vector3', 'Quaternion', 'Pose', 'PackedElementField', 'CompressedImage', 'LaserScan', 'PointCloud'] as const) {
    const schema = foxgloveMessageSchemas[name];
    const enums = Object.values(foxgloveEnumSchemas).filter((candidate) => candidate.parentSchemaName === name);
    protobuf.parse(generateProto(schema, enums), root, { keepCase: true });
  }
  protobuf.parse(BATTERY_PROTO, root, { keepCase: true });
  root.resolveAll();
  return root;
}

function descriptorSet(root: protobuf.Root): Uint8Array {
  return descriptor.FileDescriptorSet.encode((root as unknown as { toDescriptor(syntax: string): protobuf.Message }).toDescriptor('proto3')).finish();
}

// ── The protobuf wire format, by hand ───────────────────────────────────────────────────────────
function varint(value: bigint): number[] {
  let rest = BigInt.asUintN(64, value);
  const bytes: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest === 0n ? low : low | 0x80);
  } while (rest !== 0n);
  return bytes;
}
const tag = (field: number, wireType: number) => varint(BigInt((field << 3) | wireType));
const delimited = (field: number, bytes: number[]) => [...tag(field, 2), ...varint(BigInt(bytes.length)), ...bytes];
function littleEndian(write: (view: DataView) => void, size: number): number[] {
  const view = new DataView(new ArrayBuffer(size));
  write(view);
  return [...new Uint8Array(view.buffer)];
}

interface Battery {
  timeNs: bigint;
  voltage: number;
  uptimeNs: bigint;
  health: number;
  cellVolts: number[];
  serial: bigint;
}

function encodeBattery(battery: Battery): Uint8Array {
  const stamp = [...tag(1, 0), ...varint(battery.timeNs / 1_000_000_000n), ...tag(2, 0), ...varint(battery.timeNs % 1_000_000_000n)];
  return new Uint8Array([
    ...delimited(1, stamp),
    ...(battery.voltage === 0 ? [] : [...tag(2, 1), ...littleEndian((view) => view.setFloat64(0, battery.voltage, true), 8)]),
    ...tag(3, 0),
    ...varint(battery.uptimeNs),
    ...tag(4, 0),
    ...varint(BigInt(battery.health)),
    ...delimited(
      5,
      battery.cellVolts.flatMap((volts) => littleEndian((view) => view.setFloat32(0, volts, true), 4)),
    ),
    ...tag(6, 0),
    ...varint(battery.serial),
  ]);
}

const BATTERIES: Battery[] = Array.from({ length: 10 }, (_, i) => ({
  timeNs: T0_NS + BigInt(i) * 100_000_000n,
  voltage: i === 3 ? 0 : 24.5 - i * 0.125,
  // 2^53 + 1 and beyond: only a bigint holds them; one negative.
  uptimeNs: i === 7 ? -5n : 9_007_199_254_740_993n + BigInt(i),
  health: i % 3,
  cellVolts: [4.1, 4.05 - i / 100, 3.9],
  serial: 18_446_744_073_709_551_615n - BigInt(i),
}));

const SCAN_RANGES = Array.from({ length: 90 }, (_, i) => (i === 10 ? Infinity : 1 + i / 10));

/** The log: the robot's battery, a Foxglove camera, scan and cloud, a schema that does not parse, one without its type, one bad message. */
async function writeProtobufLog(path: string): Promise<void> {
  const root = schemaRoot();
  const schemas = descriptorSet(root);
  const buffer = new TempBuffer();
  const writer = new McapWriter({ writable: buffer, chunkSize: 4096 });
  await writer.start({ profile: '', library: 'a protobuf writer' });
  const channel = async (topic: string, name: string, data: Uint8Array) =>
    writer.registerChannel({
      topic,
      schemaId: await writer.registerSchema({ name, encoding: 'protobuf', data }),
      messageEncoding: 'protobuf',
      metadata: new Map(),
    });
  const battery = await channel('/battery', 'acme.power.BatteryState', schemas);
  const camera = await channel('/front_cam/compressed', 'foxglove.CompressedImage', schemas);
  const lidar = await channel('/lidar', 'foxglove.LaserScan', schemas);
  const cloud = await channel('/points', 'foxglove.PointCloud', schemas);
  const broken = await channel('/broken_schema', 'acme.Broken', new Uint8Array([0x0a, 0xff, 0xff, 0x01, 0x02]));
  const missing = await channel('/missing_type', 'acme.NotThere', schemas);
  const jpegBytes = new Uint8Array(jpeg.encode({ width: 32, height: 24, data: Buffer.alloc(32 * 24 * 4, 0x80) }, 90).data);
  const cloudData = new Uint8Array(new Float32Array([1, 2, 3, 4, 5, 6]).buffer);
  for (let i = 0; i < BATTERIES.length; i++) {
    const timeNs = BATTERIES[i]!.timeNs;
    const timestamp = { seconds: Number(timeNs / 1_000_000_000n), nanos: Number(timeNs % 1_000_000_000n) };
    const add = (channelId: number, data: Uint8Array) => writer.addMessage({ channelId, sequence: i, logTime: timeNs, publishTime: timeNs, data });
    // Message 5 of /battery is cut short: its bytes do not match the schema.
    const batteryBytes = encodeBattery(BATTERIES[i]!);
    await add(battery, i === 5 ? batteryBytes.subarray(0, 6) : batteryBytes);
    await add(camera, root.lookupType('foxglove.CompressedImage').encode({ timestamp, frame_id: 'front_cam', data: jpegBytes, format: 'jpeg' }).finish());
    await add(
      lidar,
      root
        .lookupType('foxglove.LaserScan')
        .encode({ timestamp, frame_id: 'laser', start_angle: -Math.PI / 4, end_angle: Math.PI / 4, ranges: SCAN_RANGES, intensities: [] })
        .finish(),
    );
    await add(
      cloud,
      root
        .lookupType('foxglove.PointCloud')
        .encode({
          timestamp,
          frame_id: 'lidar_3d',
          point_stride: 12,
          fields: ['x', 'y', 'z'].map((name, index) => ({ name, offset: index * 4, type: 7 })),
          data: cloudData,
        })
        .finish(),
    );
    await add(broken, new Uint8Array([1, 2, 3]));
    await add(missing, new Uint8Array([1, 2, 3]));
  }
  await writer.end();
  await writeFile(path, buffer.get());
}

let folder: string;
let log: ReviewableLog;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-protobuf-log-'));
  await writeProtobufLog(join(folder, 'protobuf.mcap'));
  log = await openReviewFile(join(folder, 'protobuf.mcap'));
});

afterAll(async () => {
  await log?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('an MCAP log with protobuf channels', () => {
  it('lists every topic with its type and count, and says which schemas cannot be read and why', () => {
    expect(
      log.summary.topics.map(({ topic, schemaName, schemaEncoding, messageEncoding, messageCount }) => [
        topic,
        schemaName,
        schemaEncoding,
        messageEncoding,
        messageCount,
      ]),
    ).toEqual([
      ['/battery', 'acme.power.BatteryState', 'protobuf', 'protobuf', 10],
      ['/front_cam/compressed', 'foxglove.CompressedImage', 'protobuf', 'protobuf', 10],
      ['/lidar', 'foxglove.LaserScan', 'protobuf', 'protobuf', 10],
      ['/points', 'foxglove.PointCloud', 'protobuf', 'protobuf', 10],
      ['/broken_schema', 'acme.Broken', 'protobuf', 'protobuf', 10],
      ['/missing_type', 'acme.NotThere', 'protobuf', 'protobuf', 10],
    ]);
    expect(log.problems).toEqual([
      expect.stringMatching(
        /^topic \/broken_schema: its protobuf schema acme\.Broken is not a FileDescriptorSet that parses \(.+\): its 10 messages are listed but not shown$/,
      ),
      expect.stringMatching(
        /^topic \/missing_type: its protobuf schema has no message type acme\.NotThere \(it defines google\.protobuf\.Timestamp, foxglove\.Vector3, .*foxglove\.PointCloud, …\): its 10 messages are listed but not shown$/,
      ),
    ]);
  });

  it('decodes the robot’s own type field by field: 64-bit integers exact, enums as numbers, defaults filled in, stamps as sec/nsec', async () => {
    const values: unknown[] = [];
    for await (const message of log.messages({ topics: ['/battery'] })) {
      expect(message.logTimeNs).toBe(BATTERIES[values.length < 5 ? values.length : values.length + 1]!.timeNs);
      values.push(message.value);
    }
    const expected = BATTERIES.filter((_, i) => i !== 5).map((battery) => ({
      stamp: { sec: Number(battery.timeNs / 1_000_000_000n), nsec: Number(battery.timeNs % 1_000_000_000n) },
      voltage: battery.voltage,
      uptime_ns: battery.uptimeNs,
      health: battery.health,
      cell_volts: battery.cellVolts.map((volts) => Math.fround(volts)),
      serial: battery.serial,
    }));
    expect(values).toEqual(expected);
    // The message cut short is said once, with its topic and time; every other one is read.
    expect(log.problems).toContainEqual(
      expect.stringMatching(
        /^a message on \/battery at \S+ cannot be decoded \(the bytes do not match the protobuf type acme\.power\.BatteryState: .+\): such messages are skipped$/,
      ),
    );
  });

  it('plots a field of the robot’s own type, and a Foxglove scan’s range, over the log', async () => {
    const voltage = compileFieldPath('/battery.voltage', 'acme.power.BatteryState');
    if (!voltage.ok) throw new Error(voltage.message);
    const series = await readFieldSeries(log, voltage.compiled);
    if (!series.ok) throw new Error(series.problem);
    expect(series.series.values).toEqual(BATTERIES.filter((_, i) => i !== 5).map((battery) => battery.voltage));
    expect(series.series.timesMs).toEqual(BATTERIES.filter((_, i) => i !== 5).map((battery) => msFromNs(battery.timeNs)));
    const range = compileFieldPath('/lidar.ranges[20]', 'foxglove.LaserScan');
    if (!range.ok) throw new Error(range.message);
    const ranges = await readFieldSeries(log, range.compiled);
    expect(ranges.ok && ranges.series.values).toEqual(new Array(10).fill(3));
  });

  it('feeds the camera and LiDAR roles from the Foxglove image and scan topics, found by type', async () => {
    const { replay, topics } = ReviewSession.replayOf(log);
    try {
      expect(topics).toMatchObject({ camera: '/front_cam/compressed', scan: '/lidar' });
      expect(replay.topics()).toEqual([
        { topic: '/battery', kind: 'RosFields', type: 'acme.power.BatteryState' },
        { topic: '/front_cam/compressed', kind: 'CompressedImage', type: 'foxglove.CompressedImage' },
        { topic: '/lidar', kind: 'LaserScan', type: 'foxglove.LaserScan' },
        { topic: '/points', kind: 'PointCloud2', type: 'foxglove.PointCloud' },
        { topic: '/broken_schema', kind: 'RosFields', type: 'acme.Broken' },
        { topic: '/missing_type', kind: 'RosFields', type: 'acme.NotThere' },
      ]);
      const frame = new Promise<Received<Image>>((resolve) => replay.subscribe<Image>(topics.camera, resolve));
      replay.seek(T0_MS + 450);
      const image = await frame;
      expect(image.msg).toMatchObject({ kind: 'Image', frameId: 'front_cam', width: 32, height: 24, encoding: 'rgb8' });
      const scan = (await replay.receivedAt('/lidar', T0_MS + 450)) as Received<LaserScan>;
      expect(scan.sourceTimeMs).toBe(msFromNs(BATTERIES[4]!.timeNs));
      expect(scan.msg).toMatchObject({
        kind: 'LaserScan',
        frameId: 'laser',
        angleMinRad: -Math.PI / 4,
        angleMaxRad: Math.PI / 4,
        angleIncrementRad: expect.closeTo(Math.PI / 2 / 89, 12),
        rangeMinM: 0,
        rangeMaxM: 9.9,
      });
      expect(Array.from(scan.msg.rangesM)).toEqual(SCAN_RANGES.map((range) => Math.fround(range)));
      const cloud = (await replay.receivedAt('/points', T0_MS + 450)) as Received<PointCloud2>;
      expect(cloud.msg).toMatchObject({ kind: 'PointCloud2', frameId: 'lidar_3d', width: 2, height: 1, pointStepBytes: 12, bigEndian: false });
      expect(cloud.msg.fields).toEqual(['x', 'y', 'z'].map((name, index) => ({ name, offsetBytes: index * 4, datatype: 'float32', count: 1 })));
      expect(Array.from(new Float32Array(cloud.msg.data.slice().buffer))).toEqual([1, 2, 3, 4, 5, 6]);
      const own = (await replay.receivedAt('/battery', T0_MS + 450)) as Received<RosFields>;
      expect(own.msg).toMatchObject({ kind: 'RosFields', rosType: 'acme.power.BatteryState', fields: { voltage: 24.5 - 4 * 0.125 } });
    } finally {
      await replay.close();
    }
  });
});
