// RosFields topics through the recorder and back through review's replay link: a ROS 1 robot's as
// `json` named by their ROS type, a ROS 2 robot's as `cdr` under its own definition (JSON where a
// message does not fit the CDR writer), each read back with the same fields; a review plot of a
// field of /tf; and every file after the size limit opening with the latched topics' messages.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedLink } from '../../test/fakes/scriptedLink.ts';
import { compileFieldPath } from '../core/fieldPath.ts';
import { fullRos2MessageDefinition } from '../core/rosMessageDefinitions.ts';
import type { Received, RosFields } from '../core/messages.ts';
import { ReplayLink } from '../links/replay/replayLink.ts';
import { readFieldSeries } from './fieldSeries.ts';
import { Recorder } from './recorder.ts';
import { openReviewFile } from './reviewFile.ts';
import type { ReviewableLog } from './reviewLog.ts';
import { startSessionRecording } from './sessionRecording.ts';

/** tf2_msgs/msg/TFMessage as a ROS 2 rosapi's topics_and_raw_types gives it. */
const TF_ROS2 = fullRos2MessageDefinition('tf2_msgs/msg/TFMessage');
const STRING_ROS2 = 'string data\n';

const T0_MS = 1_700_000_000_000;

function tfFields(i: number, stamp: Record<string, number>): Record<string, unknown> {
  return {
    transforms: [
      {
        header: { stamp, frame_id: 'odom' },
        child_frame_id: 'base_link',
        transform: { translation: { x: 0.25 * i, y: -1.5, z: 0 }, rotation: { x: 0, y: 0, z: 0.5, w: 0.8660254037844386 } },
      },
      {
        header: { stamp, frame_id: 'base_link' },
        child_frame_id: 'laser',
        transform: { translation: { x: 0.1, y: 0, z: 0.2 }, rotation: { x: 0, y: 0, z: 0, w: 1 } },
      },
    ],
  };
}

function fields(rosType: string, values: Record<string, unknown>, atMs: number, ros2?: Received['ros2']): Received<RosFields> {
  const msg: RosFields = { kind: 'RosFields', rosType, fields: values };
  return { topic: '', receiveTimeMs: atMs, sourceTimeMs: atMs, msg, raw: values, ros2 };
}

let folder: string;
const closing: Array<() => Promise<void>> = [];
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-rosfields-'));
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await rm(folder, { recursive: true, force: true });
});

/** Records what `deliver` hands the link, then opens the log and its replay. */
async function recordAndReplay(
  topics: Array<{ topic: string; type: string }>,
  deliver: (link: ScriptedLink) => void,
): Promise<{ log: ReviewableLog; replay: ReplayLink }> {
  const link = new ScriptedLink(
    'robot',
    'present',
    topics.map(({ topic, type }) => ({ topic, kind: 'RosFields', type })),
  );
  const session = await startSessionRecording({ link, folder, fileName: 'fields.mcap' });
  deliver(link);
  await session.close();
  const log = await openReviewFile(session.path);
  const replay = new ReplayLink(log);
  closing.push(
    () => log.close(),
    () => replay.close(),
  );
  return { log, replay };
}

function channelsOf(log: ReviewableLog): string[][] {
  return log.summary.topics.map(({ topic, schemaName, schemaEncoding, messageEncoding }) => [topic, schemaName, schemaEncoding, messageEncoding]);
}

