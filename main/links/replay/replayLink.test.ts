import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Recorder } from '../../recording/recorder.ts';
import { RecordingReader } from '../../recording/recordingReader.ts';
import { COMMAND_SENT_CHANNEL } from '../../recording/reinsEvents.ts';
import type { Image, LaserScan, Odometry, Received, RobotMessage } from '../../core/messages.ts';
import { ReplayLink, replayTopics, type ReplaySource } from './replayLink.ts';

const T0_MS = 1_700_000_000_000;
let folder: string;
let reader: RecordingReader | undefined;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-replay-'));
});
afterEach(async () => {
  await reader?.close();
  reader = undefined;
  await rm(folder, { recursive: true, force: true });
});

function odom(atMs: number, xM: number): Received<RobotMessage> {
  return {
    topic: '/odom',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs - 4,
    msg: {
      kind: 'Odometry',
      frameId: 'odom',
      childFrameId: 'base',
      odomFromBaseXM: xM,
      odomFromBaseYM: 0,
      odomFromBaseYawRad: 0,
      linearMps: 0.2,
      angularRadps: 0,
    },
  };
}
function image(atMs: number, shade: number): Received<RobotMessage> {
  return {
    topic: '/camera/image_raw',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs - 20,
    msg: { kind: 'Image', frameId: 'camera', width: 4, height: 2, encoding: 'rgb8', step: 12, data: new Uint8Array(24).fill(shade) },
  };
}
function scan(atMs: number): Received<RobotMessage> {
  return {
    topic: '/scan',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs,
    msg: {
      kind: 'LaserScan',
      frameId: 'laser',
      angleMinRad: -1,
      angleMaxRad: 1,
      angleIncrementRad: 1,
      rangeMinM: 0.1,
      rangeMaxM: 10,
      rangesM: new Float32Array([1, 2, 3]),
    },
  };
}

/** A log of 1 s: odometry every 50 ms (x = its index), a camera frame every 100 ms, a scan every 200 ms, and command events. */
async function recordLog(): Promise<ReplaySource> {
  const path = join(folder, 'session.mcap');
  const recorder = await Recorder.open({ path });
  for (let i = 0; i <= 20; i++) {
    const t = T0_MS + i * 50;
    recorder.record(odom(t, i));
    if (i % 2 === 0) recorder.record(image(t, i));
    if (i % 4 === 0) recorder.record(scan(t));
    recorder.recordEvent(COMMAND_SENT_CHANNEL, t, {
      driver: 'idle',
      command: { linearMps: 0, angularRadps: 0 },
      requested: { linearMps: 0, angularRadps: 0 },
      clipped: false,
      delivered: true,
      atMs: t,
    });
  }
  await recorder.close();
  reader = await RecordingReader.open(path);
  const opened = reader;
  const mcap = opened.mcap!;
  const channels = [...mcap.channelsById.values()].map((channel) => ({
    topic: channel.topic,
    schemaName: mcap.schemasById.get(channel.schemaId)?.name ?? '',
  }));
  const stats = mcap.statistics!;
  return {
    path,
    channels,
    startMs: Number(stats.messageStartTime) / 1e6,
    endMs: Number(stats.messageEndTime) / 1e6,
    problems: [],
    messages: (range) => opened.messages(range),
    latestAt: (topic, timeMs) => opened.latestAt(topic, timeMs),
  };
}

function collect(link: ReplayLink, topic: string): Received[] {
  const got: Received[] = [];
  link.subscribe(topic, (received) => got.push(received));
  return got;
}

function ended(link: ReplayLink): Promise<void> {
  return new Promise((resolve) => {
    const check = setInterval(() => {
      if (!link.position().playing) {
        clearInterval(check);
        resolve();
      }
    }, 5);
  });
}

