// `reins record` as a user runs it, against the built-in simulated robot: the log opens with
// @mcap/core's indexed reader, every sensor stream is there in its standard ROS 1 type, and every
// message decodes with rosmsg-serialization's reader; the topics without a kind of their own (TF,
// the robot's description, the map: the latched ones sent once) are there as JSON named by their type.
import { execFile } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decompress, init } from '@bokuweb/zstd-wasm';
import { parse } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg-serialization';
import { McapIndexedReader } from '@mcap/core';
import { FileHandleReadable } from '@mcap/nodejs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REINS = fileURLToPath(new URL('../../main/cli/reins.mjs', import.meta.url));
const run = promisify(execFile);

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-record-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('reins record', () => {
  it('records every topic of the simulated robot: the sensor streams as standard ROS 1 messages, the others as JSON', async () => {
    const path = join(folder, 'sim.mcap');
    const { stdout } = await run(process.execPath, [REINS, 'record', 'sim', '-o', path, '--seconds', '1.2'], {
      env: { ...process.env, REINS_LOG_LEVEL: 'silent' },
    });
    expect(stdout).toMatch(/recorded \d+ messages/);

    await init();
    const handle = await open(path, 'r');
    try {
      const mcap = await McapIndexedReader.Initialize({
        readable: new FileHandleReadable(handle),
        decompressHandlers: { zstd: (buffer) => decompress(buffer) },
      });
      expect(mcap.chunkIndexes.length).toBeGreaterThan(0);
      const typeOf = Object.fromEntries([...mcap.channelsById.values()].map((c) => [c.topic, mcap.schemasById.get(c.schemaId)?.name]));
      expect(typeOf).toEqual({
        '/camera/image_raw': 'sensor_msgs/Image',
        '/scan': 'sensor_msgs/LaserScan',
        '/joint_states': 'sensor_msgs/JointState',
        '/imu': 'sensor_msgs/Imu',
        '/odom': 'nav_msgs/Odometry',
        '/points': 'sensor_msgs/PointCloud2',
        '/tf': 'tf2_msgs/TFMessage',
        '/tf_static': 'tf2_msgs/TFMessage',
        '/robot_description': 'std_msgs/String',
        '/map': 'nav_msgs/OccupancyGrid',
        '/plan': 'nav_msgs/Path',
        '/markers': 'visualization_msgs/MarkerArray',
      });
      const readers = new Map<number, { readMessage<T>(data: Uint8Array): T }>();
      for (const channel of mcap.channelsById.values()) {
        const schema = mcap.schemasById.get(channel.schemaId)!;
        if (channel.topic.startsWith('/camera') || ['/scan', '/joint_states', '/imu', '/odom', '/points'].includes(channel.topic)) {
          expect([schema.encoding, channel.messageEncoding]).toEqual(['ros1msg', 'ros1']);
          readers.set(channel.id, new MessageReader(parse(new TextDecoder().decode(schema.data))));
        } else {
          expect([schema.encoding, channel.messageEncoding]).toEqual(['jsonschema', 'json']);
          readers.set(channel.id, { readMessage: <T>(data: Uint8Array) => JSON.parse(new TextDecoder().decode(data)) as T });
        }
      }
      const counts = new Map<string, number>();
      let lastLogTime = 0n;
      for await (const message of mcap.readMessages()) {
        const topic = mcap.channelsById.get(message.channelId)!.topic;
        const decoded = readers.get(message.channelId)!.readMessage<{ header?: { stamp: { sec: number } }; width?: number }>(message.data);
        if (topic === '/camera/image_raw' || topic === '/points') expect(decoded.width).toBeGreaterThan(0);
        expect(message.logTime).toBeGreaterThanOrEqual(lastLogTime);
        lastLogTime = message.logTime;
        counts.set(topic, (counts.get(topic) ?? 0) + 1);
      }
      for (const topic of Object.keys(typeOf)) expect(counts.get(topic), topic).toBeGreaterThan(0);
      expect(mcap.statistics?.messageCount).toBe(BigInt([...counts.values()].reduce((a, b) => a + b, 0)));
    } finally {
      await handle.close();
    }
  }, 30_000);

  it('refuses to record without -o FILE.mcap', async () => {
    const failure = await run(process.execPath, [REINS, 'record', 'sim']).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(/-o FILE\.mcap/);
  });
});
