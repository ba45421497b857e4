import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Received, RobotMessage } from '../core/messages.ts';
import { LiveRecordingReader } from './liveRecordingReader.ts';
import { Recorder } from './recorder.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-live-reader-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const T0_MS = 1_700_000_000_000;

function image(atMs: number, shade: number): Received<RobotMessage> {
  return {
    topic: '/camera/image_raw',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs,
    msg: { kind: 'Image', frameId: 'camera', width: 32, height: 24, encoding: 'rgb8', step: 96, data: new Uint8Array(32 * 24 * 3).fill(shade) },
  };
}
function odom(atMs: number, xM: number): Received<RobotMessage> {
  return {
    topic: '/odom',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs,
    msg: {
      kind: 'Odometry',
      frameId: 'odom',
      childFrameId: 'base',
      odomFromBaseXM: xM,
      odomFromBaseYM: 0,
      odomFromBaseYawRad: 0,
      linearMps: 0,
      angularRadps: 0,
    },
  };
}

it('reads a time range back from a log still being written, from its finished chunks', async () => {
  const path = join(folder, 'live.mcap');
  let inChunks = 0;
  const recorder = await Recorder.open({ path, chunkBytes: 4096, onChunkWritten: (progress) => (inChunks = progress.messages) });
  const reader = new LiveRecordingReader(() => recorder.stats().files, new Set(['/camera/image_raw', '/odom']));
  for (let i = 0; i < 40; i++) {
    recorder.record(image(T0_MS + i * 100, i));
    recorder.record(odom(T0_MS + i * 100, i / 10));
  }
  // Every message up to the range's end (the 11th frame and odometry) in finished chunks; later ones may not be yet.
  await expect.poll(() => inChunks, { timeout: 5000 }).toBeGreaterThanOrEqual(22);

  const clip = await reader.messages({ topics: ['/camera/image_raw', '/odom'], startMs: T0_MS + 500, endMs: T0_MS + 1000 });
  const frames = clip.filter((message) => message.topic === '/camera/image_raw');
  expect(frames.map((frame) => frame.logTimeMs)).toEqual([500, 600, 700, 800, 900, 1000].map((offset) => T0_MS + offset));
  expect((frames[0]!.value as { data: Uint8Array }).data[0]).toBe(5);
  expect(clip.filter((message) => message.topic === '/odom').length).toBe(6);

  // Later messages appear once their chunk is written; the footer at close does not confuse it.
  for (let i = 40; i < 60; i++) recorder.record(image(T0_MS + i * 100, i));
  await recorder.close();
  const late = await reader.messages({ topics: ['/camera/image_raw'], startMs: T0_MS + 5500, endMs: T0_MS + 5900 });
  expect(late.map((message) => (message.value as { data: Uint8Array }).data[0])).toEqual([55, 56, 57, 58, 59]);
});