describe('ReplayLink', () => {
  it('offers the log’s sensor topics with their kinds, never Reins’ own events, and sends nothing', async () => {
    const source = await recordLog();
    const link = new ReplayLink(source);
    expect(
      link
        .topics()
        .map((topic) => [topic.topic, topic.kind])
        .sort(),
    ).toEqual([
      ['/camera/image_raw', 'Image'],
      ['/odom', 'Odometry'],
      ['/scan', 'LaserScan'],
    ]);
    expect(replayTopics(source.channels)).toHaveLength(3);
    expect(link.capabilities.sendsCommands).toBe(false);
    expect(link.publish()).toBe(false);
    expect(link.presence()).toBe('present');
    await link.close();
    expect(link.presence()).toBe('closed');
  });

  it('plays every subscribed message once, in log order, decoded as the live link decodes it, and pauses at the end', async () => {
    const source = await recordLog();
    let endedCalls = 0;
    const link = new ReplayLink(source, { onEnded: () => endedCalls++ });
    const odometry = collect(link, '/odom');
    const frames = collect(link, '/camera/image_raw');
    const started = Date.now();
    link.setSpeed(8);
    link.play();
    await ended(link);
    expect(odometry.map((received) => (received.msg as Odometry).odomFromBaseXM)).toEqual(Array.from({ length: 21 }, (_, i) => i));
    expect(frames.map((received) => (received.msg as Image).data[0])).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
    expect((frames[0]!.msg as Image).width).toBe(4);
    // Paced: 1 s of log at 8× takes at least 125 ms (less a timer's slack), and arrivals never go back in time.
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    for (let i = 1; i < odometry.length; i++) expect(odometry[i]!.receiveTimeMs).toBeGreaterThanOrEqual(odometry[i - 1]!.receiveTimeMs);
    // The recorded latency (stamp 4 ms before arrival) is kept.
    expect(odometry[3]!.receiveTimeMs - odometry[3]!.sourceTimeMs).toBeCloseTo(4, 3);
    expect(endedCalls).toBe(1);
    expect(link.position()).toMatchObject({ playing: false, positionMs: source.endMs });
    await link.close();
  });

  it('seeks while paused: the latest message of each subscribed topic at that time arrives at once', async () => {
    const source = await recordLog();
    const link = new ReplayLink(source);
    const odometry = collect(link, '/odom');
    const scans = collect(link, '/scan');
    link.seek(T0_MS + 525);
    await until(() => odometry.length === 1 && scans.length === 1);
    expect((odometry[0]!.msg as Odometry).odomFromBaseXM).toBe(10);
    expect((scans[0]!.msg as LaserScan).rangesM[2]).toBe(3);
    expect(link.position()).toEqual({ positionMs: T0_MS + 525, playing: false, speed: 1 });
    link.seek(T0_MS - 10_000);
    expect(link.position().positionMs).toBe(source.startMs);
    link.seek(T0_MS + 10_000);
    expect(link.position().positionMs).toBe(source.endMs);
    await link.close();
  });

  it('plays on from a seek, and a pause stops delivery until play', async () => {
    const source = await recordLog();
    const link = new ReplayLink(source);
    const odometry = collect(link, '/odom');
    link.seek(T0_MS + 800);
    link.setSpeed(8);
    link.play();
    await ended(link);
    const xs = odometry.map((received) => (received.msg as Odometry).odomFromBaseXM);
    // Playback starts at the seek's time: a seek's own frame is superseded by playing from there.
    expect(xs).toEqual([16, 17, 18, 19, 20]);
    odometry.length = 0;
    link.seek(T0_MS);
    link.pause();
    await until(() => odometry.length >= 1);
    const afterPause = odometry.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(odometry.length).toBe(afterPause);
    await link.close();
  });

  it('refuses a speed outside 0.25×–8×', async () => {
    const link = new ReplayLink(await recordLog());
    expect(() => link.setSpeed(16)).toThrow(/between 0.25 and 8/);
    expect(() => link.setSpeed(Number.NaN)).toThrow(RangeError);
    await link.close();
  });

  it('counts messages it cannot decode as an alert and delivers the rest', async () => {
    const source = await recordLog();
    const broken: ReplaySource = {
      ...source,
      latestAt: async (topic, timeMs) => {
        const message = await source.latestAt(topic, timeMs);
        return message && topic === '/scan' ? { ...message, value: { header: 'garbage' } } : message;
      },
    };
    const link = new ReplayLink(broken);
    const scans = collect(link, '/scan');
    const odometry = collect(link, '/odom');
    link.seek(T0_MS + 500);
    await until(() => odometry.length === 1 && link.alerts().length === 1);
    expect(scans).toHaveLength(0);
    expect(link.alerts()[0]!.message).toMatch(/1 recorded message on \/scan could not be decoded/);
    await link.close();
  });

  it('replays a type without a kind of its own as RosFields, ROS 1 times in rosbridge’s shape, and skips what is no stream', async () => {
    // A ROS 1 bag's /tf as its reader gives it: times as {sec, nsec}.
    const logged = {
      topic: '/tf',
      schemaName: 'tf2_msgs/TFMessage',
      logTimeMs: T0_MS + 10,
      value: { transforms: [{ header: { seq: 4, stamp: { sec: 1_700_000_000, nsec: 5 }, frame_id: 'odom' }, child_frame_id: 'base_link' }] },
    };
    const memory: ReplaySource = {
      path: 'memory.bag',
      channels: [
        { topic: '/tf', schemaName: 'tf2_msgs/TFMessage', messageEncoding: 'ros1' },
        { topic: '/reins/tick', schemaName: 'reins.Tick', messageEncoding: 'json' },
        { topic: '/scene', schemaName: 'foxglove.SceneUpdate', messageEncoding: 'flatbuffer' },
        { topic: '/schemaless', schemaName: '', messageEncoding: 'json' },
      ],
      startMs: T0_MS,
      endMs: T0_MS + 10,
      problems: [],
      messages: async function* () {
        yield logged;
      },
      latestAt: async (topic) => (topic === '/tf' ? logged : undefined),
    };
    const replay = new ReplayLink(memory, { clock: () => T0_MS + 1000 });
    expect(replay.topics()).toEqual([{ topic: '/tf', kind: 'RosFields', type: 'tf2_msgs/TFMessage' }]);
    const fields = { transforms: [{ header: { seq: 4, stamp: { secs: 1_700_000_000, nsecs: 5 }, frame_id: 'odom' }, child_frame_id: 'base_link' }] };
    expect(await replay.receivedAt('/tf', T0_MS + 10)).toEqual({
      topic: '/tf',
      receiveTimeMs: T0_MS + 10,
      sourceTimeMs: T0_MS + 10,
      msg: { kind: 'RosFields', rosType: 'tf2_msgs/TFMessage', fields },
      raw: fields,
    });
    await replay.close();
  });
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}
