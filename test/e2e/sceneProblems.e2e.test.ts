// End to end: what goes wrong in a robot's scene is said in words in the 3D view, and the rest of the
// scene is still drawn. `reins review` plays a ROS 2 log (cdr, ros2msg, as `ros2 bag` writes one) whose
// TF goes bad: a transform that would close a cycle, one with a NaN, base_link's transform that stops
// coming (stale); a planned path in a frame TF has never heard of (missing); a marker with a NaN
// scale and one locked to the stale base_link. The view names each, and draws the good marker and
// the frames that can still be placed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from '@foxglove/rosmsg';
import { MessageWriter } from '@foxglove/rosmsg2-serialization';
import { McapWriter, TempBuffer } from '@mcap/core';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { fullRos2MessageDefinition } from '../../main/core/rosMessageDefinitions.ts';
import { openCockpitBrowser, type CockpitBrowser } from '../support/cockpitBrowser.ts';

const TOKEN = 'scene-problems-token-0123456789';
const START_NS = 1_700_000_000_000_000_000n;
const LOG_SECS = 4;
/** base_link's transform stops coming after this. */
const BASE_UNTIL_SECS = 1.5;
/** From here on each /tf also carries a cycle and a NaN. */
const BAD_FROM_SECS = 2;

const folders: string[] = [];
let cockpit: CockpitBrowser | undefined;