describe('RosFields in a recording', () => {
  it('keeps a ROS 1 robot’s /tf and a std_msgs/String as json named by their type, and replays them with the same fields', async () => {
    const sent: Received<RosFields>[] = [];
    const { log, replay } = await recordAndReplay(
      [
        { topic: '/tf', type: 'tf2_msgs/TFMessage' },
        { topic: '/chatter', type: 'std_msgs/String' },
      ],
      (link) => {
        for (let i = 0; i < 5; i++) {
          const tf = { ...fields('tf2_msgs/TFMessage', tfFields(i, { secs: 1_700_000_000, nsecs: i * 100 }), T0_MS + i * 100), topic: '/tf' };
          const chatter = { ...fields('std_msgs/String', { data: `hello ${i} — ünïcode` }, T0_MS + i * 100 + 50), topic: '/chatter' };
          sent.push(tf, chatter);
          link.deliverReceived(tf);
          link.deliverReceived(chatter);
        }
      },
    );
    expect(log.problems).toEqual([]);
    expect(channelsOf(log)).toEqual([
      ['/tf', 'tf2_msgs/TFMessage', 'jsonschema', 'json'],
      ['/chatter', 'std_msgs/String', 'jsonschema', 'json'],
    ]);
    expect(replay.topics()).toEqual([
      { topic: '/tf', kind: 'RosFields', type: 'tf2_msgs/TFMessage' },
      { topic: '/chatter', kind: 'RosFields', type: 'std_msgs/String' },
    ]);
    for (const original of sent) {
      const back = await replay.receivedAt(original.topic, original.receiveTimeMs);
      expect(back?.msg).toEqual(original.msg);
      expect(back?.raw).toBe((back?.msg as RosFields).fields);
    }
    // Review's plot of any field reads them.
    const path = compileFieldPath('/tf.transforms[0].transform.translation.x', 'tf2_msgs/TFMessage');
    if (!path.ok) throw new Error(path.message);
    const series = await readFieldSeries(log, path.compiled);
    expect(series).toEqual({
      ok: true,
      series: { path: '/tf.transforms[0].transform.translation.x', timesMs: [0, 1, 2, 3, 4].map((i) => T0_MS + i * 100), values: [0, 0.25, 0.5, 0.75, 1] },
    });
  });

  it('keeps a ROS 2 robot’s as cdr under its own definition, a message the CDR writer cannot take whole as json, and replays both', async () => {
    const sent: Received<RosFields>[] = [];
    const { log, replay } = await recordAndReplay(
      [
        { topic: '/tf', type: 'tf2_msgs/msg/TFMessage' },
        { topic: '/chatter', type: 'std_msgs/msg/String' },
      ],
      (link) => {
        const tf = {
          ...fields('tf2_msgs/msg/TFMessage', tfFields(3, { sec: 1_700_000_000, nanosec: 300 }), T0_MS, {
            rosType: 'tf2_msgs/msg/TFMessage',
            definitionText: TF_ROS2,
          }),
          topic: '/tf',
        };
        const ascii = {
          ...fields('std_msgs/msg/String', { data: 'hello' }, T0_MS + 10, { rosType: 'std_msgs/msg/String', definitionText: STRING_ROS2 }),
          topic: '/chatter',
        };
        // The CDR writer would cut a string beyond ASCII short: this one goes as JSON.
        const accented = {
          ...fields('std_msgs/msg/String', { data: 'héllo' }, T0_MS + 20, { rosType: 'std_msgs/msg/String', definitionText: STRING_ROS2 }),
          topic: '/chatter',
        };
        sent.push(tf, ascii, accented);
        for (const received of sent) link.deliverReceived(received);
      },
    );
    expect(log.problems).toEqual([]);
    expect(channelsOf(log)).toEqual([
      ['/tf', 'tf2_msgs/msg/TFMessage', 'ros2msg', 'cdr'],
      ['/chatter', 'std_msgs/msg/String', 'ros2msg', 'cdr'],
      ['/chatter', 'std_msgs/msg/String', 'jsonschema', 'json'],
    ]);
    expect(replay.topics()).toEqual([
      { topic: '/tf', kind: 'RosFields', type: 'tf2_msgs/msg/TFMessage' },
      { topic: '/chatter', kind: 'RosFields', type: 'std_msgs/msg/String' },
    ]);
    for (const original of sent) expect((await replay.receivedAt(original.topic, original.receiveTimeMs))?.msg).toEqual(original.msg);
  });

  it('writes typed arrays as JSON arrays, a bigint as a number where exact and as a decimal string beyond, inf and nan as null', async () => {
    const values = {
      cells: new Int8Array([0, 100, -1]),
      ranges: new Float32Array([1.5, Number.NaN, Number.POSITIVE_INFINITY]),
      counts: new BigUint64Array([7n]),
      stampNs: 1_700_000_000_000_000_123n,
      small: -5n,
    };
    const { replay } = await recordAndReplay([{ topic: '/custom', type: 'acme_msgs/Odd' }], (link) =>
      link.deliverReceived({ ...fields('acme_msgs/Odd', values, T0_MS), topic: '/custom' }),
    );
    expect((await replay.receivedAt('/custom', T0_MS))?.msg).toEqual({
      kind: 'RosFields',
      rosType: 'acme_msgs/Odd',
      fields: { cells: [0, 100, -1], ranges: [1.5, null, null], counts: [7], stampNs: '1700000000000000123', small: -5 },
    });
  });

  it('opens every file after the size limit with the latest message of each RosFields topic, so a latched one is in each', async () => {
    const recorder = await Recorder.open({ path: join(folder, 'rotating.mcap'), chunkBytes: 4096, maxFileBytes: 16_000 });
    const description = { ...fields('std_msgs/String', { data: '<robot name="r1"/>' }, T0_MS), topic: '/robot_description' };
    recorder.record(description);
    // Text that does not compress, so the files fill.
    for (let i = 1; i <= 600; i++)
      recorder.record({ ...fields('std_msgs/String', { data: randomBytes(100).toString('hex') }, T0_MS + i * 10), topic: '/chatter' });
    await recorder.close();
    const files = recorder.stats().files;
    expect(files.length).toBeGreaterThan(2);
    const last = await openReviewFile(files.at(-1)!);
    closing.push(() => last.close());
    const replay = new ReplayLink(last);
    closing.push(() => replay.close());
    const again = await replay.receivedAt('/robot_description', last.endMs);
    expect(again?.msg).toEqual(description.msg);
    // Logged when the file starts, published when it was.
    const logged = await last.latestAt('/robot_description', last.endMs);
    expect(logged?.logTimeMs).toBe(last.startMs);
    expect(logged?.publishTimeMs).toBe(T0_MS);
  });
});
