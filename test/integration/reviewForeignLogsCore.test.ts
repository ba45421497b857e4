// `reins review FILE` on logs Reins did not write, through the review core the command runs
// (openReviewCore with the parsed arguments): the ROS 2 MCAP from mcap_ros2, the ROS 1 bag from the
// rosbag library, and the ROS 2 log rewritten by @mcap/core's McapWriter as zstd and lz4 chunks with
// no summary at all. On each: the timeline (markers and series), a plot of a field through the
// review plot API, the topic map chosen in the Review panel (a core-level request) and by
// `--topic-map`, and `--rescore` writing memory rows that point into the log at its log times.
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compress as zstdCompress } from '@bokuweb/zstd-wasm';
import { parse } from '@foxglove/rosmsg';
import { MessageReader, MessageWriter } from '@foxglove/rosmsg2-serialization';
import { McapIndexedReader, McapWriter, TempBuffer } from '@mcap/core';
import { loadDecompressHandlers } from '@mcap/support';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStartArgs } from '../../main/cli/args.ts';
import type { Odometry } from '../../main/core/messages.ts';
import { Memory } from '../../main/memory/memory.ts';
import { sqlColumn, sqlString } from '../../main/memory/sqlFilter.ts';
import { zstdReady } from '../../main/recording/chunkCompression.ts';
import { ConcurrentFileReadable } from '../../main/recording/recordingReader.ts';
import { openReviewCore, type ReviewCore } from '../../main/session/reviewCore.ts';
import { StartupError } from '../../main/session/startupError.ts';
import { lz4Chunk, rewriteWithoutSummary } from '../support/otherWritersLogs.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'foreign-logs');
const CIRCLE = { linearMps: 0.3, angularRadps: 0.4, startMs: 1_700_000_000_000 };
const circleXM = (tSecs: number) => (CIRCLE.linearMps / CIRCLE.angularRadps) * Math.sin(CIRCLE.angularRadps * tSecs);
const silent = pino({ level: 'silent' });

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-foreign-core-'));
  // The one WebAssembly zstd module, initialised once (as the product does) before compressing with it.
  await zstdReady();
  await rewriteWithoutSummary(join(FIXTURES, 'ros2-turning-zstd.mcap'), join(folder, 'ros2-zstd-no-summary.mcap'), (chunk) => ({
    compression: 'zstd',
    compressedData: zstdCompress(chunk, 3),
  }));
  await rewriteWithoutSummary(join(FIXTURES, 'ros2-turning-zstd.mcap'), join(folder, 'ros2-lz4-no-summary.mcap'), lz4Chunk);
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

function reviewArgs(path: string, memory: string, extra: string[] = []) {
  return parseStartArgs(['--review', path, '--rescore', '--memory', memory, '--encoders', testEncoderManifest(), '--no-world-model', '--port', '0', ...extra]);
}