afterAll(async () => {
  await cockpit?.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

type Time = { sec: number; nanosec: number };

function timeOf(ns: bigint): Time {
  return { sec: Number(ns / 1_000_000_000n), nanosec: Number(ns % 1_000_000_000n) };
}

function transform(stamp: Time, parent: string, child: string, x: number): Record<string, unknown> {
  return {
    header: { stamp, frame_id: parent },
    child_frame_id: child,
    transform: { translation: { x, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 } },
  };
}

function marker(stamp: Time, frame: string, id: number, scaleX: number, frameLocked = false): Record<string, unknown> {
  return {
    header: { stamp, frame_id: frame },
    ns: 'test',
    id,
    type: 1,
    action: 0,
    pose: { position: { x: 1, y: 1, z: 0.2 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    scale: { x: scaleX, y: 0.4, z: 0.4 },
    color: { r: 0.2, g: 0.6, b: 1, a: 1 },
    lifetime: { sec: 0, nanosec: 0 },
    frame_locked: frameLocked,
    points: [],
    colors: [],
    text: '',
  };
}

/** The log as `ros2 bag record` would write it: ros2msg schemas, cdr messages. */
async function writeBadTfLog(path: string): Promise<void> {
  const buffer = new TempBuffer();
  const writer = new McapWriter({ writable: buffer, chunkSize: 64 * 1024 });
  await writer.start({ profile: 'ros2', library: 'reins scene problems test' });
  const channels = new Map<string, { id: number; writer: MessageWriter }>();
  for (const [topic, type] of [
    ['/tf', 'tf2_msgs/msg/TFMessage'],
    ['/tf_static', 'tf2_msgs/msg/TFMessage'],
    ['/plan', 'nav_msgs/msg/Path'],
    ['/markers', 'visualization_msgs/msg/MarkerArray'],
  ] as const) {
    const definition = fullRos2MessageDefinition(type);
    const schemaId = await writer.registerSchema({ name: type, encoding: 'ros2msg', data: new TextEncoder().encode(definition) });
    const id = await writer.registerChannel({ topic, schemaId, messageEncoding: 'cdr', metadata: new Map() });
    channels.set(topic, { id, writer: new MessageWriter(parse(definition, { ros2: true })) });
  }
  let sequence = 0;
  const add = async (topic: string, atNs: bigint, message: Record<string, unknown>): Promise<void> => {
    const channel = channels.get(topic)!;
    await writer.addMessage({ channelId: channel.id, sequence: sequence++, logTime: atNs, publishTime: atNs, data: channel.writer.writeMessage(message) });
  };
  await add('/tf_static', START_NS, { transforms: [transform(timeOf(START_NS), 'base_link', 'laser', 0.2)] });
  for (let step = 0; step <= LOG_SECS * 20; step++) {
    const secs = step / 20;
    const atNs = START_NS + BigInt(step) * 50_000_000n;
    const stamp = timeOf(atNs);
    const transforms = [transform(stamp, 'map', 'odom', 0.5)];
    if (secs <= BASE_UNTIL_SECS) transforms.push(transform(stamp, 'odom', 'base_link', 1 + secs * 0.1));
    if (secs >= BAD_FROM_SECS) transforms.push(transform(stamp, 'laser', 'odom', 0.1), transform(stamp, 'base_link', 'nan_link', Number.NaN));
    await add('/tf', atNs, { transforms });
    if (step % 10 === 5) {
      await add('/plan', atNs, {
        header: { stamp, frame_id: 'ghost' },
        poses: [0, 1, 2].map((x) => ({ header: { stamp, frame_id: 'ghost' }, pose: { position: { x, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } } })),
      });
      await add('/markers', atNs, { markers: [marker(stamp, 'map', 1, 0.4), marker(stamp, 'map', 2, Number.NaN), marker(stamp, 'base_link', 3, 0.3, true)] });
    }
  }
  await writer.end();
  writeFileSync(path, buffer.get());
}

const view = (page: Page) => page.getByTestId('pointcloud-view');
const notes = (page: Page) => page.getByTestId('scene-notes').textContent();

describe('problems in the scene', () => {
  it('says in words what is wrong with TF, a path and the markers, and draws the rest', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'reins-scene-problems-e2e-'));
    folders.push(folder);
    const log = join(folder, 'bad-tf.mcap');
    await writeBadTfLog(log);
    cockpit = await openCockpitBrowser(['--token', TOKEN, '--no-world-model'], { command: ['review', log], dataHome: folder });
    const { page } = cockpit;
    await page.goto(cockpit.core.uiUrl);
    await expect.poll(() => page.getByTestId('review-panel').isVisible(), { timeout: 10_000 }).toBe(true);
    const play = page.getByRole('button', { name: 'Play', exact: true });
    if ((await play.count()) > 0) await play.click();

    // The cycle and the NaN are refused, naming the frames.
    await expect
      .poll(() => notes(page), { timeout: 20_000 })
      .toMatch(/the transform laser → odom would close a cycle \(odom → base_link → laser already\) and was refused/);
    await expect.poll(() => notes(page), { timeout: 10_000 }).toMatch(/the transform base_link → nan_link has .*NaN.* and was refused/);
    // A path in a frame TF has never had, a marker with a NaN, one on the stale base_link: each named.
    await expect.poll(() => notes(page), { timeout: 10_000 }).toMatch(/Path \/plan not drawn: ghost cannot be placed in map: no frame ghost in the TF tree/);
    await expect
      .poll(() => notes(page), { timeout: 10_000 })
      .toMatch(/the marker test\/2 on \/markers is not drawn: scale\.x: expected a finite number, got NaN/);
    await expect
      .poll(() => notes(page), { timeout: 10_000 })
      .toMatch(/Marker test\/3 on \/markers not drawn: base_link cannot be placed in map: odom → base_link is [\d.]+ s old/);

    // base_link is stale in the frames list, in words; odom is still placed, and the good marker is drawn.
    await page.getByTestId('tf-tree').locator('summary').click();
    const tree = page.getByTestId('tf-tree');
    await expect.poll(async () => (await tree.locator('tr[data-frame="base_link"]').getAttribute('class')) ?? '', { timeout: 10_000 }).toMatch(/problem/);
    expect(await tree.locator('.problem-text').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/odom → base_link is [\d.]+ s old/)]));
    expect((await tree.locator('tr[data-frame="odom"]').getAttribute('class')) ?? '').not.toMatch(/problem/);
    await expect.poll(async () => Number(await view(page).getAttribute('data-drawn-markers')), { timeout: 10_000 }).toBe(1);
    expect(await view(page).getAttribute('data-drawn-paths')).toBe('0');
    await cockpit.screenshot('scene-problems');
    expect(await cockpit.close()).toBe(0);
    cockpit = undefined;
  }, 90_000);
});