describe.each([
  { name: 'the ROS 2 MCAP (mcap_ros2, zstd)', file: () => join(FIXTURES, 'ros2-turning-zstd.mcap'), imu: 'sensor_msgs/msg/Imu', summary: true },
  { name: 'the ROS 1 bag (rosbag, bz2)', file: () => join(FIXTURES, 'ros1-turning-bz2.bag'), imu: 'sensor_msgs/Imu', summary: true },
  { name: 'the ROS 2 log as zstd chunks without a summary', file: () => join(folder, 'ros2-zstd-no-summary.mcap'), imu: 'sensor_msgs/msg/Imu', summary: false },
  { name: 'the ROS 2 log as lz4 chunks without a summary', file: () => join(folder, 'ros2-lz4-no-summary.mcap'), imu: 'sensor_msgs/msg/Imu', summary: false },
])('reins review on $name', ({ file, imu, summary }) => {
  let core: ReviewCore;
  let memoryUri: string;
  let path: string;

  beforeAll(async () => {
    path = file();
    memoryUri = join(folder, `memory-${path.split('/').pop()}`);
    core = await openReviewCore(reviewArgs(path, memoryUri), path, silent);
  }, 60_000);

  afterAll(async () => {
    await core?.shutdown();
  });

  it('opens it whole, with nothing lost, and says it is re-scoring', () => {
    const status = core.cockpit.state().review!;
    // A log without a summary is re-indexed by reading it through, which it says.
    // A log without a summary is indexed by reading it through, which it says; nothing is lost either way.
    expect(status.problems).toEqual(
      summary ? [] : ["the log's summary could not be read (File is not indexed): it was re-indexed by reading the file through"],
    );
    expect(status).toMatchObject({ startMs: CIRCLE.startMs, endMs: CIRCLE.startMs + 9990, rescoring: true });
  });

  it('shows which topic feeds each role and which could, and takes the operator’s choice or refuses it in words', () => {
    const status = core.cockpit.state().review!;
    expect(status.topics).toEqual({ camera: '/camera/image_raw', scan: '/scan', joints: '/joint_states', imu: '/imu', odom: '/odom' });
    expect(status.topicChoices).toMatchObject({ camera: ['/camera/image_raw'], odom: expect.arrayContaining(['/odom']) });
    const wrongType = core.cockpit.handle({ type: 'set-review-topics', id: 'a', topics: { odom: '/imu' } });
    expect(wrongType).toEqual({
      ok: false,
      error: { code: 'refused', id: 'a', message: `/imu is ${imu}, so it cannot feed the odometry (an Odometry topic)` },
    });
    const missing = core.cockpit.handle({ type: 'set-review-topics', id: 'b', topics: { camera: '/front/image' } });
    expect(missing.ok === false && missing.error.message).toBe(
      '/front/image is not a topic of the log, so it cannot feed the camera (an Image or CompressedImage topic)',
    );
    expect(core.cockpit.handle({ type: 'set-review-topics', id: 'c', topics: { odom: '/odom', scan: '/scan' } })).toEqual({ ok: true });
    expect(core.cockpit.state().review!.topics!.odom).toBe('/odom');
  });

  it('plots the robot’s speed and what was commanded on the timeline; the log holds no Reins markers', async () => {
    const timeline = await core.cockpit.reviewTimeline();
    if (!timeline.ok) throw new Error(timeline.error.message);
    // Markers come from Reins' own events (interventions, answers, ratings, surprises, alerts): none here.
    expect(timeline.body.markers).toEqual([]);
    const speed = timeline.body.series.find((series) => series.name === 'Speed')!;
    expect(speed.values).toHaveLength(500);
    for (const value of speed.values) expect(value).toBeCloseTo(CIRCLE.linearMps, 9);
    const commanded = timeline.body.series.find((series) => series.name === 'Commanded speed')!;
    expect(commanded.values).toHaveLength(100);
    for (const value of commanded.values) expect(value).toBeCloseTo(CIRCLE.linearMps, 9);
  });

  it('plots any field of the log through the review plot API', async () => {
    const plot = await core.cockpit.reviewPlot('/odom.pose.pose.position.x');
    if (!plot.ok) throw new Error(plot.error.message);
    expect(plot.body.values).toHaveLength(500);
    plot.body.timesMs.forEach((timeMs, i) => expect(plot.body.values[i]).toBeCloseTo(circleXM((timeMs - CIRCLE.startMs) / 1000), 6));
    const refused = await core.cockpit.reviewPlot('/odom.pose.pose.position.w');
    expect(refused.ok).toBe(false);
  });

  it('--rescore writes a memory row per replayed tick, each pointing at this log at its log time', async () => {
    core.loop.start();
    core.cockpit.handle({ type: 'replay-seek', atMs: CIRCLE.startMs + 2000 });
    core.cockpit.handle({ type: 'replay-speed', speed: 2 });
    core.cockpit.handle({ type: 'replay-play' });
    await until(() => core.cockpit.state().review!.positionMs > CIRCLE.startMs + 5000);
    core.cockpit.handle({ type: 'replay-pause' });
    const episodeId = core.rescoring!.episodeId;
    await core.shutdown();
    const memory = await Memory.open({ uri: memoryUri, maintenance: { periodMs: 0 } });
    try {
      const store = await memory.ticks((await memory.tickSpaces())[0]!);
      const rows = (
        await store.query({ where: `${sqlColumn('episodeId')} = ${sqlString(episodeId)}`, columns: ['mcapFile', 'mcapLogTimeNs', 'step'] })
      ).toArray();
      expect(rows.length).toBeGreaterThan(3);
      for (const row of rows) {
        expect(row.mcapFile).toBe(path);
        const logMs = Number(row.mcapLogTimeNs / 1_000_000n);
        expect(logMs).toBeGreaterThanOrEqual(CIRCLE.startMs + 2000);
        expect(logMs).toBeLessThanOrEqual(CIRCLE.startMs + 9990);
      }
    } finally {
      await memory.close();
    }
  }, 60_000);
});

describe('reins review --topic-map', () => {
  it('feeds the odometry role from the topic it names, over one found by name', async () => {
    const path = join(folder, 'two-odometries.mcap');
    await rewriteWithoutSummary(join(FIXTURES, 'ros2-turning-zstd.mcap'), path, lz4Chunk, '/wheel/odom');
    const args = reviewArgs(path, join(folder, 'memory-topic-map'), ['--topic-map', '{"odom": "/wheel/odom"}']);
    const core = await openReviewCore(args, path, silent);
    try {
      expect(core.cockpit.state().review!.topics!.odom).toBe('/wheel/odom');
      const seen: Odometry[] = [];
      const stop = core.loop.onTick((report) => {
        if (report.frame.odom) seen.push(report.frame.odom.received.msg);
      });
      core.loop.start();
      core.cockpit.handle({ type: 'replay-seek', atMs: CIRCLE.startMs + 5000 });
      await until(() => seen.length > 0);
      stop();
      // /wheel/odom is /odom with x doubled: the loop reads the chosen one.
      expect(seen[0]!.odomFromBaseXM).toBeCloseTo(2 * circleXM(5), 6);
    } finally {
      await core.shutdown();
    }
  }, 60_000);

  it('refuses, before anything starts, a topic map the log does not fit, naming every misfit', async () => {
    const path = join(FIXTURES, 'ros2-turning-zstd.mcap');
    const args = reviewArgs(path, join(folder, 'memory-refused'), ['--topic-map', '{"odom": "/imu", "scan": "/laser"}']);
    const opened = openReviewCore(args, path, silent);
    await expect(opened).rejects.toThrow(StartupError);
    await expect(opened).rejects.toThrow(
      '--topic-map does not fit ros2-turning-zstd.mcap: /laser is not a topic of the log, so it cannot feed the LiDAR (a LaserScan topic); /imu is sensor_msgs/msg/Imu, so it cannot feed the odometry (an Odometry topic)',
    );
  });
});

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
